"""GPU JPEG decoding (nvJPEG), on a GPU (skipped elsewhere; run by scripts/gpu-check).

The GPU decode must agree with the CPU decode within torchvision's own GPU-vs-CPU tolerance
(torchvision's test_decode_jpegs_cuda: mean absolute difference below 2 per image; the largest
difference is printed, for bench/RESULTS.md), return torch tensors from PyTorch's allocator, run on
the caller's stream (a consumer queued right after it on the same stream sees whole images, and
memory the stream's queued work still reads is never written early: the hardware JPEG engine's
trap), never make the host wait, refuse CUDA-graph capture clearly, and report bad images by
index (or skip them) while decoding the others.
"""

import io
import time

import pytest

from conftest import HAVE_TORCH, HAVE_TORCHVISION, UNDER_SANITIZER, needs_caching_allocator, needs_cuda

pytestmark = needs_cuda

if HAVE_TORCH:
    import numpy as np
    import torch

    import streamvision.io as svio
    from streamvision._nvjpeg import gpu_decoder_available

    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - PIL comes with torchvision
        Image = None

SLEEP_CYCLES = 200_000_000  # about 100 ms at the H200's ~2 GHz


@pytest.fixture(autouse=True, scope="module")
def _gpu_decoder():
    if Image is None:
        pytest.skip("needs Pillow to make JPEG files")
    if not gpu_decoder_available():
        pytest.skip("this build has no nvJPEG decoder, or libnvjpeg.so.13 cannot be loaded (pip install nvidia-nvjpeg)")


def make_jpeg(height, width, *, seed=0, quality=90, gray=False, progressive=False, subsampling=2, exif_orientation=None):
    """A JPEG of a smooth random picture (gradients plus a little noise, as photos are), as a 1-D uint8 tensor."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    channels = []
    for c in range(3):
        fx, fy, phase = rng.uniform(0.005, 0.05, 2).tolist() + [rng.uniform(0, 6.28)]
        channels.append(127 + 100 * np.sin(fx * x + fy * y + phase) + rng.normal(0, 8, (height, width)))
    pixels = np.clip(np.stack(channels, -1), 0, 255).astype(np.uint8)
    image = Image.fromarray(pixels[..., 0] if gray else pixels, "L" if gray else "RGB")
    kwargs = {"quality": quality, "progressive": progressive}
    if not gray:
        kwargs["subsampling"] = subsampling  # 0: 4:4:4, 1: 4:2:2, 2: 4:2:0
    if exif_orientation is not None:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        kwargs["exif"] = exif.tobytes()
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", **kwargs)
    return torch.frombuffer(bytearray(buffer.getvalue()), dtype=torch.uint8)


def mixed_batch():
    """Baseline (the hardware engine's) and progressive (the hybrid path's) JPEGs, colour and
    gray, every subsampling, odd sizes."""
    return [
        make_jpeg(375, 500, seed=1),
        make_jpeg(333, 251, seed=2, subsampling=0),
        make_jpeg(64, 97, seed=3, subsampling=1),
        make_jpeg(120, 80, seed=4, gray=True),
        make_jpeg(200, 300, seed=5, progressive=True),
        make_jpeg(31, 17, seed=6, progressive=True, gray=True),
        make_jpeg(1, 1, seed=7),
        make_jpeg(480, 640, seed=8, quality=75),
    ]


MODES = ["UNCHANGED", "RGB", "GRAY"]


def assert_within_torchvision_tolerance(gpu, cpu, what):
    assert gpu.device.type == "cuda" and gpu.dtype == torch.uint8
    assert gpu.shape == cpu.shape, what
    diff = (gpu.cpu().float() - cpu.float()).abs()
    assert diff.mean() < 2, f"{what}: mean difference {diff.mean():.3f}"
    return int(diff.max())


@pytest.mark.parametrize("mode", MODES)
def test_gpu_decode_matches_cpu_within_torchvision_tolerance(mode):
    data = mixed_batch()
    read_mode = getattr(svio.ImageReadMode, mode)
    gpu = svio.decode_jpeg(data, mode=read_mode, device="cuda")
    cpu = svio.decode_jpeg(data, mode=read_mode, device="cpu")
    worst = 0
    for i, (g, c) in enumerate(zip(gpu, cpu)):
        worst = max(worst, assert_within_torchvision_tolerance(g, c, f"image {i}"))
        # The same layout as the CPU decode (channels_last [C, H, W]; strides of size-1 dims do not matter).
        assert [s for s, n in zip(g.stride(), g.shape) if n > 1] == [s for s, n in zip(c.stride(), c.shape) if n > 1], f"image {i}"
    print(f"\nGPU vs CPU decode, mode {mode}: max abs difference {worst}")


@pytest.mark.skipif(not HAVE_TORCHVISION, reason="torchvision is not installed")
def test_gpu_decode_matches_torchvision_cpu_decode():
    import torchvision.io as tvio

    data = mixed_batch()
    gpu = svio.decode_jpeg(data, mode=svio.ImageReadMode.RGB, device="cuda")
    worst = 0
    for i, (g, d) in enumerate(zip(gpu, data)):
        worst = max(worst, assert_within_torchvision_tolerance(g, tvio.decode_jpeg(d, mode=tvio.ImageReadMode.RGB), f"image {i}"))
    print(f"\nGPU decode vs torchvision CPU decode: max abs difference {worst}")


def test_single_image_and_device_index():
    data = make_jpeg(50, 70, seed=11)
    out = svio.decode_jpeg(data, device="cuda:0")
    assert out.device == torch.device("cuda", 0) and out.shape == (3, 50, 70)
    assert_within_torchvision_tolerance(out, svio.decode_jpeg(data), "single image")


def _torch_active_blocks():
    """(start, end) of every block PyTorch's caching allocator has handed out and not taken back."""
    blocks = []
    for segment in torch.cuda.memory_snapshot():
        address = segment["address"]
        for block in segment["blocks"]:
            if block["state"] == "active_allocated":
                blocks.append((address, address + block["size"]))
            address += block["size"]
    return blocks


