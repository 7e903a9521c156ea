"""Batch-level mixing (torchvision's MixUp and CutMix): a batch of images and its labels are mixed
with the batch rolled by one. There is no image kernel to run here, only a blend or a box copy
between two images of a batch and the label arithmetic, so both are torch ops on the batch's
device (the classes need torch). What is kept from torchvision is everything a training script
depends on: the labels getter, the argument checks and their messages, and the random draws
(the Beta-distributed lambda, CutMix's box) in the same order."""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional, Union

from . import _sample
from ._transforms import (Transform, _is_array, _is_pil, _is_pure_torch, _leaves, _map_selected, _randint,
                          _require_torch, _selected, _tv_tensors)

__all__ = ["MixUp", "CutMix"]


def _parse_labels_getter(labels_getter, who):
    if labels_getter == "default":
        return functools.partial(_sample.default_labels, who=who)  # picklable
    if callable(labels_getter):
        return labels_getter
    if labels_getter is None:
        return lambda _: None
    raise ValueError(f"labels_getter should either be 'default', a callable, or None, but got {labels_getter}.")


class _MixBase(Transform):
    def __init__(self, *, alpha: float = 1.0, num_classes: Optional[int] = None,
                 labels_getter: Union[str, Callable[[Any], Any], None] = "default") -> None:
        torch = _require_torch(type(self).__name__)
        self.alpha = float(alpha)
        self._dist = torch.distributions.Beta(torch.tensor([alpha]), torch.tensor([alpha]))  # checks alpha > 0
        self.num_classes = num_classes
        self._labels_getter = _parse_labels_getter(labels_getter, type(self).__name__)

    def _lam(self):
        return float(self._dist.sample(()))

    def forward(self, *inputs):
        torch = _require_torch(type(self).__name__)
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves = _leaves(sample, [])
        tv = _tv_tensors()
        refused = tuple(getattr(tv, n) for n in ("BoundingBoxes", "Mask", "KeyPoints") if hasattr(tv, n)) if tv else ()
        if any(_is_pil(x) or isinstance(x, refused) for x in leaves):
            raise ValueError(f"{type(self).__name__}() does not support PIL images, bounding boxes, keypoints and "
                             "masks.")

        labels = self._labels_getter(sample)
        if not isinstance(labels, torch.Tensor):
            raise ValueError(f"The labels must be a tensor, but got {type(labels)} instead.")
        if labels.ndim not in (1, 2):
            raise ValueError("labels should be index based with shape (batch_size,) or probability based with shape "
                             f"(batch_size, num_classes), but got a tensor of shape {labels.shape} instead.")
        if labels.ndim == 2 and self.num_classes is not None and labels.shape[-1] != self.num_classes:
            raise ValueError("When passing 2D labels, the number of elements in last dimension must match "
                             f"num_classes: {labels.shape[-1]} != {self.num_classes}. "
                             "You can Leave num_classes to None.")
        if labels.ndim == 1 and self.num_classes is None:
            raise ValueError("num_classes must be passed if the labels are index-based (1D)")

        flags = _selected(leaves, _is_array)
        images = [x for x, f in zip(leaves, flags) if f and x is not labels]
        params = dict(labels=labels, batch_size=labels.shape[0], **self.make_params(images))
        flags = [f or x is labels for x, f in zip(leaves, flags)]  # the labels are mixed wherever they are
        return _map_selected(sample, flags, lambda x: self._mix(x, params, torch, tv))

    def _mix(self, inpt, params, torch, tv):
        if inpt is params["labels"]:
            return self._mix_labels(inpt, params["label_lam"], torch)
        if tv is not None and isinstance(inpt, tv.TVTensor) and not isinstance(inpt, (tv.Image, tv.Video)):
            return inpt
        if not isinstance(inpt, torch.Tensor):
            raise TypeError(f"{type(self).__name__}() mixes torch tensors, got {type(inpt).__name__} "
                            "(convert it with torch.from_numpy or torch.from_dlpack)")
        video = tv is not None and isinstance(inpt, tv.Video)
        ndim = 5 if video else 4
        if inpt.ndim != ndim:
            raise ValueError(f"Expected a batched input with {ndim} dims, but got {inpt.ndim} dimensions instead.")
        if inpt.shape[0] != params["batch_size"]:
            raise ValueError("The batch size of the image or video does not match the batch size of the labels: "
                             f"{inpt.shape[0]} != {params['batch_size']}.")
        out = self.transform(inpt.as_subclass(torch.Tensor) if tv is not None else inpt, params)
        return tv.wrap(out, like=inpt) if tv is not None and isinstance(inpt, tv.TVTensor) else out

    def _mix_labels(self, labels, lam, torch):
        if labels.ndim == 1:
            labels = torch.nn.functional.one_hot(labels, num_classes=self.num_classes)
        if not labels.dtype.is_floating_point:
            labels = labels.float()
        return labels.roll(1, 0).mul_(1.0 - lam).add_(labels.mul(lam))


class MixUp(_MixBase):
    """MixUp on a batch: each image becomes ``lam * itself + (1 - lam) * its predecessor in the batch`` (the one-hot
    labels alike), ``lam ~ Beta(alpha, alpha)``. Float images only, as in torchvision. Needs torch.

    Args:
        alpha: the Beta distribution's parameter (keyword-only).
        num_classes: the number of classes for one-hot labels (None: labels already one-hot).
        labels_getter: ``"default"`` (a ``"labels"`` key or the second item of the sample), a callable returning the
            labels, or None.
    """

    def make_params(self, images):
        lam = self._lam()
        return dict(lam=lam, label_lam=lam)

    def transform(self, inpt, params):
        lam = params["lam"]
        return inpt.roll(1, 0).mul_(1.0 - lam).add_(inpt.mul(lam))


class CutMix(_MixBase):
    """CutMix on a batch: a box of each image is replaced by the same box of its predecessor in the batch; the
    labels are mixed by the box's share of the image. Needs torch.

    Args:
        alpha: the Beta distribution's parameter of the box's area (keyword-only).
        num_classes: as :class:`MixUp`'s.
        labels_getter: as :class:`MixUp`'s.
    """

    def make_params(self, images):
        lam = self._lam()
        if not images:
            raise TypeError("No image, video, mask, bounding box of keypoint was found in the sample")
        height, width = images[0].shape[-2:]
        cx, cy = _randint(0, width), _randint(0, height)
        r = 0.5 * math.sqrt(1.0 - lam)
        half_w, half_h = int(r * width), int(r * height)
        x1, y1 = max(cx - half_w, 0), max(cy - half_h, 0)
        x2, y2 = min(cx + half_w, width), min(cy + half_h, height)
        return dict(box=(x1, y1, x2, y2), label_lam=float(1.0 - (x2 - x1) * (y2 - y1) / (width * height)))

    def transform(self, inpt, params):
        x1, y1, x2, y2 = params["box"]
        out = inpt.clone()
        out[..., y1:y2, x1:x2] = inpt.roll(1, 0)[..., y1:y2, x1:x2]
        return out
