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


_probe = {}


def gpu_decoder_available(device="cuda"):
    """Whether ``streamvision.io.decode_jpeg(..., device=device)`` can decode on the GPU here: a
    CUDA device, a build with the nvJPEG decoder and a loadable libnvjpeg.so.13. Answered by
    decoding a 1x1 JPEG once per device (which also creates the device's decoder); never raises."""
    key = str(device)
    if key not in _probe:
        try:
            from . import _C

            if not (_C.built_with_cuda() and _C.cuda_device_count() > 0):
                _probe[key] = False
            else:
                import numpy

                tiny = _C.encode_jpeg(numpy.zeros((1, 1, 1), dtype=numpy.uint8), 75)
                images, _ = _C.decode_jpeg_batch([tiny], 0, False, key, "raise")
                _probe[key] = images[0] is not None
        except Exception:  # noqa: BLE001 - any failure means "not here"
            _probe[key] = False
    return _probe[key]
