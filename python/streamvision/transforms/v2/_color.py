"""Photometric transforms that draw several decisions per call (torchvision's
RandomPhotometricDistort, RandomChannelPermutation). They are kept apart from _transforms.py's
single-op classes because their value is in the draw order: every coin and factor is drawn in
torchvision's order so that a seed gives the same distortion. Boxes, masks and keypoints pass
through, as in torchvision."""

from __future__ import annotations

from . import functional as F
from ._transforms import Transform, _coin, _dims, _randperm, _uniform
from typing import Tuple

__all__ = ["RandomChannelPermutation", "RandomPhotometricDistort"]


class RandomChannelPermutation(Transform):
    """Permutes the channels of images randomly. Photometric: changes Images and Videos (and the plain image);
    masks, boxes and keypoints pass through.
    """

    _passes_through_tv_tensors = True

    def make_params(self, images):
        return dict(permutation=_randperm(_dims(images[0])[0]))

    def transform(self, inpt, params):
        return F.permute_channels(inpt, params["permutation"])


class RandomPhotometricDistort(Transform):
    """SSD's photometric distortion: brightness, contrast (before or after saturation and hue), saturation, hue and
    a channel permutation, each applied with probability ``p``. Photometric: changes Images and Videos (and the
    plain image); masks, boxes and keypoints pass through.

    Args:
        brightness: the factor's ``(min, max)``.
        contrast: the factor's ``(min, max)``.
        saturation: the factor's ``(min, max)``.
        hue: the factor's ``(min, max)``.
        p: the probability of each distortion.
    """

    _passes_through_tv_tensors = True

    def __init__(self, brightness: Tuple[float, float] = (0.875, 1.125), contrast: Tuple[float, float] = (0.5, 1.5),
                 saturation: Tuple[float, float] = (0.5, 1.5), hue: Tuple[float, float] = (-0.05, 0.05),
                 p: float = 0.5) -> None:
        self.brightness, self.contrast, self.saturation, self.hue, self.p = brightness, contrast, saturation, hue, p

    def make_params(self, images):
        channels = _dims(images[0])[0]
        params = {}
        for key, (lo, hi) in (("brightness", self.brightness), ("contrast", self.contrast),
                              ("saturation", self.saturation), ("hue", self.hue)):
            params[key] = _uniform(lo, hi) if _coin(self.p) else None
        params["contrast_before"] = _coin(0.5)
        params["permutation"] = _randperm(channels) if _coin(self.p) else None
        return params

    def transform(self, inpt, params):
        contrast = params["contrast"]
        if params["brightness"] is not None:
            inpt = F.adjust_brightness(inpt, params["brightness"])
        if contrast is not None and params["contrast_before"]:
            inpt = F.adjust_contrast(inpt, contrast)
        if params["saturation"] is not None:
            inpt = F.adjust_saturation(inpt, params["saturation"])
        if params["hue"] is not None:
            inpt = F.adjust_hue(inpt, params["hue"])
        if contrast is not None and not params["contrast_before"]:
            inpt = F.adjust_contrast(inpt, contrast)
        if params["permutation"] is not None:
            inpt = F.permute_channels(inpt, params["permutation"])
        return inpt
