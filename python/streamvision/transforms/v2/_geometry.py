"""The random-resize transforms of detection and segmentation recipes (torchvision's
ScaleJitter, RandomShortestSize, RandomResize). Only the output size is random; the resize itself
is F.resize, so that it runs our kernels and, once the functionals dispatch on tv_tensor types,
moves boxes and masks with the image. Sizes are computed with torchvision's arithmetic (float32
where it computes with a float32 tensor) so that the same seed gives the same size."""

from __future__ import annotations

from . import functional as F
from ._interpolation import InterpolationMode
from ._transforms import Transform, _dims, _rand, _randint, _torch
from ..._typing import InterpolationLike
from typing import Optional, Sequence, Tuple, Union

__all__ = ["ScaleJitter", "RandomShortestSize", "RandomResize"]


class _RandomSize(Transform):
    """Resizes every target to the size make_params draws."""

    def __init__(self, interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True) -> None:
        self.interpolation, self.antialias = interpolation, antialias

    def transform(self, inpt, params):
        return F.resize(inpt, params["size"], interpolation=self.interpolation, antialias=self.antialias)


class ScaleJitter(_RandomSize):
    """Large Scale Jitter: the sample is scaled to fit ``target_size``, times a factor drawn uniformly from
    ``scale_range``. Geometric: moves every Image, Video, Mask, BoundingBoxes and KeyPoints of the sample with the
    same parameters.

    Args:
        target_size: ``(height, width)`` to fit.
        scale_range: the factor's range.
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.resize`).
        antialias: low-pass filter when downscaling.
    """

    def __init__(self, target_size: Tuple[int, int], scale_range: Tuple[float, float] = (0.1, 2.0),
                 interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True) -> None:
        self.target_size, self.scale_range = target_size, scale_range
        super().__init__(interpolation, antialias)

    def make_params(self, images):
        _, height, width = _dims(images[0])
        lo, hi = self.scale_range
        torch = _torch()
        # torchvision scales with a float32 tensor: the same products, rounded the same way.
        scale = lo + (torch.rand(1) if torch is not None else _rand()) * (hi - lo)
        r = min(self.target_size[1] / height, self.target_size[0] / width) * scale
        return dict(size=(int(height * r), int(width * r)))


class RandomShortestSize(_RandomSize):
    """The shorter side becomes one of ``min_size`` (drawn uniformly), the longer side at most ``max_size``.
    Geometric: moves every Image, Video, Mask, BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        min_size: an int or a sequence of candidate sizes.
        max_size: the bound of the longer side (None: none).
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.resize`).
        antialias: low-pass filter when downscaling.
    """

    def __init__(self, min_size: Union[int, Sequence[int]], max_size: Optional[int] = None,
                 interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True) -> None:
        self.min_size = [min_size] if isinstance(min_size, int) else list(min_size)
        self.max_size = max_size
        super().__init__(interpolation, antialias)

    def make_params(self, images):
        _, height, width = _dims(images[0])
        r = self.min_size[_randint(0, len(self.min_size))] / min(height, width)
        if self.max_size is not None:
            r = min(r, self.max_size / max(height, width))
        return dict(size=(int(height * r), int(width * r)))


class RandomResize(_RandomSize):
    """The shorter side becomes a size drawn uniformly from ``[min_size, max_size)``. Geometric: moves every Image,
    Video, Mask, BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        min_size: the smallest size.
        max_size: the bound (excluded, as torchvision draws it).
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.resize`).
        antialias: low-pass filter when downscaling.
    """

    def __init__(self, min_size: int, max_size: int, interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True) -> None:
        self.min_size, self.max_size = min_size, max_size
        super().__init__(interpolation, antialias)

    def make_params(self, images):
        return dict(size=[_randint(self.min_size, self.max_size)])
