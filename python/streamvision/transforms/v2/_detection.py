"""Transforms that exist for detection samples (images with boxes, masks, keypoints, labels):
the box/keypoint bookkeeping ones (ClampBoundingBoxes, ClampKeyPoints, ConvertBoundingBoxFormat,
SanitizeBoundingBoxes) and the SSD-style RandomZoomOut and RandomIoUCrop, with torchvision 0.26's
parameters, random choices (the same draws from torch's generator, so the same crops under the
same torch.manual_seed) and results.

RandomIoUCrop decides on the boxes' values (is a crop good enough?) and SanitizeBoundingBoxes
returns as many boxes as are valid: both read data back to the host, as torchvision's do; the
other transforms here do not.
"""

from __future__ import annotations

import enum
import functools
from typing import Any, Callable, Optional, Sequence, Tuple, Union

from . import _sample
from . import functional as F
from ._transforms import FillArg, Transform, _RandomApplied, _get_fill, _query_size, _rand_n, _setup_fill

__all__ = ["ClampBoundingBoxes", "ClampKeyPoints", "ConvertBoundingBoxFormat", "SanitizeBoundingBoxes",
           "RandomZoomOut", "RandomIoUCrop"]


class ConvertBoundingBoxFormat(Transform):
    """Converts BoundingBoxes to ``format``.

    Args:
        format: a ``BoundingBoxFormat`` or its name.
    """

    _only_tv_tensors = ("BoundingBoxes",)

    def __init__(self, format: Union[enum.Enum, str]) -> None:
        self.format = format

    def transform(self, inpt, params):
        return F.convert_bounding_box_format(inpt, new_format=self.format)


class ClampBoundingBoxes(Transform):
    """Clamps BoundingBoxes to their canvas.

    Args:
        clamping_mode: ``"soft"``, ``"hard"``, None, or ``"auto"``: each box tensor's own mode.
    """

    _only_tv_tensors = ("BoundingBoxes",)

    def __init__(self, clamping_mode: Optional[str] = "auto") -> None:
        self.clamping_mode = clamping_mode

    def transform(self, inpt, params):
        return F.clamp_bounding_boxes(inpt, clamping_mode=self.clamping_mode)


class ClampKeyPoints(Transform):
    """Keypoints held inside their canvas."""

    _only_tv_tensors = ("KeyPoints",)

    def transform(self, inpt, params):
        return F.clamp_keypoints(inpt)


# ---- SanitizeBoundingBoxes ----------------------------------------------------------------------
class SanitizeBoundingBoxes(Transform):
    """Drops boxes smaller than ``min_size`` or ``min_area`` or reaching outside their canvas, and with them the
    matching labels and per-instance masks (``[N, H, W]`` with N boxes; other masks pass through). The kept count
    depends on the data: one host synchronization on CUDA, as torchvision.

    Args:
        min_size: the smallest width and height kept (>= 1).
        min_area: the smallest area kept (>= 1).
        labels_getter: ``"default"``, a callable returning a tensor or a tuple/list of tensors, or None.
    """

    def __init__(self, min_size: float = 1.0, min_area: float = 1.0,
                 labels_getter: Union[str, Callable[[Any], Any], None] = "default") -> None:
        if min_size < 1:
            raise ValueError(f"SanitizeBoundingBoxes: argument 'min_size': expected >= 1, got {min_size} "
                             f"(min_size must be >= 1, got {min_size}.)")
        if min_area < 1:
            raise ValueError(f"SanitizeBoundingBoxes: argument 'min_area': expected >= 1, got {min_area} "
                             f"(min_area must be >= 1, got {min_area}.)")
        self.min_size, self.min_area, self.labels_getter = min_size, min_area, labels_getter
        if labels_getter == "default":
            self._labels_getter = functools.partial(_sample.default_labels, who="SanitizeBoundingBoxes")  # picklable
        elif callable(labels_getter):
            self._labels_getter = labels_getter
        elif labels_getter is None:
            self._labels_getter = lambda sample: None
        else:
            raise ValueError("SanitizeBoundingBoxes: argument 'labels_getter': expected 'default', a callable or "
                             f"None, got {labels_getter!r}")

    def forward(self, *inputs):
        import torch

        sample = inputs if len(inputs) > 1 else inputs[0]
        labels = self._labels_getter(sample)
        if labels is not None:
            if isinstance(labels, torch.Tensor):
                labels = (labels,)
            elif not (isinstance(labels, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in labels)):
                raise ValueError("SanitizeBoundingBoxes: the labels must be a tensor, a tuple/list of tensors or None, "
                                 f"got {type(labels).__name__} (The labels in the input to forward() must be a tensor "
                                 "or None.)")
        flat = _sample.leaves(sample)
        boxes = _sample.find(flat, "BoundingBoxes", "SanitizeBoundingBoxes")
        for label in labels or ():
            if label.shape[0] != boxes.shape[0]:
                raise ValueError(f"SanitizeBoundingBoxes: {boxes.shape[0]} boxes but labels of shape "
                                 f"{tuple(label.shape)} (Number of boxes and labels must match.)")
        from .functional import _box_meta as B

        fmt = B.format_name("SanitizeBoundingBoxes", "boxes.format", boxes.format)
        valid = B.valid_mask(boxes.as_subclass(torch.Tensor), fmt, tuple(boxes.canvas_size), self.min_size,
                             self.min_area)
        params = dict(valid=valid, labels=labels)
        return _sample.rebuild(sample, [self.transform(x, params) for x in flat])

    def transform(self, inpt, params):
        is_label = params["labels"] is not None and any(inpt is label for label in params["labels"])
        k = _sample.kind(inpt)
        if not (is_label or k in ("BoundingBoxes", "Mask")):
            return inpt
        try:
            out = inpt[params["valid"]]
        except IndexError:  # a mask that is not one per box (e.g. a semantic [H, W] mask)
            return inpt
        return out if is_label else _sample.tv_tensors().wrap(out, like=inpt)


