"""Argument conversion against torchvision's rules (issue 9): every integer-list and float-list
argument of every functional accepts what torchvision accepts (list, tuple, numpy array, 1-D
tensor on CPU or CUDA, 0-d tensors) and raises TypeError for the rest; scalar-or-pair
parameters follow torchvision's parsing; tensor arguments on another device are moved; in-place
ops bump autograd's version counter."""

import numpy as np
import pytest

from conftest import HAVE_CUDA, HAVE_TORCH, needs_torchvision

pytestmark = needs_torchvision

if HAVE_TORCH:
    import torch
    import torchvision.transforms.v2.functional as TF

    import streamvision.transforms.v2.functional as F

DEVICES = ["cpu"] + (["cuda"] if HAVE_CUDA else [])


def spellings(values, device):
    """The ways torchvision's users pass a list of numbers."""
    out = [list(values), tuple(values), np.array(values), torch.tensor(values),
           [torch.tensor(v) for v in values]]
    if HAVE_CUDA:
        out.append(torch.tensor(values, device="cuda"))
    return out


# (name, a valid value, call(lib, image, value)): every integer-list argument...
START = [[0, 0], [11, 0], [11, 9], [0, 9]]
INT_LISTS = [
    ("permute_channels.permutation", [2, 0, 1], lambda L, x, v: L.permute_channels(x, v)),
    ("resize.size", [5, 7], lambda L, x, v: L.resize(x, v)),
    ("center_crop.output_size", [4, 6], lambda L, x, v: L.center_crop(x, v)),
    ("resized_crop.size", [4, 5], lambda L, x, v: L.resized_crop(x, 1, 1, 6, 6, v)),
    ("five_crop.size", [3, 4], lambda L, x, v: L.five_crop(x, v)),
    ("ten_crop.size", [3, 4], lambda L, x, v: L.ten_crop(x, v)),
    ("pad.padding", [1, 2, 3, 4], lambda L, x, v: L.pad(x, v)),
    ("gaussian_blur.kernel_size", [3, 5], lambda L, x, v: L.gaussian_blur(x, v)),
]
# ... and every float-list argument of every functional.
FLOAT_LISTS = [
    ("normalize.mean", [0.5, 0.4, 0.3], lambda L, x, v: L.normalize(x, v, [0.2, 0.3, 0.4])),
    ("normalize.std", [0.2, 0.3, 0.4], lambda L, x, v: L.normalize(x, [0.5, 0.4, 0.3], v)),
    ("affine.translate", [1.0, 2.0], lambda L, x, v: L.affine(x, 10.0, v, 1.1, [0.0, 0.0])),
    ("affine.shear", [5.0, 3.0], lambda L, x, v: L.affine(x, 10.0, [1.0, 2.0], 1.1, v)),
    ("affine.center", [3.0, 4.0], lambda L, x, v: L.affine(x, 10.0, [1.0, 2.0], 1.1, [0.0, 0.0], center=v)),
    ("affine.fill", [10.0, 20.0, 30.0], lambda L, x, v: L.affine(x, 10.0, [1.0, 2.0], 1.1, [0.0, 0.0], fill=v)),
    ("rotate.center", [3.0, 4.0], lambda L, x, v: L.rotate(x, 30.0, center=v)),
    ("rotate.fill", [10.0, 20.0, 30.0], lambda L, x, v: L.rotate(x, 30.0, fill=v)),
    ("perspective.coefficients", [1.0, 0.1, 0.5, 0.05, 0.9, 0.2, 0.001, 0.002],
     lambda L, x, v: L.perspective(x, None, None, coefficients=v)),
    ("perspective.fill", [10.0, 20.0, 30.0], lambda L, x, v: L.perspective(x, START, [[1, 0], [11, 1], [10, 9], [0, 8]], fill=v)),
    ("elastic.fill", [10.0, 20.0, 30.0],
     lambda L, x, v: L.elastic(x, torch.full((1, x.shape[-2], x.shape[-1], 2), 0.02, device=x.device), fill=v)),
    ("gaussian_blur.sigma", [0.7, 1.2], lambda L, x, v: L.gaussian_blur(x, [3, 3], sigma=v)),
    ("pad.fill", [10.0, 20.0, 30.0], lambda L, x, v: L.pad(x, [1, 1], fill=v)),
]


def as_tuple(out):
    return out if isinstance(out, (tuple, list)) else (out,)


