"""torchvision.transforms-compatible transforms; the API lives in :mod:`streamvision.transforms.v2`."""

from . import v2

__all__ = ["v2"]
