"""streamvision: torchvision's image transforms in C++ and CUDA, always on the caller's stream.

Framework tensors in, the same framework's tensors out: torch in, torch out (on
``torch.cuda.current_stream()``); numpy in, numpy out (CPU); ``streamvision.Tensor`` in and out.
"""

from . import _nvjpeg

_nvjpeg.point_loader_at_wheel()  # before the first GPU decode reads the variable

from . import _C  # noqa: E402
from ._C import (  # noqa: E402
    Event,
    Stream,
    Tensor,
    as_dtype,
    as_stream,
    as_tensor,
    built_with_cuda,
    default_generator,
    Generator,
    manual_seed,
    cuda_device_count,
    cuda_is_available,
    dtype,
    empty_cache,
    get_num_threads,
    get_stream_policy,
    last_launch_stream,
    memory_allocated,
    memory_reserved,
    set_num_threads,
    set_stream_policy,
    UnsupportedDTypeError,
)
from . import transforms

__version__: str = _C.__version__  # the version of the compiled library (the file VERSION)

__all__ = [
    "Event",
    "Stream",
    "Tensor",
    "as_dtype",
    "as_stream",
    "as_tensor",
    "built_with_cuda",
    "default_generator",
    "Generator",
    "manual_seed",
    "cmake_dir",
    "cuda_device_count",
    "cuda_is_available",
    "dtype",
    "empty_cache",
    "get_num_threads",
    "get_stream_policy",
    "last_launch_stream",
    "memory_allocated",
    "memory_reserved",
    "set_num_threads",
    "set_stream_policy",
    "transforms",
    "UnsupportedDTypeError",
]


def cmake_dir() -> str:
    """The folder holding streamvisionConfig.cmake, for ``find_package(streamvision)``.

    Returns:
        The path; give it to CMake as ``streamvision_DIR`` (``python -m streamvision --cmake-dir`` prints it).
    """
    import os

    return os.path.join(os.path.dirname(__file__), "lib", "cmake", "streamvision")
