"""streamvision.io against torchvision.io: CPU decode bit-identical on files written by PIL and by
the encoders (odd sizes, 4:4:4/4:2:2/4:2:0, progressive, restart markers, grayscale, CMYK, EXIF
orientations 1-8, PNG gray/gray+alpha/RGB/RGBA/palette/16-bit, every read mode), corrupt and
truncated data, batches with on_error, files, and device="cuda" (nvJPEG: skips without a GPU)."""

import io as pyio
import warnings

import numpy as np
import pytest

from conftest import needs_cuda, needs_torchvision

torch = pytest.importorskip("torch")
PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

import streamvision._C as _C  # noqa: E402

if not _C.io_available():
    pytest.skip("streamvision built without libjpeg/libpng", allow_module_level=True)

import streamvision.io as sio  # noqa: E402

tvio = pytest.importorskip("torchvision.io")

MODES = ["UNCHANGED", "GRAY", "RGB"]
PNG_MODES = ["UNCHANGED", "GRAY", "GRAY_ALPHA", "RGB", "RGB_ALPHA"]


def as_bytes(buffer: bytes) -> "torch.Tensor":
    return torch.frombuffer(bytearray(buffer), dtype=torch.uint8)


def pil_bytes(image: "Image.Image", fmt: str, **kw) -> "torch.Tensor":
    out = pyio.BytesIO()
    image.save(out, fmt, **kw)
    return as_bytes(out.getvalue())


def random_pil(mode: str, h: int, w: int, seed: int, noise: float = 25) -> "Image.Image":
    rng = np.random.default_rng(seed)
    # Smooth content plus noise: JPEG paths see both flat blocks and detail.
    y, x = np.mgrid[0:h, 0:w]
    base = (np.sin(x / 5.0) + np.cos(y / 7.0)) * 60 + 128
    channels = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "CMYK": 4}[mode]
    arr = np.stack([base + 30 * c for c in range(channels)], -1) + rng.normal(0, noise, (h, w, channels))
    arr = np.clip(arr, 0, 255).astype(np.uint8)
    return Image.fromarray(arr[..., 0] if channels == 1 else arr, mode)


def tv_mode(name):
    return getattr(tvio.ImageReadMode, name)


def assert_same(ours, theirs):
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    assert torch.equal(ours, theirs), f"max diff {(ours.int() - theirs.int()).abs().max()}"


JPEG_CASES = [
    # (PIL mode, size, save options)
    ("RGB", (17, 23), {"quality": 90, "subsampling": 0}),   # 4:4:4, odd size
    ("RGB", (33, 50), {"quality": 75, "subsampling": 1}),   # 4:2:2
    ("RGB", (64, 31), {"quality": 60, "subsampling": 2}),   # 4:2:0
    ("RGB", (1, 1), {"quality": 95}),
    ("RGB", (45, 77), {"quality": 85, "progressive": True}),
    ("RGB", (40, 57), {"quality": 80, "restart_marker_blocks": 2}),
    ("L", (29, 61), {"quality": 90}),
    ("L", (30, 30), {"quality": 70, "progressive": True}),
    ("CMYK", (21, 34), {"quality": 90}),
]


@needs_torchvision
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pil_mode,size,options", JPEG_CASES)
def test_decode_jpeg_matches_torchvision(pil_mode, size, options, mode):
    data = pil_bytes(random_pil(pil_mode, *size, seed=sum(size)), "JPEG", **options)
    expected = tvio.decode_jpeg(data, mode=tv_mode(mode))
    assert_same(sio.decode_jpeg(data, mode=getattr(sio.ImageReadMode, mode)), expected)
    assert_same(sio.decode_image(data, mode=mode), tvio.decode_image(data, mode=tv_mode(mode)))


@needs_torchvision
def test_restart_markers_are_present():
    data = pil_bytes(random_pil("RGB", 40, 57, 1), "JPEG", restart_marker_blocks=2).numpy().tobytes()
    assert b"\xff\xdd" in data  # DRI: the restart-marker case above really has them


@needs_torchvision
@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_exif_orientation_matches_torchvision(orientation, fmt):
    image = random_pil("RGB", 13, 22, orientation)
    exif = Image.Exif()
    exif[0x0112] = orientation
    data = pil_bytes(image, fmt, exif=exif)
    for apply in (False, True):
        expected = tvio.decode_image(data, apply_exif_orientation=apply)
        assert_same(sio.decode_image(data, apply_exif_orientation=apply), expected)
        if fmt == "JPEG":
            assert_same(sio.decode_jpeg(data, apply_exif_orientation=apply), tvio.decode_jpeg(data, apply_exif_orientation=apply))
        else:
            assert_same(sio.decode_png(data, apply_exif_orientation=apply), tvio.decode_png(data, apply_exif_orientation=apply))
    if orientation >= 5:
        assert sio.decode_image(data, apply_exif_orientation=True).shape[-2:] == (22, 13)


