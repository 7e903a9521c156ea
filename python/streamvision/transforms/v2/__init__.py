"""torchvision.transforms.v2's transform classes and functional ops, on streamvision's kernels."""

from . import functional
from ._interpolation import InterpolationMode
from ._transforms import *  # noqa: F401,F403
from ._transforms import __all__ as _transform_names

__all__ = ["functional", "InterpolationMode", *_transform_names]