# ---- SSD-style zoom out and IoU crop -----------------------------------------------------------------
class RandomZoomOut(_RandomApplied):
    """With probability ``p``, places the sample on a canvas ``side_range`` times larger (a random factor and
    position). Geometric: moves every Image, Video, Mask, BoundingBoxes and KeyPoints of the sample with the same
    parameters.

    Args:
        fill: the value of pixels from outside the image: a number, one per channel, None, or a dict from tv_tensor
            type to fill (e.g. ``{tv_tensors.Image: 127, tv_tensors.Mask: 0}``; ``"others"`` for the rest).
        side_range: the canvas' size factor range ``(min, max)``, min >= 1.
        p: the probability that the transform applies (drawn once per call).
    """

    def __init__(self, fill: FillArg = 0, side_range: Tuple[float, float] = (1.0, 4.0), p: float = 0.5) -> None:
        super().__init__(p)
        if not isinstance(side_range, (tuple, list)) or len(side_range) != 2:
            raise TypeError(f"RandomZoomOut: argument 'side_range': expected a sequence of two numbers, got "
                            f"{side_range!r}")
        if side_range[0] < 1.0 or side_range[0] > side_range[1]:
            raise ValueError(f"RandomZoomOut: argument 'side_range': expected 1 <= min <= max, got {side_range} "
                             f"(Invalid side range provided {side_range}.)")
        self.fill, self.side_range = fill, side_range
        self._fill = _setup_fill(fill)

    def make_params(self, flat_inputs):
        from .functional._geometry_params import f32

        orig_h, orig_w = _query_size(flat_inputs)
        # float32 arithmetic, as torchvision's tensors compute it
        r = f32(f32(self.side_range[0]) + f32(_rand_n(1)[0] * f32(self.side_range[1] - self.side_range[0])))
        canvas_w, canvas_h = int(f32(orig_w * r)), int(f32(orig_h * r))
        rx, ry = _rand_n(2)
        left = int(f32((canvas_w - orig_w) * rx))
        top = int(f32((canvas_h - orig_h) * ry))
        return dict(padding=[left, top, canvas_w - (left + orig_w), canvas_h - (top + orig_h)])

    def transform(self, inpt, params):
        return F.pad(inpt, params["padding"], fill=_get_fill(self._fill, inpt))


