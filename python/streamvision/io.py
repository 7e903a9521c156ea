"""Reading, decoding, encoding and writing images: torchvision.io's functions and results.

``decode_jpeg``/``decode_png``/``decode_image`` decode on the CPU with libjpeg-turbo and libpng
using torchvision's settings, so results equal ``torchvision.io``'s CPU decode bit for bit (one
difference: a palette PNG read with ``ImageReadMode.UNCHANGED`` decodes to RGB/RGBA, where
torchvision returns the palette indices). ``device="cuda"`` decodes JPEGs with nvJPEG on torch's
current CUDA stream when the build has it. Lists decode as one batch (in parallel on the CPU);
``on_error="skip"`` puts ``None`` where an image fails, warns with its index and decodes the
others; ``"raise"`` (the default) raises naming the index.

Results are torch tensors when torch is installed (like torchvision.io), else
``streamvision.Tensor`` objects (numpy inputs give numpy arrays).
"""

from __future__ import annotations

import enum
import os
import warnings
from typing import Any, List, Optional, Union

from . import _C
from ._optional_torch import torch

__all__ = [
    "ImageReadMode",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "encode_jpeg",
    "encode_png",
    "read_file",
    "read_image",
    "write_file",
    "write_jpeg",
    "write_png",
]


class ImageReadMode(enum.Enum):
    """The channels of a decoded image (torchvision.io.ImageReadMode, same names and values)."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4
    RGBA = RGB_ALPHA


def _require_io() -> None:
    if not _C.io_available():
        raise RuntimeError(
            "streamvision.io: this build of streamvision has no image codecs (it was built without libjpeg/libpng; "
            "install libjpeg62-turbo-dev and libpng-dev and rebuild)"
        )


def _mode(mode: Any) -> int:
    if isinstance(mode, str):
        key = mode.upper()
        if key not in ImageReadMode.__members__:
            raise ValueError(f"mode: expected one of {list(ImageReadMode.__members__)}, got {mode!r}")
        return ImageReadMode[key].value
    if isinstance(mode, ImageReadMode):
        return mode.value
    value = getattr(mode, "value", None)  # torchvision.io.ImageReadMode works too
    name = getattr(mode, "name", None)
    if isinstance(name, str) and name.upper() in ImageReadMode.__members__:
        return ImageReadMode[name.upper()].value
    if isinstance(value, int) and 0 <= value <= 4:
        return value
    raise TypeError(f"mode: expected an ImageReadMode or its name, got {mode!r}")


def _device(device: Any) -> str:
    text = str(device)
    if text in ("cpu", "cuda") or text.startswith("cuda:"):
        return text
    raise ValueError(f"device: expected 'cpu', 'cuda' or 'cuda:N', got {device!r}")


def _like(result: Any, like: Any) -> Any:
    """A result as the caller's kind of tensor (torch tensors, which batch decodes of torch inputs
    already return, pass through)."""
    if result is None:
        return None
    if torch is not None and isinstance(result, torch.Tensor):  # made in C++ (batches of torch inputs)
        return result
    if torch is not None and (like is None or isinstance(like, torch.Tensor)):
        return torch.from_dlpack(result)
    module = type(like).__module__.split(".")[0] if like is not None else ""
    if module == "numpy":
        import numpy

        return numpy.from_dlpack(result)
    return result


def _batch(op: str, decode, inputs: List[Any], mode: Any, apply_exif_orientation: bool, device: Any, on_error: str,
           paths: Optional[List[Any]] = None):
    try:
        images, errors = decode(list(inputs), _mode(mode), bool(apply_exif_orientation), _device(device), on_error)
    except RuntimeError as e:
        raise _with_path(e, paths) from None
    for i, message in enumerate(errors):
        if message is not None:
            where = f" ({os.fspath(paths[i])})" if paths is not None and paths[i] is not None else ""
            warnings.warn(f"{message}{where} (skipped)", RuntimeWarning, stacklevel=3)
    like = inputs[0] if inputs else None
    return [_like(image, like) for image in images]


def _with_path(error: Exception, paths: Optional[List[Any]]) -> Exception:
    """The error with the file it is about appended, for inputs given as paths."""
    message = str(error)
    if paths is not None:
        for i, path in enumerate(paths):
            if path is not None and f"image {i} of the batch" in message:
                return type(error)(f"{message} ({os.fspath(path)})")
    return error


def read_file(path: Union[str, os.PathLike]) -> Any:
    """The bytes of the file as a 1-D uint8 tensor."""
    _require_io()
    return _like(_C.read_file(os.fspath(path)), None)


def write_file(filename: Union[str, os.PathLike], data: Any) -> None:
    """Writes a 1-D uint8 tensor of bytes to ``filename``."""
    _require_io()
    _C.write_file(os.fspath(filename), data)


def decode_jpeg(
    input: Any,
    mode: Any = ImageReadMode.UNCHANGED,
    device: Any = "cpu",
    apply_exif_orientation: bool = False,
    *,
    on_error: str = "raise",
) -> Any:
    """Decodes JPEG bytes (a 1-D uint8 tensor, or a list of them) to uint8 [C, H, W] images."""
    _require_io()
    if isinstance(input, (list, tuple)):
        return _batch("decode_jpeg", _C.decode_jpeg_batch, input, mode, apply_exif_orientation, device, on_error)
    return _like(_C.decode_jpeg(input, _mode(mode), bool(apply_exif_orientation), _device(device)), input)


def decode_png(input: Any, mode: Any = ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False) -> Any:
    """Decodes PNG bytes to a [C, H, W] image: uint8, or uint16 for 16-bit PNGs."""
    _require_io()
    return _like(_C.decode_png(input, _mode(mode), bool(apply_exif_orientation)), input)


def decode_image(
    input: Any,
    mode: Any = ImageReadMode.UNCHANGED,
    apply_exif_orientation: bool = False,
    *,
    device: Any = "cpu",
    on_error: str = "raise",
) -> Any:
    """Decodes JPEG or PNG bytes (recognised from the first bytes), a path, or a list of them."""
    _require_io()
    if isinstance(input, (str, os.PathLike)):
        path = input
        try:
            return decode_image(read_file(path), mode, apply_exif_orientation, device=device)
        except RuntimeError as e:
            raise type(e)(f"{e} (file {os.fspath(path)})") from None
    if isinstance(input, (list, tuple)):
        paths = [x if isinstance(x, (str, os.PathLike)) else None for x in input]
        items = [read_file(x) if p is not None else x for x, p in zip(input, paths)]
        return _batch("decode_image", _C.decode_image_batch, items, mode, apply_exif_orientation, device, on_error, paths)
    return _like(_C.decode_image(input, _mode(mode), bool(apply_exif_orientation), _device(device)), input)


def read_image(
    path: Union[str, os.PathLike], mode: Any = ImageReadMode.UNCHANGED, apply_exif_orientation: bool = False
) -> Any:
    """``decode_image(read_file(path), mode, apply_exif_orientation)``; errors name the file."""
    return decode_image(path, mode, apply_exif_orientation)


def encode_jpeg(input: Any, quality: int = 75) -> Any:
    """Encodes a uint8 [C, H, W] CPU image (C = 1 or 3), or a list of them, as JPEG bytes."""
    _require_io()
    if isinstance(input, (list, tuple)):
        return [_like(_C.encode_jpeg(x, int(quality)), x) for x in input]
    return _like(_C.encode_jpeg(input, int(quality)), input)


def encode_png(input: Any, compression_level: int = 6) -> Any:
    """Encodes a uint8 or uint16 [C, H, W] CPU image (C = 1 to 4) as PNG bytes."""
    _require_io()
    return _like(_C.encode_png(input, int(compression_level)), input)


def write_jpeg(input: Any, filename: Union[str, os.PathLike], quality: int = 75) -> None:
    write_file(filename, encode_jpeg(input, quality))


def write_png(input: Any, filename: Union[str, os.PathLike], compression_level: int = 6) -> None:
    write_file(filename, encode_png(input, compression_level))