PNG_CASES = [("L", (7, 9)), ("LA", (10, 3)), ("RGB", (31, 17)), ("RGBA", (4, 29)), ("RGB", (1, 1))]


@needs_torchvision
@pytest.mark.parametrize("mode", PNG_MODES)
@pytest.mark.parametrize("pil_mode,size", PNG_CASES)
def test_decode_png_matches_torchvision(pil_mode, size, mode):
    data = pil_bytes(random_pil(pil_mode, *size, seed=3), "PNG")
    expected = tvio.decode_png(data, mode=tv_mode(mode))
    assert_same(sio.decode_png(data, mode=mode), expected)
    assert_same(sio.decode_image(data, mode=mode), tvio.decode_image(data, mode=tv_mode(mode)))


@needs_torchvision
@pytest.mark.parametrize("mode", PNG_MODES)
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_decode_16bit_png_matches_torchvision(channels, mode):
    image = torch.randint(0, 65536, (channels, 9, 14), dtype=torch.int32).to(torch.uint16)
    data = sio.encode_png(image)
    assert_same(sio.decode_png(data), image)  # the round trip is exact
    expected = tvio.decode_png(data, mode=tv_mode(mode))
    assert_same(sio.decode_png(data, mode=mode), expected)


@needs_torchvision
def test_decode_16bit_gray_png_from_pil():
    arr = np.random.default_rng(5).integers(0, 65536, (11, 6)).astype(np.uint16)
    data = pil_bytes(Image.fromarray(arr), "PNG")
    assert_same(sio.decode_png(data), tvio.decode_png(data))
    assert sio.decode_png(data).dtype == torch.uint16


@needs_torchvision
@pytest.mark.parametrize("colors,transparency", [(4, False), (16, False), (200, False), (7, True)])
def test_palette_png(colors, transparency):
    rgb = random_pil("RGB", 15, 21, colors)
    pal = rgb.quantize(colors)
    options = {"transparency": 0} if transparency else {}
    data = pil_bytes(pal, "PNG", **options)
    for mode in ("GRAY", "RGB"):
        assert_same(sio.decode_png(data, mode=mode), tvio.decode_png(data, mode=tv_mode(mode)))
    # UNCHANGED: the expanded colours (torchvision returns the packed indices here).
    reread = Image.open(pyio.BytesIO(data.numpy().tobytes()))
    expected = np.array(reread.convert("RGBA" if transparency else "RGB")).transpose(2, 0, 1)
    assert np.array_equal(sio.decode_png(data).numpy(), expected)


@pytest.mark.parametrize("pil_mode", ["1", "L", "RGB"])
def test_low_bit_depth_and_roundtrips(pil_mode):
    image = random_pil("L" if pil_mode == "1" else pil_mode, 9, 13, 2).convert(pil_mode)
    data = pil_bytes(image, "PNG")
    expected = np.array(image.convert("L" if pil_mode == "1" else pil_mode))
    ours = sio.decode_png(data).numpy()
    assert np.array_equal(ours.transpose(1, 2, 0).squeeze(-1) if ours.shape[0] == 1 else ours.transpose(1, 2, 0), expected)


@needs_torchvision
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("quality", [10, 75, 100])
def test_encode_jpeg_matches_torchvision(channels, quality):
    image = torch.from_numpy(np.array(random_pil("RGB" if channels == 3 else "L", 19, 26, quality))).reshape(19, 26, channels).permute(2, 0, 1).contiguous()
    ours = sio.encode_jpeg(image, quality=quality)
    theirs = tvio.encode_jpeg(image, quality=quality)
    assert_same(tvio.decode_jpeg(ours), tvio.decode_jpeg(theirs))
    assert [x.numel() for x in sio.encode_jpeg([image, image], quality=quality)] == [ours.numel()] * 2


@needs_torchvision
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_encode_png_decodes_in_torchvision(channels):
    image = torch.randint(0, 256, (channels, 12, 5), dtype=torch.uint8)
    assert_same(tvio.decode_png(sio.encode_png(image, compression_level=9)), image)
    # Non-contiguous input (a channels_last view) encodes the same pixels.
    view = image.permute(1, 2, 0).contiguous().permute(2, 0, 1)
    assert_same(tvio.decode_png(sio.encode_png(view)), image)


