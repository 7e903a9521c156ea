"""torchvision.transforms.v2's transform classes and functional ops, on streamvision's kernels."""

from . import functional
from ._interpolation import InterpolationMode
from ._transforms import *  # noqa: F401,F403
from ._transforms import __all__ as _transform_names
from ._geometry import *  # noqa: F401,F403
from ._geometry import __all__ as _geometry_names
from ._color import *  # noqa: F401,F403
from ._color import __all__ as _color_names
from ._auto_augment import *  # noqa: F401,F403
from ._auto_augment import __all__ as _auto_augment_names
from ._augment import *  # noqa: F401,F403
from ._augment import __all__ as _augment_names
from ._misc import *  # noqa: F401,F403
from ._misc import __all__ as _misc_names
from ._detection import *  # noqa: F401,F403
from ._detection import __all__ as _detection_names
from ._per_sample import *  # noqa: F401,F403
from ._per_sample import __all__ as _per_sample_names

__all__ = ["functional", "InterpolationMode", *_transform_names, *_geometry_names, *_color_names,
           *_auto_augment_names, *_augment_names, *_misc_names, *_detection_names, *_per_sample_names]
