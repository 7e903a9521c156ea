"""Compose's fusion: a chain that one batch kernel computes runs as that kernel.

Recognised chain (a prefix of Compose's transforms, at least two of them):

    RandomResizedCrop | Resize (then CenterCrop, optional) | CenterCrop (uint8 images)
    -> RandomHorizontalFlip (optional)
    -> ColorJitter (optional; 3-channel images on CUDA)
    -> ToDtype(float32 | float16 | bfloat16, scale) (optional)
    -> Normalize (optional; after a ToDtype or on float images)

run as one ``resized_crop_batch`` call (one or two launches per 192 images on CUDA, no
intermediate image), or, with a ColorJitter, as ``resized_crop_batch`` then one
``color_jitter_batch`` that also converts and normalizes (ColorJitter's contrast needs each
image's mean after the crop, so the jitter cannot join the crop's pass: three launches on CUDA
instead of eleven). Random parameters are drawn exactly as the unfused chain draws them (same
generator, same order: the crop's, the flip's, then the jitter's), so the output equals the
unfused chain's bit for bit, per-sample or not; ``Compose(..., fuse=False)`` runs the transforms one by
one. Inputs: a batch tensor [N, C, H, W], an image [C, H, W] (plain or tv_tensors.Image), or an
ImageList. Anything else (other structures, tv_tensors other than Image, modes the kernel does
not cover) runs unfused.
"""

from __future__ import annotations

import sys

from . import _per_sample
from . import _sample
from ._interpolation import InterpolationMode


def _torch():
    return sys.modules.get("torch")


def _match(transforms):
    """(head, after, flip, jitter, to_dtype, normalize, count) for a fusable prefix, or None."""
    from . import _transforms as T

    if len(transforms) < 2:
        return None
    head = transforms[0]
    if type(head) not in (T.RandomResizedCrop, T.Resize, T.CenterCrop):
        return None
    if type(head) is T.Resize and (head.size is None or head.max_size is not None):
        return None
    i, flip, jitter, to_dtype, normalize = 1, None, None, None, None
    after = None  # a CenterCrop of the resized images
    if type(head) is T.Resize and i < len(transforms) and type(transforms[i]) is T.CenterCrop:
        after, i = transforms[i], i + 1
    if i < len(transforms) and type(transforms[i]) is T.RandomHorizontalFlip:
        flip, i = transforms[i], i + 1
    if i < len(transforms) and type(transforms[i]) is T.ColorJitter:
        jitter, i = transforms[i], i + 1
    torch = _torch()
    if i < len(transforms) and type(transforms[i]) is T.ToDtype:
        t = transforms[i]
        if torch is not None and t.dtype in (torch.float32, torch.float16, torch.bfloat16):
            to_dtype, i = t, i + 1
    if i < len(transforms) and type(transforms[i]) is T.Normalize and not transforms[i].inplace:
        normalize, i = transforms[i], i + 1
    if i < 2:
        return None
    return head, after, flip, jitter, to_dtype, normalize, i


def _mode(head):
    from . import _transforms as T

    if type(head) is T.CenterCrop:
        return InterpolationMode.BILINEAR, True
    return head.interpolation, bool(head.antialias)


def _covered(head, jitter, to_dtype, normalize, x):
    """Whether the batch kernel computes this chain for images like x (checked before any draw)."""
    from . import _transforms as T

    torch = _torch()
    if x.dtype not in (torch.uint8, torch.float32):
        return False
    if jitter is not None and (x.ndim != 3 or x.shape[0] != 3):
        return False  # the unfused ColorJitter says what it makes of other channel counts
    if type(head) is T.CenterCrop and x.dtype != torch.uint8:
        return False  # an exact crop through the resampler needs finite neighbours: bytes are
    if normalize is not None and to_dtype is None and not x.dtype.is_floating_point:
        return False
    if x.device.type == "cuda":
        mode, aa = _mode(head)
        return mode == InterpolationMode.BILINEAR and aa
    return x.device.type == "cpu"


