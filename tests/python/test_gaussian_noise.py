"""gaussian_noise with torch tensors draws its normals from torch's generator, as torchvision
does: under the same torch.manual_seed both libraries give the same values (issue 9), on the
CPU and on CUDA, for every supported dtype and layout; bad arguments consume no randomness."""

import pytest

from conftest import HAVE_CUDA, HAVE_TORCH, needs_caching_allocator, needs_torchvision

pytestmark = needs_torchvision

if HAVE_TORCH:
    import torch
    import torchvision.transforms.v2.functional as TF

    import streamvision.transforms.v2.functional as F

DEVICES = ["cpu"] + (["cuda"] if HAVE_CUDA else [])
DTYPES = ["uint8", "float16", "bfloat16", "float32", "float64"]


def image(shape, dtype, device, layout, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(shape, generator=g, dtype=torch.float64)
    x = (x * 255).round().to(torch.uint8) if dtype == torch.uint8 else x.to(dtype)
    x = x.to(device)
    if layout == "channels_last" and x.dim() == 4:
        x = x.to(memory_format=torch.channels_last)
    if layout == "transposed":
        x = x.transpose(-1, -2)
    return x


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "transposed"])
@pytest.mark.parametrize("shape", [(3, 17, 9), (2, 3, 8, 11), (5,)], ids=str)
def test_equals_torchvision_under_manual_seed(device, dtype, layout, shape):
    dtype = getattr(torch, dtype)
    if layout != "contiguous" and len(shape) < 2:
        pytest.skip("layouts need an image")
    x = image(shape, dtype, device, layout, 7)
    for mean, sigma, clip in [(0.0, 0.1, True), (0.1, 0.3, False), (-0.2, 0.05, True)]:
        torch.manual_seed(123)
        got = F.gaussian_noise(x, mean, sigma, clip)
        after = torch.randn(1, device=device)
        torch.manual_seed(123)
        want = TF.gaussian_noise(x, mean=mean, sigma=sigma, clip=clip)
        assert torch.randn(1, device=device).equal(after), "both consume the same randomness"
        assert got.dtype == want.dtype and got.shape == want.shape
        assert torch.equal(got, want), (mean, sigma, clip, (got.double() - want.double()).abs().max())


@pytest.mark.parametrize("device", DEVICES)
def test_calls_differ_and_reproduce(device):
    x = torch.rand(3, 32, 32, device=device)
    torch.manual_seed(0)
    a, b = F.gaussian_noise(x), F.gaussian_noise(x)
    torch.manual_seed(0)
    c = F.gaussian_noise(x)
    assert not torch.equal(a, b)
    assert torch.equal(a, c)


def test_bad_arguments_consume_no_randomness():
    x = torch.rand(3, 8, 8)
    torch.manual_seed(5)
    expected = torch.randn(4)
    torch.manual_seed(5)
    with pytest.raises(ValueError, match="sigma shouldn't be negative"):
        F.gaussian_noise(x, sigma=-1.0)
    with pytest.raises(ValueError, match="Input tensor is expected to be in uint8 or float dtype"):
        F.gaussian_noise(torch.zeros(3, 8, 8, dtype=torch.int32))
    assert torch.equal(torch.randn(4), expected)


def test_streamvision_generator_still_selectable():
    import streamvision as sv

    x = torch.rand(3, 8, 8)
    a = F.gaussian_noise(x, generator=sv.Generator(9))
    b = F.gaussian_noise(x, generator=sv.Generator(9))
    assert torch.equal(a, b)


@pytest.mark.skipif(not HAVE_CUDA, reason="needs PyTorch with a CUDA GPU")
@needs_caching_allocator
def test_cuda_graph_replays_draw_fresh_noise():
    x = torch.rand(3, 64, 64, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        F.gaussian_noise(x)  # warm-up outside capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = F.gaussian_noise(x, 0.0, 0.2, False)
    g.replay()
    first = out.clone()
    g.replay()
    assert not torch.equal(first, out)
    assert abs(float((out - x).std()) - 0.2) < 0.02
