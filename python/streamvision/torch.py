"""PyTorch helpers.

``shared_stream`` is the decorator form of stream inheritance for user code (the torchvision
proposal's ``_cvcuda_shared_stream``): while the decorated function runs, streamvision's current
stream is PyTorch's current stream, whatever the stream policy.
"""

import functools

import torch

from ._C import Stream, as_stream

__all__ = ["shared_stream", "current_stream"]


def current_stream(device=None) -> Stream:
    """torch.cuda.current_stream(device) as a streamvision.Stream (borrowed)."""
    return as_stream(torch.cuda.current_stream(device))


def shared_stream(fn):
    """Runs ``fn`` with streamvision's current stream set to torch.cuda.current_stream()."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not torch.cuda.is_available():
            return fn(*args, **kwargs)
        with current_stream():
            return fn(*args, **kwargs)

    return wrapper
