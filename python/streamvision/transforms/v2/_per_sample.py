"""Per-sample mode: one set of random parameters per image of a batch.

torchvision's random transforms draw one set of parameters per call, so every image of a batch
gets the same crop, flip and jitter. A transform made with ``per_sample=True`` treats its input as
a batch instead and draws parameters for each image, in two public steps:

* ``params = t.sample_params(batch)``: a :class:`BatchParams`, a dict of per-sample fields (each a
  tensor whose first dimension is the batch, on the batch's device): the names of the
  transform's single-image parameters (RandomResizedCrop: top, left, height, width; ColorJitter:
  order, b, c, s, h; RandomRotation: angle; ...), plus ``applied`` (bool ``[N]``: whether the
  transform applies to image i; always true for transforms without a probability);
* ``t.apply(batch, params)``: the images with those parameters; sample ``i`` of the result equals
  the functional op called on image ``i`` with parameters ``i``, bit for bit.

A batch is a tensor ``[N, ...]`` (``[N, C, H, W]`` images, ``[N, T, C, H, W]`` videos) or a list of
``[C, H, W]`` tensors of different sizes (an :class:`ImageList`; plain lists and tuples are taken
as one in per-sample mode). Transforms with a fixed output size return one ``[N, C, H, W]``
tensor; the others return a tensor when the input was one, else an :class:`ImageList`.

Where parameters come from. Transforms with a batched sampler draw on the batch's device, with
torch's generator for that device (``torch.rand(N, device=...)``): no host round trip, and inside
a captured CUDA graph every replay draws new numbers (torch's graph-safe philox seed + offset).
The others, and every transform on CPU batches, draw on the host exactly as that many calls of
the transform on the images one by one would (``torch.manual_seed`` reproduces them), and keep
the host values beside the device fields so that applying them needs no synchronisation.

How they are applied. RandomResizedCrop (F.resized_crop_batch), ColorJitter
(F.color_jitter_batch) and the flips (torch.where over the batch) apply the whole batch with one
launch per step; the others run the functional op per image (several launches per batch, no
synchronisation).
"""

from __future__ import annotations

import sys

from . import _sample
from ... import _C

__all__ = ["BatchParams", "ImageList"]


class ImageList(list):
    """A batch of images of different sizes: a list of ``[C, H, W]`` tensors (all on one device,
    one dtype, one channel count). Transforms treat an ImageList as a batch (non-random transforms
    apply to every image; random ones draw one set of parameters per call, or per image with
    ``per_sample=True``), where a plain list is a torchvision sample whose first image alone is
    transformed."""


class BatchParams(dict):
    """Per-sample parameters, as a transform's ``sample_params`` returns them and its ``apply`` takes them.

    Args:
        fields: field name -> tensor ``[N, ...]`` on the batch's device (fields that are not numbers,
            e.g. a per-image noise tensor, are Python lists of N items); ``applied`` (bool ``[N]``)
            says whether the transform applies to each image.
        host: the same fields as Python lists when they were drawn on the host (``apply`` then runs
            per-image ops without reading the device back), or None.
        samples: the single-image parameter dicts as drawn (None for an image the transform skips),
            or None.
    """

    def __init__(self, fields, host=None, samples=None):
        super().__init__(fields)
        self.host = host  # {field: list of N values} or None
        self._samples = samples  # [dict or None] per sample: the draws themselves, exactly
        self._packed = {}  # name -> (what a batch op takes, {field: the tensor it was made with})

    def pack(self, name, value, made_with):
        """Remembers `value`, the form a batch op takes (e.g. the boxes as one [N, 4] tensor), as
        made from these fields, so that apply can pass it without rebuilding it."""
        self._packed[name] = (value, made_with)

    def packed(self, name):
        """`value` of pack(name) while each field it was made with is still that very tensor (a
        caller may replace fields between sample_params and apply), else None."""
        value, made_with = self._packed.get(name, (None, {}))
        if value is None or any(self.get(k) is not v for k, v in made_with.items()):
            return None
        return value

    def sample(self, i):
        """The parameters of sample i as the transform's single-image ``transform`` takes them."""
        if self._samples is not None:
            return self._samples[i]
        host = self.host
        if host is None:  # fields given by the caller on the device: read them back (a synchronisation)
            host = {k: (v.tolist() if hasattr(v, "tolist") else list(v)) for k, v in self.items()}
        return {k: v[i] for k, v in host.items() if k != "applied"}

    def applied(self, i):
        if self.host is not None and "applied" in self.host:
            return bool(self.host["applied"][i])
        if self._samples is not None:
            return self._samples[i] is not None
        a = self.get("applied")
        return True if a is None else bool(a[i])


def _torch():
    return sys.modules.get("torch")


