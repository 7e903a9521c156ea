"""torchvision.transforms.v2's transform classes and functional ops, on streamvision's kernels."""

from . import functional
from ._interpolation import InterpolationMode
from ._transforms import *  # noqa: F401,F403
from ._transforms import __all__ as _transform_names
from ._detection import *  # noqa: F401,F403
from ._detection import __all__ as _detection_names

__all__ = ["functional", "InterpolationMode", *_transform_names, *_detection_names]
