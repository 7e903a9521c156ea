"""Stream inheritance from PyTorch, on a GPU (skipped elsewhere; run by scripts/gpu-check).

Inside ``with torch.cuda.stream(s)`` streamvision's ops run on ``s``: ``s.synchronize()`` and
events on ``s`` cover them, they are ordered after earlier work on ``s``, and they can be
captured into CUDA graphs. Negative controls prove each check can fail. Two-GPU cases are in
test_multi_gpu.py.
"""

import itertools
import subprocess
import sys
import threading

import pytest

from conftest import HAVE_TORCH, needs_caching_allocator, needs_cuda

pytestmark = needs_cuda

if HAVE_TORCH:
    import torch

    import streamvision as sv
    import streamvision.transforms.v2.functional as F
    from streamvision.torch import shared_stream

SLEEP_CYCLES = 100_000_000  # about 50 ms at the H200's ~2 GHz

# The timed checks below run every op once before queuing the sleep. Loading code into the
# context can wait for the device: on the H200 the first streamvision op of a process returned
# only after a 50 ms sleep queued before it had finished (its CUDA runtime initializes then,
# with CUDA_MODULE_LOADING lazy or eager), and in this file the first, cold run of the
# synchronization test's ops did too (lazy loading of their kernels). Warm, nothing waits.


def test_current_stream_follows_torch_inside_and_not_outside():
    s = torch.cuda.Stream()
    x = torch.randint(0, 256, (3, 32, 32), dtype=torch.uint8, device="cuda")
    with torch.cuda.stream(s):
        assert sv.Stream.current().handle == s.cuda_stream
        F.horizontal_flip(x)
        assert sv.last_launch_stream().handle == s.cuda_stream  # inside the op
    assert sv.Stream.current().handle != s.cuda_stream
    F.horizontal_flip(x)
    assert sv.last_launch_stream().handle == torch.cuda.current_stream().cuda_stream


def test_shared_stream_decorator_and_library_policy():
    s = torch.cuda.Stream()

    @shared_stream
    def inside():
        return sv.Stream.current().handle

    sv.set_stream_policy("library")
    with torch.cuda.stream(s):
        # The decorator makes streamvision's current stream torch's, whatever the policy...
        assert inside() == s.cuda_stream
        # ...and without it, the "library" policy ignores torch's stream (negative test).
        assert sv.Stream.current().handle != s.cuda_stream
        x = torch.zeros(3, 8, 8, device="cuda")
        F.vertical_flip(x)
        assert sv.last_launch_stream().handle != s.cuda_stream
    sv.set_stream_policy("framework")
    with torch.cuda.stream(s):
        assert inside() == s.cuda_stream
        assert sv.Stream.current().handle == s.cuda_stream


def test_explicit_stream_beats_with_stream_beats_torch():
    torch_s, with_s, explicit_s = torch.cuda.Stream(), sv.Stream(), sv.Stream()
    x = torch.rand(3, 16, 16, device="cuda")
    with torch.cuda.stream(torch_s):
        with with_s:
            assert sv.Stream.current() == with_s
            F.horizontal_flip(x)
            assert sv.last_launch_stream() == with_s
            F.horizontal_flip(x, stream=explicit_s)
            assert sv.last_launch_stream() == explicit_s
            F.horizontal_flip(x, stream=torch_s)  # torch streams are accepted as stream=
            assert sv.last_launch_stream().handle == torch_s.cuda_stream
        F.horizontal_flip(x)
        assert sv.last_launch_stream().handle == torch_s.cuda_stream
    torch.cuda.synchronize()


def test_with_stream_nests_and_exits_in_order():
    a, b = sv.Stream(), sv.Stream()
    with a:
        with b:
            assert sv.Stream.current() == b
        assert sv.Stream.current() == a
    assert sv.Stream.current() != a


