"""torch tensors in and out: zero copy, torch's allocator, layouts, aliasing, bad input."""

import pytest

from conftest import HAVE_CUDA, HAVE_TORCH, NO_CACHING_ALLOCATOR, needs_cupy, needs_cuda, needs_torch

pytestmark = needs_torch

if HAVE_TORCH:
    import torch

    import streamvision as sv
    import streamvision.transforms.v2.functional as F

DEVICES = ["cpu"] + (["cuda"] if HAVE_CUDA else [])


@pytest.mark.parametrize("device", DEVICES)
def test_torch_in_torch_out_with_layout_kept(device):
    x = torch.randint(0, 256, (2, 3, 8, 10), dtype=torch.uint8, device=device)
    y = F.horizontal_flip(x)
    assert type(y) is torch.Tensor and y.device == x.device and y.is_contiguous()
    cl = x.contiguous(memory_format=torch.channels_last)
    z = F.horizontal_flip(cl)
    assert z.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(z, cl.flip(-1))


@pytest.mark.parametrize("device", DEVICES)
def test_aliasing_results_return_the_input_object(device):
    x = torch.rand(3, 4, 5, device=device)
    assert F.to_dtype(x, torch.float32) is x
    assert F.normalize(x, [0.5], [0.5], inplace=True) is x


@pytest.mark.parametrize("device", DEVICES)
def test_zero_copy_both_ways(device):
    x = torch.rand(3, 16, 16, device=device)
    t = sv.as_tensor(x)
    assert t.data_ptr == x.data_ptr() and t.shape == tuple(x.shape)
    back = torch.from_dlpack(t)
    assert back.data_ptr() == x.data_ptr()
    del x
    import gc

    gc.collect()
    assert torch.equal(back, torch.from_dlpack(t))  # as_tensor keeps the producer alive


@pytest.mark.parametrize("device", DEVICES)
def test_outputs_come_from_torchs_allocator(device):
    x = torch.rand(4, 3, 64, 64, device=device)
    y = F.vertical_flip(x)
    # A torch-owned tensor: resizable storage from torch's allocator, usable like any other.
    y.add_(1)
    assert torch.equal(y, x.flip(-2) + 1)
    if device == "cuda" and not NO_CACHING_ALLOCATOR:  # see conftest
        before = torch.cuda.memory_allocated()
        z = F.vertical_flip(x)
        assert torch.cuda.memory_allocated() - before >= z.numel() * 4


def test_bad_inputs():
    with pytest.raises(RuntimeError, match="requires_grad"):
        F.horizontal_flip(torch.rand(3, 4, 4, requires_grad=True))
    with pytest.raises(TypeError, match="complex64"):
        F.horizontal_flip(torch.zeros(3, 4, 4, dtype=torch.complex64))
    with pytest.raises(TypeError, match="uint32"):
        F.horizontal_flip(torch.zeros(3, 4, 4, dtype=torch.uint32))
    with pytest.raises(ValueError, match="at least 2 dims"):
        F.vertical_flip(torch.zeros(4))
    with pytest.raises(TypeError, match="list"):
        F.horizontal_flip([torch.zeros(3, 4, 4)])


@needs_cupy
def test_cupy_zero_copy_and_cai():
    import cupy

    c = cupy.arange(3 * 8 * 8, dtype=cupy.float32).reshape(3, 8, 8)
    t = sv.as_tensor(c)
    assert t.data_ptr == c.data.ptr
    assert cupy.from_dlpack(t).data.ptr == c.data.ptr
    assert cupy.asarray(t).data.ptr == c.data.ptr  # through __cuda_array_interface__
    out = F.horizontal_flip(c)
    assert isinstance(out, cupy.ndarray)
    assert bool((out == c[..., ::-1]).all())


@needs_cuda
def test_cuda_array_interface_export():
    x = torch.rand(3, 8, 8, device="cuda")
    t = F.horizontal_flip(sv.as_tensor(x))
    cai = t.__cuda_array_interface__
    assert cai["version"] == 3 and cai["typestr"] == "<f4" and cai["shape"] == (3, 8, 8)
    assert cai["data"][0] == t.data_ptr and "stream" in cai


def test_cpu_ops_on_torch_tensors_release_the_gil():
    """Another Python thread runs while an op works on a torch CPU tensor (DataLoader threads
    and Python threads are not serialised), and threads running ops at once get exact results."""
    import threading

    x = torch.rand(8, 3, 256, 256)
    want = F.gaussian_blur(x, [23, 23])
    ticks, stop = [0], threading.Event()

    def spin():
        while not stop.is_set():
            ticks[0] += 1

    # The op runs on one thread (streamvision follows torch.get_num_threads() for torch inputs), so
    # that a core is free for the spinner: with the op's pool on every core, a 2-core CI machine
    # once gave the spinner no time slice during the op (0 ticks, GIL released or not).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        before = ticks[0]
        F.gaussian_blur(x, [23, 23])
        during = ticks[0] - before
    finally:
        stop.set()
        spinner.join()
        torch.set_num_threads(threads)
    assert during > 1000, f"the spinning thread advanced only {during} times while the op ran"

    results = []
    workers = [threading.Thread(target=lambda: results.append(F.gaussian_blur(x, [23, 23]))) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(results) == 4 and all(torch.equal(r, want) for r in results)