class RandomIoUCrop(Transform):
    """SSD's crop: a random minimum IoU (from ``sampler_options``; 1.0 or more means no crop), then up to ``trials``
    random crops of ``min_scale``..``max_scale`` size and ``min_aspect_ratio``..``max_aspect_ratio`` aspect ratio,
    until one holds a box centre and overlaps some such box by at least that IoU (drawing a new minimum after
    ``trials`` misses). Boxes whose centre is outside the crop become zeros: follow with
    :class:`SanitizeBoundingBoxes`.

    Args:
        min_scale: the crop's smallest side, as a fraction of the image's.
        max_scale: its largest.
        min_aspect_ratio: the crop's smallest aspect ratio.
        max_aspect_ratio: its largest.
        sampler_options: the minimum IoUs to draw from (None: torchvision's).
        trials: crops tried per drawn minimum.
    """

    def __init__(self, min_scale: float = 0.3, max_scale: float = 1.0, min_aspect_ratio: float = 0.5,
                 max_aspect_ratio: float = 2.0, sampler_options: Optional[Sequence[float]] = None,
                 trials: int = 40) -> None:
        self.min_scale, self.max_scale = min_scale, max_scale
        self.min_aspect_ratio, self.max_aspect_ratio = min_aspect_ratio, max_aspect_ratio
        self.options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0] if sampler_options is None else sampler_options
        self.trials = trials

    def check_inputs(self, flat_inputs):
        kinds = [_sample.kind(x) for x in flat_inputs]
        has_image = any(k == "Image" or (k is None and _sample.is_array(x)) for k, x in zip(kinds, flat_inputs))
        if "BoundingBoxes" not in kinds or not has_image:
            raise TypeError("RandomIoUCrop() requires input sample to contain tensor or PIL images and bounding "
                            "boxes. Sample can also contain masks.")

    def make_params(self, flat_inputs):
        import torch

        from .functional._geometry_params import f32

        orig_h, orig_w = _query_size(flat_inputs)
        boxes = _sample.find(flat_inputs, "BoundingBoxes", "RandomIoUCrop")
        xyxy = F.convert_bounding_box_format(boxes.as_subclass(torch.Tensor), boxes.format, "XYXY")
        cx = 0.5 * (xyxy[..., 0] + xyxy[..., 2])
        cy = 0.5 * (xyxy[..., 1] + xyxy[..., 3])
        lo, span = f32(self.min_scale), f32(self.max_scale - self.min_scale)
        while True:
            min_iou = self.options[int(torch.randint(0, len(self.options), size=(1,)))]
            if min_iou >= 1.0:  # the "leave as is" option
                return {}
            for _ in range(self.trials):
                rw, rh = (f32(lo + f32(span * r)) for r in _rand_n(2))
                new_w, new_h = int(f32(orig_w * rw)), int(f32(orig_h * rh))
                if not self.min_aspect_ratio <= new_w / new_h <= self.max_aspect_ratio:
                    continue
                rx, ry = _rand_n(2)
                left, top = int(f32((orig_w - new_w) * rx)), int(f32((orig_h - new_h) * ry))
                right, bottom = left + new_w, top + new_h
                if left == right or top == bottom:
                    continue
                within = (left < cx) & (cx < right) & (top < cy) & (cy < bottom)
                if not within.any():  # host sync, as in torchvision
                    continue
                iou = _iou_with_window(xyxy, left, top, right, bottom)
                if torch.where(within, iou, float("-inf")).max() < min_iou:
                    continue
                return dict(top=top, left=left, height=new_h, width=new_w, is_within_crop_area=within)

    def transform(self, inpt, params):
        if not params:
            return inpt
        out = F.crop(inpt, params["top"], params["left"], params["height"], params["width"])
        if _sample.kind(out) == "BoundingBoxes":
            import torch

            kept = torch.where(params["is_within_crop_area"][:, None], out.as_subclass(torch.Tensor), 0)
            out = _sample.tv_tensors().wrap(kept, like=out)
        return out


def _iou_with_window(xyxy, left, top, right, bottom):
    """[N] IoU of XYXY boxes with one window, as torchvision.ops.box_iou computes it (coordinates
    widened to float32 / int32 first where narrower)."""
    import torch

    def widen(t):
        if t.is_floating_point():
            return t if t.dtype in (torch.float32, torch.float64) else t.float()
        return t if t.dtype in (torch.int32, torch.int64) else t.int()

    boxes = widen(xyxy)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    inter_w = widen(xyxy[:, 2].clamp(max=right) - xyxy[:, 0].clamp(min=left)).clamp(min=0)
    inter_h = widen(xyxy[:, 3].clamp(max=bottom) - xyxy[:, 1].clamp(min=top)).clamp(min=0)
    inter = inter_w * inter_h
    return inter / (area + (right - left) * (bottom - top) - inter)