@pytest.mark.allows_host_sync  # one spelling is a CUDA tensor, which the host must read
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", INT_LISTS + FLOAT_LISTS, ids=lambda c: c[0])
def test_list_arguments_in_every_spelling(device, case):
    _, value, call = case
    x = torch.rand(3, 10, 12, device=device)
    ours = as_tuple(call(F, x, value))
    for o, t in zip(ours, as_tuple(call(TF, x, value)), strict=True):  # torchvision's meaning of the list
        torch.testing.assert_close(o, t, atol=3e-5 * max(1.0, float(t.abs().max())), rtol=0)
    for spelled in spellings(value, device):  # every spelling means exactly the numbers it holds
        held = spelled.tolist() if hasattr(spelled, "tolist") else [
            v.item() if isinstance(v, torch.Tensor) else v for v in spelled]  # float32 tensors hold rounded values
        got, want = as_tuple(call(F, x, spelled)), as_tuple(call(F, x, held))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert torch.equal(g, w)


@pytest.mark.parametrize("case", INT_LISTS + FLOAT_LISTS, ids=lambda c: c[0])
@pytest.mark.parametrize("bad", ["ab", [[1, 2], [3, 4]], [1, "a"], object(), {"a": 1}])
def test_bad_list_arguments_raise_type_error(case, bad):
    _, value, call = case
    x = torch.rand(3, 10, 12)
    before = x.clone()
    with pytest.raises(TypeError):
        call(F, x, bad)
    assert torch.equal(x, before)


@pytest.mark.parametrize("case", INT_LISTS, ids=lambda c: c[0])
def test_none_and_floats_for_int_lists_raise(case):
    name, value, call = case
    x = torch.rand(3, 10, 12)
    if name != "resize.size":  # resize(size=None) is valid with max_size
        with pytest.raises(TypeError):
            call(F, x, None)
    with pytest.raises(TypeError):
        call(F, x, [float(v) + 0.5 for v in value])


def test_tensor_permutation_in_random_photometric_distort_style():
    x = torch.randint(0, 256, (2, 3, 8, 8), dtype=torch.uint8)
    perm = torch.randperm(3)
    assert torch.equal(F.permute_channels(x, perm), TF.permute_channels(x, perm.tolist()))


@pytest.mark.parametrize("shear", [10.0, 7, [10.0], [10.0, -4.0], (3, 0)])
def test_affine_shear_parsing_matches_torchvision(shear):
    x = torch.randint(0, 256, (3, 24, 31), dtype=torch.uint8)
    for interpolation in [TF.InterpolationMode.NEAREST, TF.InterpolationMode.BILINEAR]:
        got = F.affine(x, 5.0, [1, -2], 1.1, shear, interpolation=interpolation)
        want = TF.affine(x, 5.0, [1, -2], 1.1, shear, interpolation=interpolation)
        assert (got.int() - want.int()).abs().max() <= 1


def test_affine_translate_must_be_a_sequence():
    x = torch.rand(3, 8, 8)
    with pytest.raises(TypeError, match="Argument translate should be a sequence"):
        F.affine(x, 0.0, 1.0, 1.0, 0.0)


@pytest.mark.allows_host_sync
@pytest.mark.skipif(not HAVE_CUDA, reason="needs PyTorch with a CUDA GPU")
def test_arguments_on_another_device_are_moved():
    x = torch.rand(1, 3, 16, 16, device="cuda")
    disp = torch.rand(1, 16, 16, 2) * 0.1 - 0.05
    got = F.elastic(x, disp)  # displacement on the CPU, image on CUDA
    want = TF.elastic(x, disp.cuda())
    torch.testing.assert_close(got, want, atol=1e-5, rtol=0)
    v = torch.tensor([0.25, 0.5, 0.75])[:, None, None]
    assert torch.equal(F.erase(x, 2, 3, 4, 5, v), TF.erase(x, 2, 3, 4, 5, v.cuda()))
    xc = torch.rand(1, 3, 16, 16)
    got = F.elastic(xc, disp.cuda())  # displacement on CUDA, image on the CPU
    torch.testing.assert_close(got, TF.elastic(xc, disp), atol=1e-5, rtol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_inplace_ops_bump_the_version_counter(device):
    x = torch.rand(3, 8, 8, device=device)
    v0 = x._version
    F.normalize(x, [0.5, 0.5, 0.5], [0.2, 0.2, 0.2], inplace=True)
    assert x._version > v0
    v1 = x._version
    F.erase(x, 0, 0, 2, 2, torch.tensor(0.0, device=device), inplace=True)
    assert x._version > v1
    # autograd now sees the write: backward through a saved input raises
    w = torch.rand(3, 8, 8, device=device, requires_grad=True)
    y = w * 1.0
    z = (y * y).sum()
    F.normalize(y.detach(), [0.5] * 3, [0.2] * 3, inplace=True)  # detach shares the version counter
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    # out-of-place ops do not
    x2 = torch.rand(3, 8, 8, device=device)
    F.normalize(x2, [0.5] * 3, [0.2] * 3)
    assert x2._version == 0
