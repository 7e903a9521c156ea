"""streamvision.Tensor pickles on the CPU (dtype, shape, layout and bytes round-trip; slices and
expanded views pickle their elements densely) and refuses on CUDA with a TypeError that says why
(reading a CUDA tensor on the host would synchronise)."""

import copy
import pickle

import numpy as np
import pytest

import streamvision as sv
from conftest import HAVE_CUDA, HAVE_TORCH

DTYPES = ["uint8", "int8", "uint16", "int16", "int32", "int64", "float16", "float32", "float64", "bool"]


def roundtrip(t):
    return pickle.loads(pickle.dumps(t))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cpu_tensor_round_trips(dtype):
    rng = np.random.default_rng(15)
    a = (rng.integers(0, 2, (2, 3, 5, 4)) if dtype == "bool" else rng.integers(0, 100, (2, 3, 5, 4))).astype(dtype)
    t = sv.as_tensor(a)
    u = roundtrip(t)
    assert isinstance(u, sv.Tensor)
    assert (u.shape, u.strides, u.dtype, u.device) == (t.shape, t.strides, t.dtype, "cpu")
    assert u.data_ptr != t.data_ptr  # a copy, not a view of the pickled memory
    np.testing.assert_array_equal(np.from_dlpack(u), a)


def test_layouts_round_trip_as_dense_tensors_in_their_stride_order():
    a = np.arange(2 * 5 * 6 * 3, dtype=np.float32).reshape(2, 5, 6, 3)
    channels_last = sv.as_tensor(a.transpose(0, 3, 1, 2))  # NCHW view of NHWC memory
    u = roundtrip(channels_last)
    assert u.is_channels_last() and u.strides == channels_last.strides
    np.testing.assert_array_equal(np.from_dlpack(u), a.transpose(0, 3, 1, 2))

    sliced = sv.as_tensor(a[:, 1:4, ::2])  # gaps and an offset
    u = roundtrip(sliced)
    assert u.is_contiguous() and u.shape == sliced.shape
    np.testing.assert_array_equal(np.from_dlpack(u), a[:, 1:4, ::2])

    expanded = sv.as_tensor(np.broadcast_to(a[:1], (4, 5, 6, 3)))  # stride 0
    u = roundtrip(expanded)
    np.testing.assert_array_equal(np.from_dlpack(u), np.broadcast_to(a[:1], (4, 5, 6, 3)))

    empty = sv.as_tensor(np.zeros((3, 0, 7), np.uint8))
    assert roundtrip(empty).shape == (3, 0, 7)


def test_copy_and_deepcopy_use_the_same_path():
    a = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    for c in (copy.copy(sv.as_tensor(a)), copy.deepcopy(sv.as_tensor(a))):
        np.testing.assert_array_equal(np.from_dlpack(c), a)


@pytest.mark.skipif(not HAVE_TORCH, reason="needs torch")
def test_bfloat16_round_trips():
    import torch

    x = torch.randn(3, 4, 5).to(torch.bfloat16)
    u = roundtrip(sv.as_tensor(x))
    assert torch.equal(torch.from_dlpack(u), x)


def test_corrupt_pickles_are_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="data.*expected 24 bytes, got 3 bytes"):
        sv._C._tensor_from_pickle("uint8", [2, 3, 4], [12, 4, 1], b"abc")
    with pytest.raises(ValueError, match="dtype"):
        sv._C._tensor_from_pickle("complex64", [1], [1], b"12345678")


@pytest.mark.skipif(not HAVE_CUDA, reason="needs a CUDA device and torch")
def test_cuda_tensor_refuses_with_the_reason():
    import torch

    t = sv.as_tensor(torch.zeros(3, 4, 5, device="cuda"))
    with pytest.raises(TypeError, match="cannot pickle a streamvision.Tensor on cuda:0: .*host synchronisation"):
        pickle.dumps(t)
