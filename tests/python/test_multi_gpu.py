"""Two GPUs: every op runs on its input's device, on that device's current stream, whatever the
current device is; streams made current on one device do not capture the other's work; output
and scratch memory land on the input's device; a stream of another device is refused before
anything runs; graph capture works on the second device. Skipped (with the device count as the
reason) on machines with fewer than two GPUs; scripts/gpu-check --multi-gpu runs them.
"""

import subprocess
import sys
import textwrap
import threading

import pytest

from conftest import HAVE_TORCH, needs_caching_allocator, needs_two_gpus

pytestmark = needs_two_gpus

if HAVE_TORCH:
    import torch

    import streamvision as sv
    import streamvision.transforms.v2.functional as F


def _launched_on(stream):
    launched = sv.last_launch_stream()
    return launched.device, launched.handle == stream.cuda_stream


def test_second_gpu_uses_its_own_current_stream():
    with torch.cuda.device(1):
        s1 = torch.cuda.Stream()
    x = torch.rand(3, 32, 32, device="cuda:1")
    with torch.cuda.stream(s1):
        y = F.horizontal_flip(x)
        assert _launched_on(s1) == (1, True)
    assert y.device == x.device
    assert torch.equal(y, x.flip(-1))
    # A stream made current on device 0 does not capture work on a cuda:1 tensor: that runs on
    # cuda:1's current stream, and the caller's current device is left as it was.
    s0 = torch.cuda.Stream(device=0)
    with torch.cuda.stream(s0):
        y = F.vertical_flip(x)
        launched = sv.last_launch_stream()
        assert torch.cuda.current_device() == 0
    assert launched.device == 1 and launched.handle == torch.cuda.current_stream(1).cuda_stream
    torch.cuda.synchronize(1)
    assert torch.equal(y, x.flip(-2))


def test_tensor_on_device_1_runs_on_its_current_stream_whatever_the_current_device():
    # float32: CUDA equals the CPU bit for bit (uint8 bilinear follows torch per device).
    x = torch.rand(2, 3, 40, 56, device="cuda:1")
    for current in (0, 1):
        with torch.cuda.device(current):
            y = F.resize(x, [20, 28], antialias=True)
            assert _launched_on(torch.cuda.current_stream(1)) == (1, True)
            assert torch.cuda.current_device() == current, "the op must restore the current device"
        assert y.device == x.device
        assert torch.equal(y.cpu(), F.resize(x.cpu(), [20, 28], antialias=True)), f"current device {current}"


def test_stream_current_on_device_1_does_not_affect_device_0_ops():
    x0 = torch.rand(3, 24, 40, device="cuda:0")
    s1 = torch.cuda.Stream(device=1)
    # torch.cuda.stream(s1) also makes device 1 current: an op on a cuda:0 tensor still runs on
    # device 0's current stream, not on s1.
    with torch.cuda.stream(s1):
        y = F.horizontal_flip(x0)
        assert _launched_on(s1)[1] is False
        assert _launched_on(torch.cuda.current_stream(0)) == (0, True)
    # The same with streamvision's own `with stream:` on device 1, and an op on each device.
    x1 = x0.to("cuda:1")
    torch.cuda.synchronize(1)  # `mine` is not ordered after torch's copy on device 1
    with sv.Stream(device=1) as mine:
        z = F.vertical_flip(x0)
        assert sv.last_launch_stream().device == 0
        assert sv.last_launch_stream() != mine
        w = F.vertical_flip(x1)
        assert sv.last_launch_stream() == mine
    mine.synchronize()
    torch.cuda.synchronize(0)
    assert torch.equal(y, x0.flip(-1)) and torch.equal(z, x0.flip(-2))
    assert w.device == x1.device and torch.equal(w.cpu(), x0.flip(-2).cpu())


@pytest.mark.parametrize("where", ["torch stream", "streamvision stream"])
def test_outputs_and_scratch_memory_land_on_the_tensors_device(where):
    # equalize (histograms) and antialiased resize (weight tables) carve scratch memory on the
    # op's stream: on torch's stream from torch's caching allocator, on a streamvision stream
    # from the device's stream-ordered pool.
    g = torch.Generator().manual_seed(5)
    host = torch.randint(0, 256, (4, 3, 96, 128), dtype=torch.uint8, generator=g)
    host_float = torch.rand(4, 3, 96, 128, generator=g)  # float32 resize: CUDA equals the CPU exactly
    x, x_float = host.to("cuda:1"), host_float.to("cuda:1")
    stream = sv.Stream(device=1) if where == "streamvision stream" else None
    torch.cuda.synchronize(0)
    torch.cuda.synchronize(1)
    for d in (0, 1):
        torch.cuda.reset_peak_memory_stats(d)
    base = [torch.cuda.memory_allocated(d) for d in (0, 1)]
    with torch.cuda.device(0):  # the current device is not the tensor's
        eq = F.equalize(x, stream=stream)
        small = F.resize(x_float, [40, 50], antialias=True, stream=stream)
    if stream is not None:
        stream.synchronize()
    torch.cuda.synchronize(1)
    assert eq.device == x.device and small.device == x.device
    assert torch.cuda.max_memory_allocated(0) == base[0], "nothing may be allocated on device 0"
    if stream is None:
        # Scratch came from torch's allocator on device 1: the peak exceeds the outputs.
        outputs = eq.numel() * eq.element_size() + small.numel() * small.element_size()
        assert torch.cuda.max_memory_allocated(1) > base[1] + outputs
    assert torch.equal(eq.cpu(), F.equalize(host))
    assert torch.equal(small.cpu(), F.resize(host_float, [40, 50], antialias=True))


