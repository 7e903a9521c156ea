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


# (functional, fixed args before the list, the list argument's name, a valid value, kind)
INT_LISTS = [
    ("permute_channels", (), "permutation", [2, 0, 1]),
    ("resize", (), "size", [5, 7]),
    ("center_crop", (), "output_size", [4, 6]),
    ("resized_crop", (1, 1, 6, 6), "size", [4, 5]),
    ("five_crop", (), "size", [3, 4]),
    ("ten_crop", (), "size", [3, 4]),
    ("pad", (), "padding", [1, 2, 3, 4]),
    ("gaussian_blur", (), "kernel_size", [3, 5]),
]
FLOAT_LISTS = [
    ("normalize", ([0.5, 0.4, 0.3],), "std", [0.2, 0.3, 0.4]),
    ("affine", (10.0, [1.0, 2.0], 1.1), "shear", [5.0, 3.0]),
    ("rotate", (30.0,), "center", [3.0, 4.0]),
    ("gaussian_blur", ([3, 3],), "sigma", [0.7, 1.2]),
    ("pad", ([1, 1],), "fill", [10.0, 20.0, 30.0]),
]


def call(name, lib, x, fixed, arg, value):
    fn = getattr(lib, name)
    if name == "rotate":
        return fn(x, *fixed, center=value)
    if name == "affine":
        return fn(x, *fixed, shear=value)
    if name == "gaussian_blur" and arg == "sigma":
        return fn(x, *fixed, sigma=value)
    if name == "pad" and arg == "fill":
        return fn(x, *fixed, fill=value)
    if name == "normalize":
        return fn(x, *fixed, value)
    if name == "resized_crop":
        return fn(x, *fixed, value)
    return fn(x, value)


def as_tuple(out):
    return out if isinstance(out, (tuple, list)) else (out,)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", INT_LISTS + FLOAT_LISTS, ids=lambda c: f"{c[0]}-{c[2]}")
def test_list_arguments_in_every_spelling(device, case):
    name, fixed, arg, value = case
    x = torch.rand(3, 10, 12, device=device)
    expected = as_tuple(call(name, TF, x, fixed, arg, value))
    for spelled in spellings(value, device):
        got = as_tuple(call(name, F, x, fixed, arg, spelled))
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            torch.testing.assert_close(g, e, atol=1e-5, rtol=0)


@pytest.mark.parametrize("case", INT_LISTS + FLOAT_LISTS, ids=lambda c: f"{c[0]}-{c[2]}")
@pytest.mark.parametrize("bad", ["ab", [[1, 2], [3, 4]], [1, "a"], object(), {"a": 1}])
def test_bad_list_arguments_raise_type_error(case, bad):
    name, fixed, arg, value = case
    x = torch.rand(3, 10, 12)
    before = x.clone()
    with pytest.raises(TypeError):
        call(name, F, x, fixed, arg, bad)
    assert torch.equal(x, before)


@pytest.mark.parametrize("case", INT_LISTS, ids=lambda c: f"{c[0]}-{c[2]}")
def test_none_and_floats_for_int_lists_raise(case):
    name, fixed, arg, value = case
    x = torch.rand(3, 10, 12)
    if name != "resize":  # resize(size=None) is valid with max_size
        with pytest.raises(TypeError):
            call(name, F, x, fixed, arg, None)
    with pytest.raises(TypeError):
        call(name, F, x, fixed, arg, [float(v) + 0.5 for v in value])


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