class Batch:
    """A batch taken apart: its images (views of a batch tensor, or the list's tensors), the
    device, and how to put results back together. A batch tensor's images are made only when
    asked for (``samples``): the batch ops take the tensor whole."""

    def __init__(self, inpt, who):
        torch = _torch()
        self.tensor = None
        if isinstance(inpt, (list, tuple)):
            if not inpt:
                raise ValueError(f"{who}(per_sample=True): expected a non-empty batch, got an empty {type(inpt).__name__}")
            # One pass: what every image must be, and the sizes (the batch's only host metadata): in C
            # for torch tensors (a C call an image instead of five attribute reads: 256 images 104 ->
            # ~15 us on a desktop core), else, or to say what is wrong, in Python.
            tensor_type = torch.Tensor if torch is not None else ()
            first = inpt[0]
            if not isinstance(first, tensor_type) or first.ndim != 3:
                raise TypeError(f"{who}(per_sample=True): a list batch holds [C, H, W] torch tensors; item 0 is "
                                f"{_describe(first)}")
            device = first.device
            sizes = _C._image_list_sizes(inpt)
            if sizes is None:
                sizes = _list_sizes(inpt, who, tensor_type)
            self._samples = list(inpt)
            self._sizes = sizes
            self.device = device
            self.n = len(inpt)
        elif torch is not None and isinstance(inpt, torch.Tensor):
            if inpt.ndim < 4:
                raise TypeError(f"{who}(per_sample=True): a batch tensor has a batch dimension first, [N, C, H, W] "
                                f"(or [N, T, C, H, W]); got shape {list(inpt.shape)}")
            if _sample.kind(inpt) not in (None, "Image", "Video"):
                raise TypeError(f"{who}(per_sample=True) applies to image batches; got a {type(inpt).__name__}")
            self.tensor = inpt
            self._samples = None
            self._sizes = None
            self.device = inpt.device
            self.n = inpt.shape[0]
            if self.n == 0:
                raise ValueError(f"{who}(per_sample=True): expected a non-empty batch, got shape {list(inpt.shape)}")
        else:
            raise TypeError(f"{who}(per_sample=True): expected a batch tensor [N, C, H, W] or a list of [C, H, W] "
                            f"tensors, got {_describe(inpt)}")

    @property
    def samples(self):
        """The images: the list's tensors, or views of the batch tensor."""
        if self._samples is None:
            self._samples = list(self.tensor.unbind(0))
        return self._samples

    @property
    def first(self):
        return self.tensor[0] if self.tensor is not None else self._samples[0]

    def sizes(self):
        """[(H, W)] per image (host metadata: no synchronisation)."""
        if self._sizes is None:
            self._sizes = [tuple(self.tensor.shape[-2:])] * self.n
        return self._sizes

    def uniform(self):
        return self.tensor is not None

    def rebuild(self, outs, fixed_size=False):
        """Results per image back into the batch's form: one tensor when the input was a tensor
        (unless per-image sizes made the results differ, e.g. RandomResize) or the transform has a
        fixed output size, else an ImageList."""
        if self.tensor is None or any(o.shape != outs[0].shape for o in outs):
            return rebuild_list(outs, fixed_size)
        return _stack(outs, like=self.tensor)


def _list_sizes(inpt, who, tensor_type):
    """[(H, W)] of a list batch's images, checking that each is a [C, H, W] tensor like item 0."""
    first = inpt[0]
    device, dtype, channels = first.device, first.dtype, first.shape[0]
    sizes = []
    for i, x in enumerate(inpt):
        if not isinstance(x, tensor_type) or x.ndim != 3:
            raise TypeError(f"{who}(per_sample=True): a list batch holds [C, H, W] torch tensors; item {i} is "
                            f"{_describe(x)}")
        if x.shape[0] != channels or x.dtype != dtype or x.device != device:
            raise ValueError(f"{who}(per_sample=True): the images of a batch share device, dtype and channel "
                             f"count; item 0 is {_describe(first)}, item {i} is {_describe(x)}")
        sizes.append(tuple(x.shape[1:]))
    return sizes


def rebuild_list(outs, fixed_size):
    """Results of a list batch: one tensor [N, ...] for a fixed output size, else an ImageList."""
    if fixed_size and all(o.shape == outs[0].shape for o in outs):
        return _stack(outs, like=outs[0])
    return ImageList(outs)


def _stack(outs, like):
    torch = _torch()
    if any(o.shape != outs[0].shape for o in outs):
        raise ValueError("a batch tensor's images came out with different sizes: "
                         f"{sorted({tuple(o.shape) for o in outs})} (use a list batch for that)")
    out = torch.stack([o.as_subclass(torch.Tensor) if _sample.kind(o) else o for o in outs])
    tv = _sample.tv_tensors()
    if tv is not None and isinstance(like, tv.TVTensor):
        out = tv.wrap(out, like=like)
    return out


