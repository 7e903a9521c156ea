"""Shared pytest fixtures and markers. Tests that need PyTorch, torchvision, CuPy or a GPU skip
with a visible reason where those are missing (CI); scripts/gpu-check runs them all."""

import importlib.util

import pytest

HAVE_TORCH = importlib.util.find_spec("torch") is not None
HAVE_TORCHVISION = importlib.util.find_spec("torchvision") is not None
HAVE_CUPY = importlib.util.find_spec("cupy") is not None

if HAVE_TORCH:
    import torch

    HAVE_CUDA = torch.cuda.is_available()
    GPU_COUNT = torch.cuda.device_count() if HAVE_CUDA else 0
else:
    HAVE_CUDA = False
    GPU_COUNT = 0

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed")
needs_torchvision = pytest.mark.skipif(not (HAVE_TORCH and HAVE_TORCHVISION), reason="torchvision is not installed")
needs_cuda = pytest.mark.skipif(not HAVE_CUDA, reason="needs PyTorch with a CUDA GPU")
needs_cupy = pytest.mark.skipif(not (HAVE_CUPY and HAVE_CUDA), reason="needs CuPy and a CUDA GPU")
needs_two_gpus = pytest.mark.skipif(GPU_COUNT < 2, reason="needs two CUDA GPUs")


@pytest.fixture(autouse=True)
def _restore_stream_policy():
    import streamvision as sv

    yield
    sv.set_stream_policy("framework")