@pytest.mark.parametrize("make_stream", [lambda: sv.Stream(device=0), lambda: torch.cuda.Stream(device=0)],
                         ids=["streamvision.Stream", "torch.cuda.Stream"])
def test_stream_of_another_device_raises_and_changes_nothing(make_stream):
    x = torch.rand(3, 16, 16, device="cuda:1")
    before = x.clone()
    last = sv.last_launch_stream()
    message = r"normalize: argument 'stream': expected a stream on the input's device cuda:1, got a stream on cuda:0"
    with pytest.raises(ValueError, match=message):
        F.normalize(x, [0.5, 0.5, 0.5], [0.2, 0.2, 0.2], inplace=True, stream=make_stream())
    with pytest.raises(ValueError, match=message.replace("normalize", "horizontal_flip")):
        F.horizontal_flip(x, stream=make_stream())
    assert sv.last_launch_stream() == last, "nothing may have been launched"
    torch.cuda.synchronize(1)
    assert torch.equal(x, before)


def test_refused_stream_leaves_no_trace_in_torchs_allocator():
    # The refusal must come before the input is registered with torch's allocator on the
    # stream (record_stream): freeing the input then would record an event of device 1 on a
    # stream of device 0. In a child process, so that a crash there is reported, not inherited.
    code = textwrap.dedent("""
        import torch, streamvision.transforms.v2.functional as F, streamvision as sv
        x = torch.rand(3, 16, 16, device="cuda:1")
        try:
            F.horizontal_flip(x, stream=sv.Stream(device=0))
        except ValueError:
            pass
        del x
        torch.cuda.synchronize(1)
        torch.cuda.empty_cache()
        y = torch.rand(3, 16, 16, device="cuda:1")
        print("ok", bool(torch.equal(F.horizontal_flip(y).cpu(), y.flip(-1).cpu())))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().endswith("ok True"), out.stdout


def _pipeline(x):
    y = F.vertical_flip(F.horizontal_flip(x))
    y = F.resize(y, [32, 40], antialias=True)
    y = F.to_dtype(y, torch.float32, scale=True)
    return F.normalize(y, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])


@needs_caching_allocator
def test_cuda_graph_capture_on_device_1():
    with torch.cuda.device(1):
        static_x = torch.randint(0, 256, (2, 3, 64, 80), dtype=torch.uint8, device="cuda:1")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):  # warm-up outside the capture (kernel loading, allocator pools)
                _pipeline(static_x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_out = _pipeline(static_x)
            assert sv.last_launch_stream().device == 1
        assert static_out.device == static_x.device
        for seed in range(3):
            g = torch.Generator(device="cuda:1").manual_seed(seed)
            static_x.copy_(torch.randint(0, 256, static_x.shape, dtype=torch.uint8, device="cuda:1", generator=g))
            graph.replay()
            torch.cuda.synchronize(1)
            assert torch.equal(static_out, _pipeline(static_x)), f"replay {seed}"
    # Replay from device 0 as current: the graph runs on device 1's stream.
    static_x.fill_(7)
    graph.replay()
    torch.cuda.synchronize(1)
    assert torch.equal(static_out, _pipeline(torch.full_like(static_x, 7)))


def test_one_thread_per_device_each_on_its_own_stream():
    errors = []

    def worker(device):
        try:
            torch.cuda.set_device(device)
            s = torch.cuda.Stream()
            x = torch.randint(0, 256, (3, 48, 64), dtype=torch.uint8, device=f"cuda:{device}")
            expected = x.flip(-1)
            with torch.cuda.stream(s):
                for n in range(500):
                    y = F.horizontal_flip(x)
                    launched = sv.last_launch_stream()  # per thread
                    if launched.device != device or launched.handle != s.cuda_stream:
                        errors.append(f"device {device} op {n} ran on {launched!r}")
                        return
            s.synchronize()
            if not torch.equal(y, expected):
                errors.append(f"device {device}: wrong result")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"device {device}: {e!r}")

    threads = [threading.Thread(target=worker, args=(d,)) for d in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
