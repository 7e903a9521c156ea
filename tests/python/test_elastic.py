"""elastic against torchvision 0.26 (issue 9): float16 images are sampled in float32, as
torchvision's elastic_image does, so their error against a float32 reference is torchvision's
own; and the error messages that torchvision's TestElastic matches."""

import pytest

from conftest import HAVE_CUDA, HAVE_TORCH, needs_cuda, needs_torchvision

pytestmark = needs_torchvision

if HAVE_TORCH:
    import torch
    import torchvision.transforms.v2.functional as TF

    import streamvision.transforms.v2.functional as F
    from conformance import compare

SHAPES = [(3, 37, 53), (2, 3, 20, 31), (1, 9, 8)]
HALF_ULP_AT_ONE = 2.0**-11  # float16 rounding near 1


def _cases(seed):
    g = torch.Generator().manual_seed(seed)
    for shape in SHAPES:
        h, w = shape[-2:]
        for mode in (TF.InterpolationMode.NEAREST, TF.InterpolationMode.BILINEAR):
            for fill in (None, 0.25, [0.1, 0.5, 0.9][: shape[-3]]):
                image = torch.rand(shape, generator=g, dtype=torch.float64)
                displacement = (torch.rand(1, h, w, 2, generator=g) - 0.5) * 0.3
                yield image, displacement, mode, fill


def test_float16_error_is_torchvisions():
    """max |float16 result - float32 result of the same values| is no worse than torchvision's
    (it was ten times worse when the grid was float16)."""
    for image, displacement, mode, fill in _cases(3):
        half = image.to(torch.float16)
        reference = TF.elastic(half.to(torch.float32), displacement, interpolation=mode, fill=fill)
        theirs = TF.elastic(half, displacement, interpolation=mode, fill=fill)
        ours = F.elastic(half, displacement, interpolation=mode, fill=fill)
        assert ours.dtype == torch.float16
        their_error = float((theirs.float() - reference).abs().max())
        our_error = float((ours.float() - reference).abs().max())
        what = f"elastic {tuple(image.shape)} {mode} fill={fill}"
        assert our_error <= max(their_error, HALF_ULP_AT_ONE), f"{what}: error {our_error} > torchvision's {their_error}"
        compare("elastic", ours, theirs, "close", what, "cpu")


def test_float16_is_float32_rounded():
    """Exactly: the float32 elastic of the same values, rounded to float16 at the end."""
    for image, displacement, mode, fill in _cases(4):
        half = image.to(torch.float16)
        expected = F.elastic(half.to(torch.float32), displacement, interpolation=mode, fill=fill).to(torch.float16)
        assert torch.equal(F.elastic(half, displacement, interpolation=mode, fill=fill), expected)


@needs_cuda
def test_float16_cuda_equals_cpu():
    for image, displacement, mode, fill in _cases(5):
        half = image.to(torch.float16)
        cpu = F.elastic(half, displacement, interpolation=mode, fill=fill)
        cuda = F.elastic(half.cuda(), displacement.cuda(), interpolation=mode, fill=fill)
        assert torch.equal(cuda.cpu(), cpu)


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if HAVE_CUDA else []))
def test_error_messages_match_torchvision_tests(device):
    """The regexes of torchvision 0.26's TestElastic.test_displacement_error."""
    image = torch.rand(3, 12, 10, device=device)
    with pytest.raises(TypeError, match="displacement should be a Tensor"):
        TF.elastic(image, displacement=None)
    with pytest.raises(TypeError, match="displacement should be a Tensor"):
        F.elastic(image, displacement=None)
    with pytest.raises(TypeError, match="displacement should be a Tensor"):
        F.elastic(image, None)
    with pytest.raises(ValueError, match="displacement shape should be"):
        TF.elastic(image, displacement=torch.rand(F.get_size(image), device=device))
    with pytest.raises(ValueError, match="displacement shape should be"):
        F.elastic(image, displacement=torch.rand(F.get_size(image), device=device))