def test_with_stream_exit_out_of_order_raises():
    # In a child process with torch imported: formatting this error (and repr of a Stream) once
    # crashed the interpreter there, inside libstdc++'s iostream locale code (now snprintf).
    code = (
        "import torch, streamvision as sv\n"
        "a, b = sv.Stream(), sv.Stream()\n"
        "print('repr:', repr(a))\n"
        "a.__enter__(); b.__enter__()\n"
        "try:\n"
        "    a.__exit__(None, None, None)\n"
        "except RuntimeError as e:\n"
        "    print('raised:', e)\n"
        "b.__exit__(None, None, None); a.__exit__(None, None, None)\n"
        "print('restored:', sv.Stream.current() != a)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "repr: streamvision.Stream(device=0, handle=0x" in out.stdout, out.stdout
    assert "reverse order" in out.stdout and "restored: True" in out.stdout, out.stdout


def _ordering_result(forced_stream):
    """On s: sleep, then write x; then flip x on s (or on forced_stream). True when right."""
    s = torch.cuda.Stream()
    x = torch.zeros(3, 64, 64, dtype=torch.uint8, device="cuda")
    pattern = torch.randint(1, 256, (3, 64, 64), dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        torch.cuda._sleep(SLEEP_CYCLES)
        x.copy_(pattern)
        y = F.horizontal_flip(x, stream=forced_stream)
    torch.cuda.synchronize()
    return bool(torch.equal(y, pattern.flip(-1)))


def test_op_is_ordered_after_earlier_work_on_the_stream():
    assert _ordering_result(None)
    # Negative control: the same sequence with the op forced onto another stream reads x
    # before the write lands, and the same check catches it.
    assert not _ordering_result(sv.Stream())


@pytest.mark.parametrize("how", ["stream", "device", "event"])
def test_synchronization_covers_the_op(how):
    s = torch.cuda.Stream()
    x = torch.randint(0, 256, (8, 3, 256, 256), dtype=torch.uint8, device="cuda")
    expected = x.flip(-1).to(torch.float32) / 255
    F.to_dtype(F.horizontal_flip(x), torch.float32, scale=True)  # warm-up (kernel loading)
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        torch.cuda._sleep(SLEEP_CYCLES)
        y = F.to_dtype(F.horizontal_flip(x), torch.float32, scale=True)
        event = torch.cuda.Event()
        event.record(s)
    assert not event.query(), "the op must still be pending behind the sleep"
    if how == "stream":
        s.synchronize()
    elif how == "device":
        torch.cuda.synchronize()
    else:
        event.synchronize()
    assert event.query()
    # Read on the host through a path that does not itself wait on s.
    host = torch.empty(y.shape, dtype=y.dtype, pin_memory=True)
    host.copy_(y, non_blocking=False)
    assert torch.allclose(host, expected.cpu(), atol=1e-6)


def pipeline(x):
    y = F.vertical_flip(F.horizontal_flip(x))
    y = F.to_dtype(y, torch.float32, scale=True)
    return F.normalize(y, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])


@needs_caching_allocator
def test_cuda_graph_capture_replays_with_new_inputs():
    static_x = torch.randint(0, 256, (2, 3, 64, 80), dtype=torch.uint8, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            pipeline(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = pipeline(static_x)
    for seed in range(3):
        g = torch.Generator(device="cuda").manual_seed(seed)
        static_x.copy_(torch.randint(0, 256, static_x.shape, dtype=torch.uint8, device="cuda", generator=g))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(static_out, pipeline(static_x)), f"replay {seed}"


FIRST_CALL_CAPTURED = """
import torch
import streamvision.transforms.v2.functional as F
x = torch.randint(0, 256, (1, 3, 1080, 1920), dtype=torch.uint8, device="cuda")
y = torch.rand(2, 3, 300, 200, device="cuda")
torch.cuda.synchronize()
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):  # global capture mode, torch's default
    a = F.autocontrast(x)
    b = F.autocontrast(y)
graph.replay()
torch.cuda.synchronize()
assert torch.equal(a, F.autocontrast(x)) and torch.equal(b, F.autocontrast(y))
print("replayed")
"""


@needs_caching_allocator
def test_first_call_of_a_process_inside_graph_capture():
    # A fresh process whose first streamvision ops are captured: their one-time set-up (autocontrast's
    # cluster queries, kernel attributes) must not break a global-mode capture.
    done = subprocess.run([sys.executable, "-c", FIRST_CALL_CAPTURED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "replayed" in done.stdout


def test_four_threads_each_on_its_own_stream():
    errors = []

    def worker(i):
        try:
            s = torch.cuda.Stream()
            x = torch.randint(0, 256, (3, 48, 64), dtype=torch.uint8, device="cuda")
            expected = x.flip(-1)
            with torch.cuda.stream(s):
                for n in range(1000):
                    y = F.horizontal_flip(x)
                    if sv.last_launch_stream().handle != s.cuda_stream:
                        errors.append(f"thread {i} op {n} ran on another stream")
                        return
            s.synchronize()
            if not torch.equal(y, expected):
                errors.append(f"thread {i}: wrong result")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"thread {i}: {e!r}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


_handshake_calls = itertools.count(1)


def _handshake(consumer_sync):
    # A value no earlier call wrote: the output may reuse a freed block that still holds the
    # previous call's result, which would hide a race.
    value = float(next(_handshake_calls))
    producer, consumer = torch.cuda.Stream(), torch.cuda.Stream()
    x = torch.zeros(3, 64, 64, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(producer):
        torch.cuda._sleep(SLEEP_CYCLES)
        x.fill_(value)
        y = F.horizontal_flip(sv.as_tensor(x))  # a streamvision.Tensor, ready on `producer`
    with torch.cuda.stream(consumer):
        if consumer_sync:
            z = torch.from_dlpack(y).clone()  # torch passes stream=consumer: we make it wait
        else:
            z = torch.utils.dlpack.from_dlpack(y.__dlpack__(stream=-1)).clone()  # no sync asked
    consumer.synchronize()
    result = bool((z == value).all())
    torch.cuda.synchronize()
    return result


def test_dlpack_handshake_orders_producer_and_consumer():
    _handshake(True)
    _handshake(False)  # warm-up of both paths (kernel loading)
    assert _handshake(True)
    assert not _handshake(False), "negative control: without the handshake the consumer races"


def test_deleting_the_input_right_after_the_op_is_safe():
    s = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        torch.cuda._sleep(SLEEP_CYCLES)
        x = torch.full((4, 3, 256, 256), 3, dtype=torch.uint8, device="cuda")
        y = F.horizontal_flip(x)
        del x
        junk = torch.full((4, 3, 256, 256), 9, dtype=torch.uint8, device="cuda")  # may reuse x's memory
    s.synchronize()
    assert bool((y == 3).all())
    # On an explicit stream other than torch's, the input (allocated on torch's stream) is
    # recorded on the op's stream, so torch does not hand its memory out while the op reads it.
    other = sv.Stream()
    x = torch.full((4, 3, 256, 256), 4, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(torch.cuda.ExternalStream(other.handle)):
        torch.cuda._sleep(SLEEP_CYCLES)
    y = F.horizontal_flip(x, stream=other)
    del x
    junk = torch.full((4, 3, 256, 256), 9, dtype=torch.uint8, device="cuda")
    other.synchronize()
    assert bool((y == 4).all())
    del junk



def test_own_pool_memory_is_reported_and_released():
    # An op on a stream of our own takes its output from streamvision's pool, not torch's:
    # memory_allocated/memory_reserved see it, and empty_cache() gives it back once it is free.
    s = sv.Stream()
    x = torch.randint(0, 256, (16, 3, 1024, 1024), dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    allocated, torch_allocated = sv.memory_allocated(), torch.cuda.memory_allocated()
    y = F.horizontal_flip(x, stream=s)
    assert torch.cuda.memory_allocated() == torch_allocated
    assert sv.memory_allocated() >= allocated + y.numel()
    assert sv.memory_reserved() >= sv.memory_allocated()
    s.synchronize()
    assert torch.equal(y, x.flip(-1))
    del y
    s.synchronize()
    reserved = sv.memory_reserved()
    assert sv.memory_allocated() <= allocated
    sv.empty_cache()
    assert sv.memory_reserved() <= reserved - x.numel()
    assert sv.memory_allocated() == sv.memory_allocated(torch.cuda.current_device())