def _describe(x):
    shape = getattr(x, "shape", None)
    return f"{type(x).__name__}" + (f" of shape {list(shape)}" if shape is not None else "")


def _pack(values, device):
    """N per-sample values (None for samples the transform skips) as one tensor on `device`, or
    None when they are not numbers or equal-length lists of numbers."""
    torch = _torch()
    present = [v for v in values if v is not None]
    if not present:
        return None

    def flat(v):
        return v if isinstance(v, (list, tuple)) else [v]

    if not all(isinstance(x, (bool, int, float)) for v in present for x in flat(v)):
        return None
    widths = {len(flat(v)) if isinstance(v, (list, tuple)) else -1 for v in present}
    if len(widths) != 1:
        return None
    width = widths.pop()
    if all(isinstance(x, bool) for v in present for x in flat(v)):
        dtype = torch.bool
    elif all(isinstance(x, (bool, int)) for v in present for x in flat(v)):
        dtype = torch.int64
    else:
        dtype = torch.float64  # the host draws are doubles (float32 values widened exactly)
    zero = False if dtype == torch.bool else 0
    rows = [v if v is not None else ([zero] * width if width >= 0 else zero) for v in values]
    t = torch.tensor(rows, dtype=dtype)
    return t.to(device, non_blocking=True) if device.type != "cpu" else t


def sample_on_host(transform, batch):
    """The generic sampler: the draws of N single-image calls, in order (the coin of a transform
    applied with probability p first, then make_params when it applies), packed into fields."""
    draws = []
    for x in batch.samples:
        transform.check_inputs([x])
        draws.append(transform.make_params([x]) if transform._draw_applies() else None)
    keys = []
    for d in draws:
        for k in d or {}:
            if k not in keys:
                keys.append(k)
    fields, host = {}, {}
    for k in keys:
        values = [None if d is None else d.get(k) for d in draws]
        host[k] = values
        packed = _pack(values, batch.device)
        fields[k] = packed if packed is not None else values
    applied = [d is not None for d in draws]
    host["applied"] = applied
    fields["applied"] = _pack(applied, batch.device)
    return BatchParams(fields, host=host, samples=draws)


def apply_per_image(transform, batch, params, fixed_size=False):
    """The generic apply: the transform's single-image op on each image with its parameters."""
    from ._transforms import _keep_type

    if len(params.get("applied", ())) != batch.n:
        raise ValueError(f"{type(transform).__name__}.apply: params are for {len(params.get('applied', ()))} images, "
                         f"the batch has {batch.n}")
    outs = []
    for i, x in enumerate(batch.samples):
        outs.append(_keep_type(transform.transform(x, params.sample(i)), x) if params.applied(i) else x)
    return batch.rebuild(outs, fixed_size)


# ---- batched samplers (on the batch's device) and applies (one launch per op) -------------------
def sample_coins(p, batch):
    """applied[i] = rand < p, compared in float32 as torchvision's ``torch.rand(1) < p``."""
    torch = _torch()
    return torch.rand(batch.n, device=batch.device) < torch.tensor(p, dtype=torch.float32).item()


def sample_resized_crop(scale, ratio, batch, attempts=10):
    """RandomResizedCrop's boxes for every image at once, by torchvision's algorithm: up to 10
    attempts of an area fraction uniform in `scale` and a log-uniform aspect ratio in `ratio`,
    the first whose rounded box fits, at a uniform position; else the centred crop of the ratio
    closest to the image's. Two calls whatever the batch: torch.rand draws every attempt's numbers
    on the batch's device (the device generator's stream: graph-safe), and F.resized_crop_boxes
    turns them into boxes (one launch on CUDA, the images' sizes in its arguments)."""
    torch = _torch()
    from . import functional as F

    u = torch.rand(batch.n, 2 * attempts + 2, device=batch.device)
    box = F.resized_crop_boxes(u, batch.sizes(), scale, ratio)
    fields = dict(zip(("top", "left", "height", "width"), box.unbind(1)))
    params = BatchParams({**fields, "applied": torch.ones(batch.n, dtype=torch.bool, device=batch.device)})
    params.pack("box", box, fields)
    return params


def boxes_of(params):
    """The boxes as int64 [N, 4]: the sampler's own tensor when the fields are still its columns;
    a tuple (top, left, height, width), one box for every image, as it is."""
    torch = _torch()
    if isinstance(params, tuple):
        return params
    box = params.packed("box") if isinstance(params, BatchParams) else None
    if box is not None:
        return box
    return torch.stack([params["top"], params["left"], params["height"], params["width"]], dim=1)


