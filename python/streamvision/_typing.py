"""The type aliases of streamvision's public signatures, in one place.

They name torch and numpy types only for type checkers (``TYPE_CHECKING``): importing this module
imports neither, so the aliases work in a torch-less install and cost nothing at run time.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Sequence, TypeVar, Union

if TYPE_CHECKING:
    import numpy
    import numpy.typing
    import torch

    from ._C import Stream, Tensor, dtype
    from .transforms.v2._interpolation import InterpolationMode

__all__ = ["DTypeLike", "Fill", "ImageLike", "ImageT", "InterpolationLike", "StreamLike"]

#: An image argument: a torch tensor (torchvision's tv_tensors included), a numpy array or a
#: ``streamvision.Tensor``. Any other DLPack, CUDA Array Interface or buffer-protocol exporter
#: (CuPy, JAX, ...) is accepted at run time too.
ImageLike = Union["torch.Tensor", "numpy.typing.NDArray[Any]", "Tensor"]

#: The image type of a functional's input, which is also the type of its output (torch in, torch
#: out; a tv_tensor keeps its class).
ImageT = TypeVar("ImageT", bound=ImageLike)

#: A stream: ``streamvision.Stream``, ``torch.cuda.Stream`` (or ``ExternalStream``), a raw
#: ``cudaStream_t`` handle as an int; CuPy streams and objects with ``__cuda_stream__`` are
#: accepted at run time too.
StreamLike = Union["Stream", "torch.cuda.Stream", int]

#: An interpolation mode: streamvision's or torchvision's ``InterpolationMode``, the mode's name
#: ("bilinear") or a PIL integer code.
InterpolationLike = Union["InterpolationMode", enum.Enum, str, int]

#: A dtype: ``torch.dtype``, a numpy dtype, ``streamvision.dtype`` or a name ("float32").
DTypeLike = Union["torch.dtype", "numpy.dtype[Any]", "dtype", str]

#: A fill value for the pixels a geometric op creates: one number for every channel, one per
#: channel, or None (zeros).
Fill = Union[int, float, Sequence[int], Sequence[float], None]
