"""The image kernels of streamvision._C, in one place: every functional reaches the C++ kernels
through these names, so that this module alone decides how they are called.

Without torch they are the ``_C`` functions themselves. With torch each is a thin wrapper that
calls the ``_C`` function directly, except while torch.compile (or torch.export) traces: then it
calls the function of the same name in ``_torch_ops``, which converts the arguments and calls the
op's ``torch.library`` custom op (``torch.ops.streamvision.*``), so that the trace holds one node
per op instead of breaking at the extension call. The eager cost of the wrapper is one Python
call and one ``torch.compiler.is_compiling()`` check (TorchDynamo folds that check to True while
tracing).
"""

import inspect

from streamvision import _C
from streamvision._optional_torch import torch

__all__ = [
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "adjust_sharpness",
    "affine",
    "autocontrast",
    "center_crop",
    "crop",
    "elastic",
    "equalize",
    "erase",
    "five_crop",
    "gaussian_blur",
    "gaussian_noise",
    "get_dimensions",
    "get_num_channels",
    "get_size",
    "grayscale_to_rgb",
    "horizontal_flip",
    "invert",
    "normalize",
    "pad",
    "permute_channels",
    "perspective",
    "posterize",
    "resize",
    "resized_crop",
    "rgb_to_grayscale",
    "rotate",
    "solarize",
    "ten_crop",
    "to_channels_last",
    "to_contiguous",
    "to_dtype",
    "vertical_flip",
]


def _eager_or_traced(eager, traced):
    """A function with the signature of `traced` (the custom-op adapter, written with the
    functional's signature) that calls `eager` (the _C function), or `traced` while torch.compile
    traces. It is generated with explicit parameters because forwarding through ``*args,
    **kwargs`` costs about twice as much per call; keyword-only arguments (``stream=``) reach the
    _C function only when given. Everything it calls is a closure variable: TorchDynamo resolves
    a function's globals through its module name, which generated functions would share."""
    name = eager.__name__
    params, positional, keywords, defaults = [], [], [], {}
    for p in inspect.signature(traced).parameters.values():
        if p.kind is p.KEYWORD_ONLY and not keywords:
            params.append("*")
        (keywords if p.kind is p.KEYWORD_ONLY else positional).append(p.name)
        if p.default is p.empty:
            params.append(p.name)
        else:
            defaults[f"_default_{p.name}"] = p.default
            params.append(f"{p.name}=_default_{p.name}")
    args = ", ".join(positional)
    all_args = ", ".join(positional + [f"{k}={k}" for k in keywords])
    lines = [f"def _make(_is_compiling, _eager, _traced, {', '.join(defaults)}):",
             f"    def {name}({', '.join(params)}):",
             "        if _is_compiling():",
             f"            return _traced({all_args})"]
    if keywords:
        lines += [f"        if {' and '.join(f'{k} is None' for k in keywords)}:",
                  f"            return _eager({args})"]
    lines += [f"        return _eager({all_args})", f"    return {name}"]
    scope = {"__name__": __name__}
    exec("\n".join(lines), scope)
    kernel = scope["_make"](torch.compiler.is_compiling, eager, traced, **defaults)
    kernel.__doc__ = eager.__doc__
    return kernel


if torch is None:
    globals().update({name: getattr(_C, name) for name in __all__})
else:
    from . import _torch_ops

    globals().update({name: _eager_or_traced(getattr(_C, name), getattr(_torch_ops, name)) for name in __all__})
