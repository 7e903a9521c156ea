"""Shared pytest fixtures and markers. Tests that need PyTorch, torchvision, CuPy or a GPU skip
with a visible reason where those are missing (CI); scripts/gpu-check runs them all.

SV_SYNC_DEBUG=1 (scripts/gpu-check --sync-debug): every call into streamvision's compiled module,
every public functional, every transform's forward (and the per-sample sample_params/apply) and
streamvision.io's functions run under torch.cuda.set_sync_debug_mode("error"), so a torch op in
streamvision's Python layer that makes the host wait for the GPU (.item(), .cpu(), nonzero, a
boolean mask...) raises. The tests' own checks (comparisons, .cpu()) run outside it. Waits inside
the C++ library are not torch's to see: those are checked by the tests that queue a long sleep on
the stream and assert the op returned while it was still running (test_torch_cuda_streams.py,
test_io_cuda.py). Tests marked `allows_host_sync` (and code inside host_sync_allowed()) hand the
op a CUDA tensor where a host value is needed (a list argument as a CUDA tensor), or run
transforms whose choices depend on the data as torchvision's do (RandomIoUCrop,
SanitizeBoundingBoxes): there a wait is inherent, and they run in "warn" mode."""

import contextlib
import functools
import importlib.util
import os
import sys
import threading

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
needs_two_gpus = pytest.mark.skipif(GPU_COUNT < 2, reason=f"needs 2 CUDA devices (found {GPU_COUNT})")
# scripts/gpu-check's compute-sanitizer runs turn torch's caching allocator off
# (PYTORCH_NO_CUDA_MEMORY_CACHING=1, so that every tensor is its own allocation and an access past
# one is caught) and set STREAMVISION_UNDER_SANITIZER=1. Two kinds of check cannot hold there:
#  * those that need the caching allocator: a CUDA graph's private memory pool is allocated while
#    the stream captures, which without the cache is a cudaMalloc during capture, refused
#    (cudaErrorStreamCaptureUnsupported); torch.cuda.memory_allocated() and the allocator's
#    snapshot stay empty;
#  * that a call returned while its stream was still busy: the sanitizer runs API calls and kernels
#    one after another with the host.
NO_CACHING_ALLOCATOR = os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING") == "1"
UNDER_SANITIZER = os.environ.get("STREAMVISION_UNDER_SANITIZER") == "1"
needs_caching_allocator = pytest.mark.skipif(
    NO_CACHING_ALLOCATOR,
    reason="needs torch's caching allocator (PYTORCH_NO_CUDA_MEMORY_CACHING=1 is set): graph capture, memory accounting",
)


SYNC_DEBUG = os.environ.get("SV_SYNC_DEBUG") == "1" and HAVE_CUDA
_sync_mode = "error"


def _no_host_sync(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if torch.compiler.is_compiling():  # traced: nothing runs now, and Dynamo cannot trace the mode switch
            return fn(*args, **kwargs)
        # torch's sync debug mode is one switch for the whole process: set from a worker thread, it
        # would also judge the main thread's own checks (and the reverse). Only the main thread's
        # calls are guarded; the threaded tests run the same ops as the single-threaded ones.
        if threading.current_thread() is not threading.main_thread():
            return fn(*args, **kwargs)
        previous = torch.cuda.get_sync_debug_mode()
        torch.cuda.set_sync_debug_mode(_sync_mode)
        try:
            return fn(*args, **kwargs)
        finally:
            torch.cuda.set_sync_debug_mode(previous)

    if hasattr(fn, "__nb_signature__"):  # the signature tests read a compiled function's signature from it
        call.__nb_signature__ = fn.__nb_signature__
    return call


def _guard_streamvision_calls():
    """Wraps every function of streamvision._C wherever streamvision's modules bound it, the public
    functions of the functional and io modules, and the transforms' entry points."""
    import inspect

    import streamvision  # noqa: F401
    import streamvision.io
    import streamvision.transforms.v2 as T
    import streamvision.transforms.v2.functional as F
    from streamvision import _C

    originals = {id(f): f for f in vars(_C).values() if callable(f) and not isinstance(f, type)}
    for module in (F, streamvision.io):
        for attr, value in vars(module).items():
            if inspect.isfunction(value) and not attr.startswith("_") and value.__module__.startswith("streamvision"):
                originals[id(value)] = value
    guarded = {i: _no_host_sync(f) for i, f in originals.items()}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "streamvision" or name.startswith("streamvision.")):
            continue
        for attr, value in list(vars(module).items()):
            if id(value) in guarded and value is originals[id(value)]:
                setattr(module, attr, guarded[id(value)])
    for cls in vars(T).values():
        if not (isinstance(cls, type) and cls.__module__.startswith("streamvision")):
            continue
        for method in ("forward", "sample_params", "apply"):
            if method in vars(cls) and inspect.isfunction(vars(cls)[method]):
                setattr(cls, method, _no_host_sync(vars(cls)[method]))


if SYNC_DEBUG:
    _guard_streamvision_calls()


@contextlib.contextmanager
def host_sync_allowed():
    """Within a test, runs streamvision calls in "warn" mode (a value the caller handed over as a
    CUDA tensor that the op must read on the host); elsewhere a no-op."""
    global _sync_mode
    previous, _sync_mode = _sync_mode, "warn"
    try:
        yield
    finally:
        _sync_mode = previous


def pytest_configure(config):
    config.addinivalue_line("markers", "allows_host_sync: the test hands an op a value the host must read "
                            "from the GPU (SV_SYNC_DEBUG runs it in warn mode)")


@pytest.fixture(autouse=True)
def _sync_debug_mode(request):
    global _sync_mode
    _sync_mode = "warn" if request.node.get_closest_marker("allows_host_sync") else "error"
    yield


@pytest.fixture(autouse=True)
def _restore_stream_policy():
    import streamvision as sv

    yield
    sv.set_stream_policy("framework")

