"""Unpickling of streamvision.Tensor. Tensor.__reduce__ (python/src/tensor.cpp) names this
function: pickle stores Python functions by module and name, which compiled nanobind functions
do not support."""

from . import _C


def rebuild_tensor(dtype, shape, strides, data):
    """A CPU streamvision.Tensor with these dtype, shape, dense strides and bytes."""
    return _C._tensor_from_pickle(dtype, shape, strides, data)
