"""Masks through the image kernels, by torchvision 0.26's mask rules: a mask [..., H, W] is an
image [..., C, H, W] (a [H, W] mask gets a channel for the call), resampled with NEAREST whatever
interpolation was asked for (labels are never blended), and a pad fill must be one number.

Integer and bool masks that a sampling kernel has no dtype for (int8-int64, bool) go through
float32 and back (rounded), exactly as torchvision runs them through grid_sample/interpolate; the
copy kernels (flip, crop, pad) move every dtype's bits as they are.
"""

import torch

from .._interpolation import InterpolationMode
from streamvision._C import UnsupportedDTypeError

NEAREST = InterpolationMode.NEAREST


def apply(mask, kernel):
    """kernel(x) on the mask as an image [..., C, H, W]; the result has the mask's dims and dtype."""
    squeeze = mask.ndim < 3
    x = mask.unsqueeze(0) if squeeze else mask
    try:
        out = kernel(x)
    except UnsupportedDTypeError:
        out = kernel(x.to(torch.float32))
        if not mask.dtype.is_floating_point:
            out = out.round_()
        out = out.to(mask.dtype)
    return out.squeeze(0) if squeeze else out


def pad_fill(fill):
    """A mask's pad fill: one number (None means 0)."""
    if fill is None:
        return 0
    if isinstance(fill, (tuple, list)):
        raise ValueError(f"pad: argument 'fill': expected one number for a Mask, got {fill!r} "
                         "(Non-scalar fill value is not supported)")
    return fill
