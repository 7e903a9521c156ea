"""Points the C++ nvJPEG loader at the PyPI wheel's library, without loading it.

The GPU JPEG decoder dlopens libnvjpeg.so.13 at its first use (src/io/nvjpeg_library.hpp). A
pip-installed ``nvidia-nvjpeg`` (CUDA 13) puts it in ``site-packages/nvidia/cu13/lib``, which the
dynamic loader does not search; this sets ``SV_NVJPEG_LIBRARY`` to that file (unless the user set
it) so that the loader finds it. Only a path lookup: nothing is loaded at import.
"""

import os
import sys

_ENV = "SV_NVJPEG_LIBRARY"


def wheel_library():
    """The path of libnvjpeg.so.13 from the nvidia-nvjpeg wheel on sys.path, or None."""
    for entry in sys.path:
        candidate = os.path.join(entry or ".", "nvidia", "cu13", "lib", "libnvjpeg.so.13")
        if os.path.isfile(candidate):
            return os.path.abspath(candidate)
    return None


def point_loader_at_wheel():
    if os.environ.get(_ENV):
        return
    path = wheel_library()
    if path is not None:
        os.environ[_ENV] = path  # os.environ writes through to the C environment (putenv)
