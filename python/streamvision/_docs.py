"""The paragraphs every functional's docstring shares, written once.

``op_doc(...)`` appends the "Supported dtypes and devices", "Stream" and (where there is one)
"Differences from torchvision" sections to a function's own docstring (its summary, Args,
Returns). The section names are Napoleon custom sections (docs/conf.py).
"""

from __future__ import annotations

import inspect
from typing import Callable, Optional, TypeVar

_F = TypeVar("_F", bound=Callable[..., object])

# Each op family's dtypes: the registry's lists (src/core/dtype_dispatch.hpp), the same on both
# engines; a dtype outside its family's list raises streamvision.UnsupportedDTypeError.
_FLOAT = "float16, bfloat16, float32, float64"
DTYPES = {
    "all": "all dtypes (bool, uint8, int8, uint16, int16, int32, int64, " + _FLOAT + ")",
    "color": "uint8, uint16, " + _FLOAT,
    "levels": "uint8, uint16, int8, int16, int32, int64, " + _FLOAT,
    "geometry": "uint8, uint16, " + _FLOAT,
    "noise": "uint8, " + _FLOAT,
    "float": _FLOAT,
}

_DEVICES = ("{dtypes}; on the CPU and on CUDA devices. Images are ``[..., C, H, W]`` with any number "
            "of leading dims and any strides (channels_last inputs are read without a layout copy). "
            "A dtype outside this list raises :class:`streamvision.UnsupportedDTypeError` (a ``TypeError``).")

STREAM = ("Runs on the caller's current CUDA stream: ``stream=`` if given (keyword-only; a "
          "``streamvision.Stream``, ``torch.cuda.Stream`` or handle), else the innermost "
          "``with streamvision.Stream(...)``, else, for torch tensors, ``torch.cuda.current_stream()`` "
          "(stream policy \"framework\", the default), else streamvision's current stream. The call does not "
          "synchronize with the host (once a process's first launches have loaded the kernels), so it can be "
          "captured in a CUDA graph. torch outputs come from PyTorch's caching allocator when the op runs on "
          "torch's current stream, else from streamvision's stream-ordered allocator on the op's stream. CPU "
          "inputs are processed on the calling thread (and the library's worker threads) before the call "
          "returns.")


def _section(title: str, text: str) -> str:
    return f"{title}:\n    {text}"


def op_doc(dtypes: Optional[str], *, differs: Optional[str] = None, stream: bool = True,
           extra: Optional[str] = None) -> Callable[[_F], _F]:
    """Decorator: appends the shared sections to the decorated function's docstring.

    Args:
        dtypes: a key of ``DTYPES`` or a sentence of its own (None: no dtype section).
        differs: the "Differences from torchvision" text, if any.
        stream: whether to append the standard "Stream" section.
        extra: a sentence added to the dtype section (e.g. how tv_tensors are treated).
    """

    def decorate(fn: _F) -> _F:
        if fn.__doc__ is None:  # python -OO strips docstrings
            return fn
        parts = [inspect.cleandoc(fn.__doc__)]
        if dtypes is not None:
            text = _DEVICES.format(dtypes=DTYPES.get(dtypes, dtypes))
            parts.append(_section("Supported dtypes and devices", text + (" " + extra if extra else "")))
        if stream:
            parts.append(_section("Stream", STREAM))
        if differs:
            parts.append(_section("Differences from torchvision", differs))
        fn.__doc__ = "\n\n".join(parts)
        return fn

    return decorate