def apply_resized_crop(batch, params, size, interpolation, antialias, hflip=None, dtype=None, scale=True, mean=None,
                       std=None, window=None):
    """The batch op when it covers the case (CPU: always; CUDA: bilinear with antialias, uint8 and
    float32 images), else None (the per-image ops apply)."""
    torch = _torch()
    from . import functional as F
    from ._interpolation import InterpolationMode

    x0 = batch.first
    if batch.device.type == "cuda" and not (
            interpolation == InterpolationMode.BILINEAR and antialias and x0.dtype in (torch.uint8, torch.float32)):
        return None
    if batch.device.type not in ("cuda", "cpu") or x0.ndim != 3:
        return None
    if batch.tensor is not None:  # whole: its images become views in C++, not Python objects
        plain = batch.tensor.as_subclass(torch.Tensor) if _sample.kind(batch.tensor) else batch.tensor
    else:
        tensor = torch.Tensor  # tv_tensors (subclasses) go as plain tensors; plain ones as they are
        plain = [x if type(x) is tensor else x.as_subclass(tensor) for x in batch.samples]
    # Channels-last images give a channels-last result, as the per-image ops do.
    memory_format = torch.channels_last if _channels_innermost(x0) else None
    out = F.resized_crop_batch(plain, boxes_of(params), size, interpolation, antialias, hflip, dtype, scale, mean, std,
                               window, memory_format=memory_format)
    tv = _sample.tv_tensors()
    like = batch.tensor if batch.tensor is not None else batch.samples[0]
    if tv is not None and isinstance(like, tv.TVTensor):
        out = tv.wrap(out, like=like)
    return out


def _channels_innermost(x):
    """Whether the image [C, H, W] keeps its channels innermost (a channels-last batch's image, or
    an HWC-strided decode), as kernels::channels_innermost decides for the ops."""
    c, h, w = x.shape[-3:]
    return c > 1 and (h <= 1 or x.stride(-2) > x.stride(-3)) and (w <= 1 or x.stride(-1) > x.stride(-3))


def apply_flip(batch, params, flip):
    """Flipped where params["applied"]: torch.where over the batch (two launches), no host read."""
    torch = _torch()
    applied = params["applied"]
    if batch.tensor is not None:
        x = batch.tensor
        return torch.where(applied.view(-1, *([1] * (x.ndim - 1))), flip(x), x)
    return ImageList(torch.where(applied[i], flip(x), x) for i, x in enumerate(batch.samples))


def sample_color_jitter(ranges, batch):
    """ColorJitter's draws for every image: a uniformly random order of the four ops (the argsort
    of four uniform numbers: every permutation equally likely, as randperm(4)) and a factor
    uniform in each range (None ranges: no field; the factor the batch op gets is 0, disabled).
    Two calls whatever the batch: torch.rand on the batch's device and F.color_jitter_params."""
    torch = _torch()
    from . import functional as F

    factors, order = F.color_jitter_params(torch.rand(batch.n, 8, device=batch.device), ranges)
    fields = {"order": order}
    for key, r, column in zip(("b", "c", "s", "h"), ranges, factors.unbind(1)):
        if r is not None:
            fields[key] = column
    params = BatchParams({**fields, "applied": torch.ones(batch.n, dtype=torch.bool, device=batch.device)})
    params.pack("jitter", (factors, order), fields)
    return params


def jitter_tensors(batch, params, ranges):
    """(factors float64 [N, 4], order int64 [N, 4]) for F.color_jitter_batch from per-sample
    params (the sampler's own tensors when they are unchanged, else built from the fields), or
    None when the order is not a tensor."""
    torch = _torch()
    drawn = params.packed("jitter") if isinstance(params, BatchParams) else None
    if drawn is not None:
        return drawn
    cols = []
    for key, r in zip(("b", "c", "s", "h"), ranges):
        v = params.get(key) if r is not None else None
        cols.append(v.to(torch.float64) if isinstance(v, torch.Tensor)
                    else torch.zeros(batch.n, dtype=torch.float64, device=batch.device))
    order = params["order"]
    if not isinstance(order, torch.Tensor):
        return None
    return torch.stack(cols, dim=1), order.to(torch.int64)


def apply_color_jitter(batch, params, ranges):
    """The batch op for a uniform batch (CUDA: 3 channels), else None."""
    torch = _torch()
    from . import functional as F

    x = batch.tensor
    if x is None or x.ndim != 4 or (batch.device.type == "cuda" and x.shape[1] != 3):
        return None
    if batch.device.type not in ("cuda", "cpu"):
        return None
    drawn = jitter_tensors(batch, params, ranges)
    if drawn is None:
        return None
    factors, order = drawn
    plain = x.as_subclass(torch.Tensor) if _sample.kind(x) else x
    out = F.color_jitter_batch(plain, factors, order, [r is not None for r in ranges])
    tv = _sample.tv_tensors()
    if tv is not None and isinstance(x, tv.TVTensor):
        out = tv.wrap(out, like=x)
    return out
