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

from streamvision import _C
from streamvision._optional_torch import torch

from ._forwarding import Parameters, make

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
    traces. Generated with explicit parameters (_forwarding); keyword-only arguments (``stream=``)
    reach the _C function only when given."""
    params = Parameters(traced)
    body = ["    if _is_compiling():", f"        return _traced({params.call()})"]
    if params.keywords:
        body += [f"    if {' and '.join(f'{k} is None' for k in params.keywords)}:",
                 f"        return _eager({params.call(keywords=False)})"]
    body += [f"    return _eager({params.call()})"]
    kernel = make(eager.__name__, params, body,
                  dict(_is_compiling=torch.compiler.is_compiling, _eager=eager, _traced=traced))
    kernel.__doc__ = eager.__doc__
    return kernel


if torch is None:
    globals().update({name: getattr(_C, name) for name in __all__})
else:
    from . import _torch_ops

    globals().update({name: _eager_or_traced(getattr(_C, name), getattr(_torch_ops, name)) for name in __all__})
