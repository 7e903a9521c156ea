from . import v2

__all__ = ["v2"]