@needs_caching_allocator
def test_outputs_come_from_torch_allocator():
    # Checked by address in torch's allocator snapshot, not by memory_allocated() before and
    # after: other tensors freed during the call (a garbage collection) made that difference
    # smaller than the outputs on the H200.
    data = [make_jpeg(375, 500, seed=s) for s in range(4)]
    out = svio.decode_jpeg(data, device="cuda")
    blocks = _torch_active_blocks()
    for i, o in enumerate(out):
        start = o.data_ptr()
        assert any(lo <= start and start + o.numel() <= hi for lo, hi in blocks), f"image {i} is not in torch's allocator"
    starts = [o.data_ptr() for o in out]
    del out, o
    blocks = _torch_active_blocks()
    assert not any(lo <= start < hi for start in starts for lo, hi in blocks), "freed outputs stay allocated"


def test_exif_orientation_applied_like_cpu():
    for orientation in (1, 3, 6, 8):
        data = make_jpeg(40, 64, seed=orientation, exif_orientation=orientation)
        gpu = svio.decode_jpeg(data, device="cuda", apply_exif_orientation=True)
        cpu = svio.decode_jpeg(data, apply_exif_orientation=True)
        assert_within_torchvision_tolerance(gpu, cpu, f"orientation {orientation}")
        plain = svio.decode_jpeg(data, device="cuda")
        assert plain.shape == (3, 40, 64)


def corrupt_batch():
    good = [make_jpeg(100, 120, seed=21), make_jpeg(90, 60, seed=22, progressive=True), make_jpeg(375, 500, seed=23)]
    truncated = good[2][: good[2].numel() // 3].clone()
    garbage = torch.randint(0, 256, (500,), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))
    garbage[:2] = torch.tensor([0xFF, 0xD8], dtype=torch.uint8)  # a JPEG start, then noise
    return good, [good[0], garbage, good[1], truncated, good[2]], [1, 3]


def test_bad_image_raises_naming_its_index():
    _, batch, bad = corrupt_batch()
    with pytest.raises(RuntimeError, match=rf"\b{bad[0]}\b"):
        svio.decode_jpeg(batch, device="cuda")