def run(compose, inpt, only_per_sample=False):
    """The fused chain's result followed by the rest of the transforms, or NotImplemented (also
    when `only_per_sample` and neither the crop nor the flip is per-sample)."""
    from . import _transforms as T

    torch = _torch()
    if torch is None:
        return NotImplemented
    m = _match(compose.transforms)
    if m is None:
        return NotImplemented
    head, after, flip, jitter, to_dtype, normalize, count = m
    per_sample = bool(head.per_sample or (flip is not None and flip.per_sample) or (jitter is not None and jitter.per_sample))
    if only_per_sample and not per_sample:
        return NotImplemented
    single = False
    if isinstance(inpt, _per_sample.ImageList) or (per_sample and type(inpt) in (list, tuple)):
        try:  # tensors [C, H, W] of one device, dtype and channel count (checked in one pass)
            batch = _per_sample.Batch(list(inpt), type(head).__name__)
        except (TypeError, ValueError):
            return NotImplemented  # the unfused chain says what is wrong, or copes
        first = like = inpt[0]
        if not head.per_sample and type(head).__name__ == "RandomResizedCrop" and len(set(batch.sizes())) > 1:
            return NotImplemented  # one draw cannot fit images of different sizes: the unfused chain raises
    elif isinstance(inpt, torch.Tensor) and _sample.kind(inpt) in (None, "Image") and inpt.ndim in (3, 4):
        if inpt.ndim == 3:
            if per_sample:
                return NotImplemented
            single = True
            batch_input, first = inpt[None], inpt
        else:
            if inpt.shape[0] == 0:
                return NotImplemented
            batch_input, first = inpt, inpt[0]
        like = inpt
        batch = None
    else:
        return NotImplemented
    if not _covered(head, jitter, to_dtype, normalize, first):
        return NotImplemented
    if batch is None:
        batch = _per_sample.Batch(batch_input, type(head).__name__)

    window = None
    size = list(head.size) if type(head) is not T.Resize else None
    if type(head) is T.Resize:
        sizes = set(batch.sizes())
        if len(head.size) == 1 and len(sizes) > 1:
            return NotImplemented  # each image its own resized size: not one output tensor
        rh, rw = _resized_size(*sizes.pop(), head.size) if len(head.size) == 1 else head.size
        size = [rh, rw]
        if after is not None:
            ch, cw = after.size
            if ch > rh or cw > rw:
                return NotImplemented  # the crop pads
            window = (rh, rw, int(round((rh - ch) / 2.0)), int(round((rw - cw) / 2.0)))
            size = [ch, cw]
    boxes = _boxes(head, batch, inpt)
    if boxes is None:
        return NotImplemented
    hflip = None
    if flip is not None:
        if flip.per_sample:
            hflip = flip.sample_params(batch)["applied"]
        else:
            from ._transforms import _applies

            hflip = bool(_applies(flip.p))  # one draw for the call: a host value, nothing on the device
    mode, aa = _mode(head)
    tail = dict(dtype=to_dtype.dtype if to_dtype is not None else None,
                scale=to_dtype.scale if to_dtype is not None else True,
                mean=normalize.mean if normalize is not None else None,
                std=normalize.std if normalize is not None else None)
    if jitter is None:
        out = _per_sample.apply_resized_crop(batch, boxes, size, mode, aa, hflip=hflip, window=window, **tail)
    else:
        out = _per_sample.apply_resized_crop(batch, boxes, size, mode, aa, hflip=hflip, window=window)
        out = _jitter(jitter, out, tail)
    if single:
        out = out[0]
    tv = _sample.tv_tensors()
    if tv is not None and isinstance(like, tv.Image) and not isinstance(out, tv.Image):
        out = tv.wrap(out, like=like)
    for t in compose.transforms[count:]:
        out = t(out)
    return out


def _jitter(jitter, x, tail):
    """ColorJitter (then the ToDtype and Normalize of `tail`) on the cropped batch x in one
    color_jitter_batch call, its parameters drawn as the unfused ColorJitter draws them: per
    image, or once for the call."""
    torch = _torch()
    from . import functional as F

    plain = x.as_subclass(torch.Tensor) if type(x) is not torch.Tensor else x
    ranges = jitter._ranges()
    if jitter.per_sample:
        batch = _per_sample.Batch(plain, "ColorJitter")
        factors, order = _per_sample.jitter_tensors(batch, jitter.sample_params(batch), ranges)
    else:
        # One draw (randperm(4), then the factors: make_params' order), the same for every image.
        p = jitter.make_params([plain])
        n, dev = plain.shape[0], plain.device
        factors = torch.tensor([[0.0 if p[k] is None else float(p[k]) for k in ("b", "c", "s", "h")]],
                               dtype=torch.float64).to(dev, non_blocking=True).expand(n, 4)
        order = torch.tensor([list(p["order"])], dtype=torch.int64).to(dev, non_blocking=True).expand(n, 4)
    return F.color_jitter_batch(plain, factors, order, [r is not None for r in ranges], **tail)


def _boxes(head, batch, inpt):
    """The head's crop boxes as BatchParams fields (top, left, height, width), or one box for
    every image as a tuple of 4 ints, drawn as the head itself draws them (per-sample or once
    per call)."""
    torch = _torch()
    from . import _transforms as T

    dev = batch.device
    if type(head) is T.RandomResizedCrop:
        if head.per_sample:
            return head.sample_params(batch)
        p = head.make_params([batch.first])
        return tuple(int(p[k]) for k in ("top", "left", "height", "width"))
    if type(head) is T.Resize:
        if batch.uniform() or len(set(batch.sizes())) == 1:
            h, w = batch.sizes()[0]
            return (0, 0, int(h), int(w))
        hw = torch.tensor(batch.sizes(), dtype=torch.int64)
        zero = torch.zeros(batch.n, dtype=torch.int64)
        return _fields(zero, zero, hw[:, 0], hw[:, 1], dev)
    # CenterCrop: torchvision's offsets; a crop larger than the image pads (not fused)
    ch, cw = head.size
    tops, lefts = [], []
    for h, w in batch.sizes():
        if ch > h or cw > w:
            return None
        tops.append(int(round((h - ch) / 2.0)))
        lefts.append(int(round((w - cw) / 2.0)))
    n = batch.n
    return _fields(torch.tensor(tops), torch.tensor(lefts), torch.full((n,), ch), torch.full((n,), cw), dev)


def _fields(top, left, h, w, device):
    box = {"top": top, "left": left, "height": h, "width": w}
    return _per_sample.BatchParams({k: v.to(device, non_blocking=True) for k, v in box.items()})


def _resized_size(h, w, size):
    """resize's output size for one requested edge (torchvision's rule: the shorter edge becomes
    size[0], the longer int(size[0] * long / short))."""
    s = size[0]
    if w <= h:
        return int(s * h / w), s
    return s, int(s * w / h)
