"""PyTorch helpers.

``shared_stream`` is the decorator form of stream inheritance for user code (the torchvision
proposal's ``_cvcuda_shared_stream``): while the decorated function runs, streamvision's current
stream is PyTorch's current stream, whatever the stream policy.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional, TypeVar, Union

import torch

from ._C import Stream, as_stream

__all__ = ["shared_stream", "current_stream"]

_F = TypeVar("_F", bound=Callable[..., Any])


def current_stream(device: Optional[Union[torch.device, int, str]] = None) -> Stream:
    """``torch.cuda.current_stream(device)`` as a :class:`streamvision.Stream` (borrowed, not owned).

    Args:
        device: the CUDA device (None: torch's current device).

    Returns:
        The stream; ``with`` it, streamvision ops run on it.
    """
    return as_stream(torch.cuda.current_stream(device))


def shared_stream(fn: _F) -> _F:
    """Decorator: runs ``fn`` with streamvision's current stream set to ``torch.cuda.current_stream()``,
    whatever the stream policy (``set_stream_policy("library")`` included). Without CUDA, ``fn`` runs as it is.

    Args:
        fn: the function to decorate.

    Returns:
        The decorated function (same signature).
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not torch.cuda.is_available():
            return fn(*args, **kwargs)
        with current_stream():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
