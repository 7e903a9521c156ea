"""The Python package on the CPU with numpy arrays: runs everywhere, CI included."""

import os
import subprocess
import sys

import numpy as np
import pytest

import streamvision as sv
import streamvision.transforms.v2.functional as F

RNG = np.random.default_rng(0)
SHAPES = [(3, 5, 7), (2, 3, 4, 9), (2, 2, 3, 5, 6), (1, 1, 37), (0, 3, 4, 5)]
DTYPES = [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64, np.bool_]


def random_array(shape, dtype):
    if np.issubdtype(dtype, np.floating):
        return RNG.uniform(-0.25, 1.25, size=shape).astype(dtype)
    if dtype == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(np.bool_)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def layouts(a):
    """The same content contiguous, channels-last and sliced out of a larger array."""
    yield "contiguous", a
    if a.ndim >= 3:
        perm = list(range(a.ndim - 3)) + [a.ndim - 2, a.ndim - 1, a.ndim - 3]
        inverse = np.argsort(perm)
        yield "channels_last", np.ascontiguousarray(a.transpose(perm)).transpose(inverse)
    big = np.zeros(a.shape[:-1] + (a.shape[-1] + 3,), dtype=a.dtype)
    big[..., 2 : 2 + a.shape[-1]] = a
    yield "sliced", big[..., 2 : 2 + a.shape[-1]]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_flips_match_numpy(shape, dtype):
    a = random_array(shape, dtype)
    for name, view in layouts(a):
        h = F.horizontal_flip(view)
        v = F.vertical_flip(view)
        assert isinstance(h, np.ndarray) and h.dtype == a.dtype, name
        np.testing.assert_array_equal(h, np.flip(a, -1), err_msg=name)
        np.testing.assert_array_equal(v, np.flip(a, -2), err_msg=name)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_normalize_matches_reference(dtype):
    a = random_array((2, 3, 6, 7), dtype)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    m = np.asarray(mean, dtype=dtype).reshape(3, 1, 1)
    s = np.asarray(std, dtype=dtype).reshape(3, 1, 1)
    expected = ((a - m).astype(dtype) / s).astype(dtype)
    for name, view in layouts(a):
        out = F.normalize(view, mean, std)
        np.testing.assert_array_equal(out, expected, err_msg=name)
    inplace = a.copy()
    out = F.normalize(inplace, mean, std, inplace=True)
    assert out is inplace
    np.testing.assert_array_equal(inplace, expected)


def test_to_dtype_scale_known_values():
    a = np.array([[[0, 51, 128, 255]]], dtype=np.uint8)
    f = F.to_dtype(a, np.float32, scale=True)
    np.testing.assert_array_equal(f, a.astype(np.float32) * np.float32(1 / 255))
    back = F.to_dtype(f, "uint8", scale=True)
    np.testing.assert_array_equal(back, a)
    np.testing.assert_array_equal(F.to_dtype(a, np.int16, scale=True), a.astype(np.int16) << 7)
    np.testing.assert_array_equal(F.to_dtype(a, np.float64), a.astype(np.float64))
    assert F.to_dtype(a, np.uint8) is a  # same dtype: the input itself


def test_as_tensor_is_zero_copy_both_ways():
    a = random_array((3, 8, 8), np.float32)
    t = sv.as_tensor(a)
    assert t.data_ptr == a.__array_interface__["data"][0]
    assert t.shape == a.shape and t.dtype == sv.dtype.float32 and t.device == "cpu"
    back = np.from_dlpack(t)
    assert back.__array_interface__["data"][0] == t.data_ptr
    back[0, 0, 0] = 42.0
    assert a[0, 0, 0] == 42.0
    # A streamvision.Tensor in gives a streamvision.Tensor out.
    flipped = F.horizontal_flip(t)
    assert isinstance(flipped, sv.Tensor)
    np.testing.assert_array_equal(np.from_dlpack(flipped), np.flip(a, -1))


def test_imported_tensor_keeps_its_producer_alive():
    t = sv.as_tensor(np.arange(12, dtype=np.int32).reshape(3, 4))
    import gc

    gc.collect()
    np.testing.assert_array_equal(np.from_dlpack(t), np.arange(12).reshape(3, 4))


def test_buffer_protocol_input():
    import array

    buf = array.array("f", [0.0, 0.5, 1.0, 0.25])
    t = sv.as_tensor(buf)
    assert t.shape == (4,) and t.dtype == sv.dtype.float32
    np.testing.assert_array_equal(np.from_dlpack(F.horizontal_flip(t)), [0.25, 1.0, 0.5, 0.0])


@pytest.mark.parametrize("bad", ["image", [1, 2, 3], {"a": 1}, None, 3.5, object()])
def test_non_tensors_raise_type_error_naming_the_type(bad):
    with pytest.raises(TypeError, match=type(bad).__name__):
        F.horizontal_flip(bad)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="complex64"):
        F.horizontal_flip(np.zeros((2, 3), np.complex64))
    with pytest.raises(ValueError, match="at least 2 dims"):
        F.vertical_flip(np.zeros(5, np.uint8))
    with pytest.raises(TypeError, match="float tensor"):
        F.normalize(np.zeros((3, 2, 2), np.uint8), [0.5], [0.5])
    with pytest.raises(ValueError, match="std"):
        F.normalize(np.zeros((3, 2, 2), np.float32), [0.5], [0.0])
    with pytest.raises(RuntimeError, match="cannot be performed safely"):
        F.to_dtype(np.zeros((3, 2, 2), np.float32), np.int32, scale=True)
    with pytest.raises(TypeError, match="dtype"):
        F.to_dtype(np.zeros((3, 2, 2), np.float32), "complex128")
    with pytest.raises(ValueError, match="non-negative strides"):
        F.horizontal_flip(np.zeros((3, 4), np.uint8)[:, ::-1])
    ro = np.zeros((3, 2, 2), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        F.normalize(ro, [0.5], [0.5], inplace=True)


def test_streams_without_gpu():
    # In a child process that sees no GPU (CUDA_VISIBLE_DEVICES=""), so it runs on GPU machines too.
    code = (
        "import numpy as np, streamvision as sv\n"
        "import streamvision.transforms.v2.functional as F\n"
        "assert not sv.cuda_is_available()\n"
        "try:\n"
        "    sv.Stream()\n"
        "except RuntimeError as e:\n"
        "    print('Stream() raised:', e)\n"
        "assert sv.get_stream_policy() == 'framework'\n"
        "try:\n"
        "    sv.set_stream_policy('mine')\n"
        "except ValueError as e:\n"
        "    print('policy raised:', e)\n"
        "print(F.vertical_flip(np.arange(6, dtype=np.uint8).reshape(2, 3)).tolist())\n"
    )
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Stream() raised:" in out.stdout
    assert "policy raised:" in out.stdout and "'framework' or 'library'" in out.stdout
    assert "[[3, 4, 5], [0, 1, 2]]" in out.stdout


def test_import_works_without_torch():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import numpy as np, streamvision as sv\n"
        "import streamvision.transforms.v2.functional as F\n"
        "print(F.horizontal_flip(np.arange(6, dtype=np.uint8).reshape(2, 3)).tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[[2, 1, 0], [5, 4, 3]]"


def test_dtype_conversions():
    assert sv.as_dtype("float32") == sv.dtype.float32
    assert sv.as_dtype(np.uint8) == sv.dtype.uint8
    assert sv.as_dtype(np.dtype("int16")) == sv.dtype.int16
    with pytest.raises(TypeError):
        sv.as_dtype("complex64")