def test_corrupt_and_truncated_data_raise_clearly():
    good = pil_bytes(random_pil("RGB", 32, 32, 1), "JPEG")
    png = pil_bytes(random_pil("RGB", 8, 8, 1), "PNG")
    with pytest.raises(RuntimeError, match="decode_jpeg: Image is incomplete or truncated"):
        sio.decode_jpeg(good[: good.numel() // 2])
    with pytest.raises(RuntimeError, match="decode_png:"):
        sio.decode_png(png[:40])
    with pytest.raises(RuntimeError, match="Content is not png"):
        sio.decode_png(good)
    with pytest.raises(RuntimeError, match="neither JPEG nor PNG"):
        sio.decode_image(torch.arange(20, dtype=torch.uint8))
    corrupt = good.clone()
    corrupt[2:40] = 0  # destroys the header segments
    with pytest.raises(RuntimeError, match="decode_jpeg"):
        sio.decode_jpeg(corrupt)
    with pytest.raises(TypeError, match="uint8"):
        sio.decode_jpeg(good.to(torch.int32))
    with pytest.raises(ValueError, match="non-empty 1-D"):
        sio.decode_jpeg(good.reshape(1, -1))
    with pytest.raises(RuntimeError, match="not supported for JPEG"):
        sio.decode_jpeg(good, mode="RGB_ALPHA")
    with pytest.raises(ValueError, match="on_error"):
        sio.decode_jpeg([good], on_error="ignore")


def test_batch_on_error():
    images = [random_pil("RGB", 10 + i, 12, i) for i in range(4)]
    data = [pil_bytes(im, "JPEG") for im in images]
    data.insert(2, data[1][:30])
    with pytest.raises(RuntimeError, match="image 2 of the batch"):
        sio.decode_jpeg(data)
    with pytest.warns(RuntimeWarning, match="image 2 of the batch"):
        out = sio.decode_jpeg(data, on_error="skip")
    assert out[2] is None
    for got, d in zip(out[:2] + out[3:], data[:2] + data[3:]):
        assert_same(got, sio.decode_jpeg(d))
    mixed = [data[0], pil_bytes(images[1], "PNG"), torch.zeros(10, dtype=torch.uint8)]
    with pytest.warns(RuntimeWarning, match="image 2 of the batch"):
        out = sio.decode_image(mixed, mode="RGB", on_error="skip")
    assert out[2] is None and out[1].shape == (3, 11, 12)


def test_files(tmp_path):
    image = torch.randint(0, 256, (3, 6, 9), dtype=torch.uint8)
    path = tmp_path / "x.png"
    sio.write_png(image, path)
    assert_same(sio.read_image(path), image)
    assert_same(sio.decode_image(str(path)), image)
    assert sio.read_file(path).dtype == torch.uint8
    with pytest.raises(RuntimeError, match="cannot open '.*missing.png'"):
        sio.read_file(tmp_path / "missing.png")
    # Decode errors name the file.
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(bytes(sio.encode_jpeg(image).numpy())[:50])
    with pytest.raises(RuntimeError, match="Image is incomplete or truncated .file .*bad.jpg"):
        sio.read_image(bad)
    with pytest.raises(RuntimeError, match=r"image 1 of the batch: .* \(.*bad.jpg\)"):
        sio.decode_image([path, bad])
    with pytest.warns(RuntimeWarning, match=r"image 1 of the batch: .*bad.jpg"):
        assert sio.decode_image([path, bad], on_error="skip")[1] is None


def test_numpy_in_numpy_out():
    data = pil_bytes(random_pil("RGB", 5, 6, 0), "PNG").numpy()
    out = sio.decode_png(data)
    assert isinstance(out, np.ndarray) and out.shape == (3, 5, 6)


def test_cuda_without_decoder_says_so():
    if _C.io_gpu_decoder_available():
        pytest.skip("this build has the nvJPEG decoder: covered by test_decode_jpeg_cuda")
    data = pil_bytes(random_pil("RGB", 8, 8, 0), "JPEG")
    with pytest.raises(RuntimeError, match="nvJPEG|CUDA"):
        sio.decode_jpeg(data, device="cuda")


@needs_cuda
@needs_torchvision
@pytest.mark.skipif(not _C.io_gpu_decoder_available(), reason="this build has no nvJPEG decoder (SV_IO_NVJPEG)")
@pytest.mark.parametrize("mode", MODES)
def test_decode_jpeg_cuda(mode):
    # Little noise: torchvision's GPU-vs-CPU bound (mean < 2) is for photo-like content; strong
    # noise in the chroma planes makes nvJPEG's upsampling and libjpeg's differ by more (4.1 here).
    data = [pil_bytes(random_pil("RGB", 30 + i, 41, i, noise=4), "JPEG", quality=90) for i in range(3)]
    out = sio.decode_jpeg(data, mode=mode, device="cuda")
    for got, d in zip(out, data):
        ref = tvio.decode_jpeg(d, mode=tv_mode(mode))
        assert got.device.type == "cuda" and got.shape == ref.shape
        # nvJPEG's IDCT and chroma upsampling are not libjpeg's islow: close, not equal.
        diff = (got.cpu().int() - ref.int()).abs().float()
        assert diff.mean() < 2.0, f"mean abs diff {diff.mean()}"
    # on_error="skip" on the GPU: the bad image is None, the others decode.
    with pytest.warns(RuntimeWarning, match="image 1 of the batch"):
        out = sio.decode_jpeg([data[0], data[1][:40], data[2]], device="cuda", on_error="skip")
    assert out[1] is None and out[0] is not None and out[2] is not None
