"""Conformance of the foundation ops with torchvision 0.26 on torch tensors: bit-identical on
the CPU here and on CUDA in scripts/gpu-check, for every dtype, shape and layout."""

import pytest

from conftest import HAVE_CUDA, HAVE_TORCH, needs_torchvision

pytestmark = needs_torchvision

if HAVE_TORCH:
    import torch
    import torchvision.transforms.v2.functional as TF

    import streamvision.transforms.v2.functional as F

    DTYPES = [torch.uint8, torch.int8, torch.uint16, torch.int16, torch.int32, torch.int64,
              torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool]
    FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]

DEVICES = ["cpu"] + (["cuda"] if HAVE_CUDA else [])
SHAPES = [(3, 5, 7), (2, 3, 4, 9), (2, 2, 3, 5, 6), (1, 1, 37), (2, 3, 33, 130), (0, 3, 4, 5)]


def random_image(shape, dtype, device, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        x = torch.rand(shape, generator=g, dtype=torch.float64).to(dtype)
    elif dtype == torch.bool:
        x = torch.randint(0, 2, shape, generator=g).bool()
    else:
        info = torch.iinfo(dtype)
        x = torch.randint(max(info.min, -(2**62)), min(info.max, 2**62), shape, generator=g, dtype=torch.int64).to(dtype)
    return x.to(device)


def layouts(x):
    yield "contiguous", x
    if x.ndim == 4:
        yield "channels_last", x.contiguous(memory_format=torch.channels_last)
    big = torch.zeros(x.shape[:-1] + (x.shape[-1] + 3,), dtype=x.dtype, device=x.device)
    big[..., 1 : 1 + x.shape[-1]] = x
    yield "sliced", big[..., 1 : 1 + x.shape[-1]]


def assert_identical(actual, expected, what):
    assert isinstance(actual, torch.Tensor), what
    assert actual.dtype == expected.dtype and actual.shape == expected.shape and actual.device == expected.device, what
    same = (actual == expected) | (actual.isnan() & expected.isnan()) if actual.dtype.is_floating_point else actual == expected
    assert bool(same.all()), f"{what}: {int((~same).sum())} of {same.numel()} values differ"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES)
def test_flips(device, shape):
    for dtype in DTYPES:
        x = random_image(shape, dtype, device)
        for name, view in layouts(x):
            what = f"{shape} {dtype} {name}"
            try:
                h, v = TF.horizontal_flip(view), TF.vertical_flip(view)
            except (NotImplementedError, RuntimeError):
                continue  # torch lacks this dtype here (uint16 flips on the CPU); we support it
            assert_identical(F.horizontal_flip(view), h, "hflip " + what)
            assert_identical(F.vertical_flip(view), v, "vflip " + what)


def pixel_row_views(device):
    """Channels-last images whose rows are runs of whole pixels (CUDA flips them through shared
    memory when values are 1 or 2 bytes): rows a multiple of 16 bytes or not, 2 to 4 channels,
    HWC views of decoded-style images, crops at unaligned offsets, merged leading dims, and rows
    too long for the shared buffer (the generic path)."""
    def cl(shape, dtype, seed):
        return random_image(shape, dtype, device, seed).contiguous(memory_format=torch.channels_last)

    yield "uint8 48-byte rows", cl((2, 3, 8, 16), torch.uint8, 1)
    yield "int16 C=4 64-byte rows", cl((1, 4, 5, 8), torch.int16, 2)
    yield "uint8 C=2 22-byte rows", cl((3, 2, 7, 11), torch.uint8, 3)
    yield "float16 C=3", cl((2, 3, 6, 8), torch.float16, 4)
    yield "bool", cl((2, 3, 4, 16), torch.bool, 5)
    yield "HWC view", random_image((9, 32, 3), torch.uint8, device, 6).permute(2, 0, 1)
    yield "crop at an unaligned offset", cl((2, 3, 10, 40), torch.uint8, 7)[..., 2:8, 4:20]
    yield "5-D, leading dims merged", random_image((2, 2, 6, 16, 3), torch.uint8, device, 8).permute(0, 1, 4, 2, 3)
    yield "rows longer than the buffer", cl((1, 3, 2, 12000), torch.uint8, 9)
    yield "C=1 (a reversed run)", cl((2, 1, 4, 33), torch.uint8, 10)


@pytest.mark.parametrize("device", DEVICES)
def test_horizontal_flip_of_pixel_rows(device):
    for name, view in pixel_row_views(device):
        expected = torch.flip(view.cpu(), [-1])
        got = F.horizontal_flip(view)
        assert got.shape == view.shape and got.dtype == view.dtype, name
        assert torch.equal(got.cpu(), expected), name


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("scale", [False, True])
def test_to_dtype_every_pair(device, scale):
    for src in DTYPES:
        x = random_image((2, 3, 17, 35), src, device, seed=int(scale))
        for dst in DTYPES:
            what = f"{src} -> {dst} scale={scale}"
            if scale and src in (torch.float16, torch.bfloat16) and dst in (torch.int32, torch.int64):
                continue  # every value overflows to inf first; torch's CPU and CUDA builds disagree there
            try:
                expected = TF.to_dtype(x, dst, scale=scale)
            except NotImplementedError:
                continue  # torch has no kernel for this dtype on this device (uint16 on CUDA)
            except (RuntimeError, TypeError) as e:
                with pytest.raises(type(e)):
                    F.to_dtype(x, dst, scale=scale)
                continue
            for name, view in layouts(x):
                assert_identical(F.to_dtype(view, dst, scale=scale), expected, f"{what} {name}")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES)
def test_normalize(device, shape):
    for dtype in FLOATS:
        x = random_image(shape, dtype, device)
        c = shape[-3]
        mean = torch.rand(c, generator=torch.Generator().manual_seed(1)).tolist()
        std = (torch.rand(c, generator=torch.Generator().manual_seed(2)) + 0.1).tolist()
        expected = TF.normalize(x, mean, std)
        for name, view in layouts(x):
            assert_identical(F.normalize(view, mean, std), expected, f"{shape} {dtype} {name}")
            inplace = view.clone()
            out = F.normalize(inplace, mean, std, inplace=True)
            assert out is inplace
            assert_identical(inplace, expected, f"inplace {shape} {dtype} {name}")


def test_errors_match_torchvision_kinds():
    x = torch.rand(3, 4, 4)
    for call in [lambda m: m.normalize(x.to(torch.uint8), [0.5], [0.5]),
                 lambda m: m.normalize(torch.rand(4, 4), [0.5], [0.5]),
                 lambda m: m.normalize(x, [0.5], [0.0]),
                 lambda m: m.to_dtype(x, torch.int32, scale=True)]:
        with pytest.raises(Exception) as theirs:
            call(TF)
        with pytest.raises(type(theirs.value)):
            call(F)