def test_bad_images_skipped_and_others_decoded():
    good, batch, bad = corrupt_batch()
    out = svio.decode_jpeg(batch, device="cuda", on_error="skip")
    assert len(out) == len(batch)
    for i in bad:
        assert out[i] is None, f"image {i} is corrupt"
    expected = svio.decode_jpeg(good, device="cuda")
    for i, e in zip([0, 2, 4], expected):
        assert torch.equal(out[i], e), f"image {i}"


@pytest.mark.parametrize("sleep_cycles", [0, SLEEP_CYCLES], ids=["back_to_back", "after_sleep"])
def test_consumer_after_decode_on_same_stream_sees_whole_images(sleep_cycles):
    """Producer/consumer on a side stream: (a sleep kernel first, to widen any race,) the decode,
    then a consumer kernel queued right after on the same stream. The consumer must see the
    finished images (compared with a decode checked after a full synchronisation); after the
    sleep, the decode call must return while the sleep is still running (it made the host wait
    for nothing)."""
    data = mixed_batch() + [make_jpeg(375, 500, seed=s) for s in range(30, 40)]
    reference = [o.cpu() for o in svio.decode_jpeg(data, device="cuda")]
    expected = torch.tensor([r.sum(dtype=torch.int64) for r in reference])
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    for attempt in range(5):
        with torch.cuda.stream(side):
            if sleep_cycles:
                torch.cuda._sleep(sleep_cycles)
            start = time.perf_counter()
            out = svio.decode_jpeg(data, device="cuda")
            returned_while_busy = not side.query()
            took = time.perf_counter() - start
            sums = torch.stack([o.sum(dtype=torch.int64) for o in out])  # the consumer
        side.synchronize()
        assert torch.equal(sums.cpu(), expected), f"attempt {attempt}"
        for o, r in zip(out, reference):
            assert torch.equal(o.cpu(), r)
        if sleep_cycles and not UNDER_SANITIZER:  # see conftest: the sanitizer serialises
            assert returned_while_busy, f"decode waited for the stream's queued sleep ({took * 1e3:.1f} ms)"


def test_memory_the_stream_still_reads_is_not_written_early():
    """The hardware engine writes when called, not in stream order. Queue a sleep and a reader of
    a tensor, free the tensor (PyTorch's allocator may hand its block to the decode's output on
    this stream) and decode: the reader must still see the tensor's own values."""
    data = [make_jpeg(375, 500, seed=s) for s in range(8)]
    svio.decode_jpeg(data, device="cuda")  # warm
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    nbytes = 3 * 375 * 500
    for attempt in range(5):
        with torch.cuda.stream(side):
            victims = [torch.full((nbytes,), 7, dtype=torch.uint8, device="cuda") for _ in data]
            torch.cuda._sleep(SLEEP_CYCLES // 2)
            sums = torch.stack([v.sum(dtype=torch.int64) for v in victims])
            del victims
            out = svio.decode_jpeg(data, device="cuda")
        side.synchronize()
        assert torch.equal(sums.cpu(), torch.full((len(data),), 7 * nbytes)), f"attempt {attempt}"
        assert len(out) == len(data)


def test_decode_on_another_stream_than_torchs_current():
    data = mixed_batch()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        out = svio.decode_jpeg(data, device="cuda")
        total = sum(int(o.sum(dtype=torch.int64)) for o in out)
    expected = sum(int(o.sum(dtype=torch.int64)) for o in svio.decode_jpeg(data, device="cuda"))
    assert total == expected


@needs_caching_allocator
def test_graph_capture_raises_clearly():
    data = [make_jpeg(64, 64, seed=41)]
    svio.decode_jpeg(data, device="cuda")
    graph = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    with pytest.raises(RuntimeError, match="CUDA graph"):
        with torch.cuda.graph(graph, stream=side):
            svio.decode_jpeg(data, device="cuda")
    # Nothing was left broken: decoding works after the refused capture.
    assert svio.decode_jpeg(data, device="cuda")[0].shape == (3, 64, 64)
