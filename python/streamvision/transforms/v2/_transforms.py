"""Transform classes with torchvision.transforms.v2's names, parameters and random-parameter
rules. Parameters are sampled on the host (from torch's global generator when torch is loaded,
so ``torch.manual_seed`` governs them as it governs torchvision; else from Python's ``random``)
and then applied with the functional ops, on the caller's current stream.

A transform applies, with one set of random parameters per call, to the leaves of its input
(inside tuples, lists and dicts) chosen by torchvision's rules (_sample.targets): geometric
transforms move every tv_tensors.Image, Video, Mask, BoundingBoxes and KeyPoints of a sample
together (masks with NEAREST, boxes and keypoints with new canvas sizes), photometric ones change
Images and Videos and pass the rest through; without an Image or Video, the first plain tensor or
array (torch, numpy, streamvision) is the image; labels and other leaves pass through. A tv_tensor
type streamvision does not know raises TypeError in a geometric transform; PIL images always do.

Contract for subclasses: `make_params(targets)` gets the leaves the transform applies to (in
sample order) and returns the parameters; `transform(leaf, params)` is called once per target,
with the leaf's tv_tensor type intact (the functionals dispatch on it; a plain result is given the
leaf's type back). Photometric transforms set `_passes_through_tv_tensors = True`.
"""

from __future__ import annotations

import enum
import math
import numbers
import random
import sys
from collections.abc import Sequence
import warnings

from . import _fusion
from . import _per_sample
from . import _sample
from . import functional as F
from ._interpolation import InterpolationMode
from ..._optional_torch import torch as _installed_torch
from ..._typing import DTypeLike, Fill, InterpolationLike
from typing import Any, Callable, Dict, Optional, Tuple, Union

# A transform's fill: one for every input, or one per tv_tensor type ("others" for the rest).
FillArg = Union[Fill, Dict[Any, Fill]]
Size = Union[int, Sequence[int]]
Range = Union[float, Sequence[float]]

__all__ = [
    "Transform", "Compose", "RandomApply", "RandomChoice", "RandomOrder", "Lambda",
    "RandomHorizontalFlip", "RandomVerticalFlip", "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop",
    "FiveCrop", "TenCrop", "Pad", "RandomRotation", "RandomAffine", "RandomPerspective", "ElasticTransform",
    "ColorJitter", "Grayscale", "RandomGrayscale", "GaussianBlur", "GaussianNoise", "RandomInvert",
    "RandomPosterize", "RandomSolarize", "RandomAutocontrast", "RandomEqualize", "RandomAdjustSharpness",
    "RandomErasing", "ToDtype", "Normalize",
]


# ---- random numbers -------------------------------------------------------------------------
def _torch():
    return sys.modules.get("torch")


def _rand():
    t = _torch()
    return float(t.rand(1)) if t is not None else random.random()


def _uniform(a, b):
    t = _torch()
    return float(t.empty(1).uniform_(a, b)) if t is not None else random.uniform(a, b)


def _randint(low, high):
    """An integer in [low, high)."""
    t = _torch()
    return int(t.randint(low, high, size=(1,))) if t is not None else random.randrange(low, high)


def _rand_n(n):
    """n numbers in [0, 1) drawn as torch.rand(n) draws them (float32 values, as Python floats)."""
    t = _torch()
    if t is not None:
        return t.rand(n).tolist()
    from .functional._geometry_params import f32

    return [f32(random.random()) for _ in range(n)]


def _randperm(n):
    t = _torch()
    return t.randperm(n).tolist() if t is not None else random.sample(range(n), n)


from .functional._geometry_params import f32 as _f32  # noqa: E402  (x rounded to float32, as torch rounds it)


def _coin(p, inclusive=False):
    """torchvision's ``torch.rand(1) < p`` (``<= p`` when inclusive): one draw, compared with p in
    float32 as torch compares (a float64 comparison would disagree for draws next to p)."""
    r, q = _rand(), _f32(p)
    return r <= q if inclusive else r < q


def _multinomial1(weights):
    """One index drawn with the given weights: ``torch.multinomial(torch.tensor(weights), 1)``."""
    t = _torch()
    if t is not None:
        return int(t.multinomial(t.tensor(weights), 1))
    return random.choices(range(len(weights)), weights=weights)[0]


# ---- structure handling (_sample) ------------------------------------------------------------


def _is_array(x):
    """Any tensor or array, tv_tensors included (torch, numpy, streamvision, DLPack / CUDA Array
    Interface exporters); _sample.is_array is the plain ones only."""
    return _sample.is_array(x) or _sample.kind(x) is not None

_tv_tensors = _sample.tv_tensors
_leaves = _sample.leaves
_query_size = _sample.query_size
_setup_fill = _sample.setup_fill
_get_fill = _sample.get_fill


def _map(obj, fn):
    """obj with fn applied to each leaf."""
    return _sample.rebuild(obj, [fn(x) for x in _leaves(obj)])


def _keep_type(out, like):
    """A transform's result with `like`'s tv_tensor type, when the transform returned a plain
    tensor for a tv_tensor leaf (a kernel called on it directly)."""
    tv = _tv_tensors()
    if tv is None or not isinstance(like, tv.TVTensor) or isinstance(out, tv.TVTensor):
        return out
    if isinstance(out, (tuple, list)):
        return type(out)(_keep_type(o, like) for o in out)
    torch = _torch()
    return tv.wrap(out, like=like) if torch is not None and isinstance(out, torch.Tensor) else out


def _is_pil(x):
    return type(x).__module__.startswith("PIL.")


def _is_plain(x):
    """A plain tensor or array (torchvision's "pure tensor", with numpy and DLPack arrays)."""
    tv = _tv_tensors()
    return _is_array(x) and not (tv is not None and isinstance(x, tv.TVTensor))


def _is_pure_torch(x):
    """torchvision's is_pure_tensor: a torch.Tensor that is no tv_tensor."""
    t = _torch()
    return t is not None and isinstance(x, t.Tensor) and _is_plain(x)


def _selected(leaves, accepts, pure=_is_plain):
    """torchvision's needs-transform rule for the leaves `accepts` takes: of the pure ones, only
    the first, and none when the sample holds an Image, a Video or a PIL image."""
    tv = _tv_tensors()
    take_pure = not any(_is_pil(x) or (tv is not None and isinstance(x, (tv.Image, tv.Video))) for x in leaves)
    flags = []
    for x in leaves:
        ok = bool(accepts(x))
        if ok and pure(x):
            ok, take_pure = take_pure, False
        flags.append(ok)
    return flags


def _map_selected(sample, flags, fn):
    """fn on the leaves whose flag (in _leaves' order) is set; the structure is kept."""
    it = iter(flags)
    return _map(sample, lambda x: fn(x) if next(it) else x)


def _require_torch(what):
    try:
        import torch
    except ImportError as e:
        raise ImportError(f"{what} needs PyTorch (it is optional for streamvision's functional ops only)") from e
    return torch


def _targets(transform, leaves):
    """The leaves `transform` applies to (torchvision's rules, _sample.targets)."""
    return [x for x, chosen in zip(leaves, _sample.targets(transform, leaves)) if chosen]


def _setup_size(size, name="size"):
    if isinstance(size, numbers.Number):
        return [int(size), int(size)]
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return [int(size[0]), int(size[0])]
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return [int(size[0]), int(size[1])]
    raise ValueError(f"{name} should be an int or a sequence of one or two ints, got {size}")


def _setup_range(value, name, center=1.0, bound=(0, float("inf")), clip_first_on_zero=True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - float(value), center + float(value)]
        if clip_first_on_zero:
            value[0] = max(value[0], 0.0)
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        value = [float(value[0]), float(value[1])]
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    if not bound[0] <= value[0] <= value[1] <= bound[1]:
        raise ValueError(f"{name} values should be between {bound}, but got {value}.")
    return None if value[0] == value[1] == center else tuple(value)


def _dims(x):
    c, h, w = F.get_dimensions(x)
    return c, h, w


# ---- base classes ------------------------------------------------------------------------------
class _PlainModule:
    """torch.nn.Module's calling convention and repr, for when torch is not installed: calling
    the object calls forward, and repr shows extra_repr as torch would."""

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        if len(lines) > 1:
            return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"
        return f"{type(self).__name__}({''.join(lines)})"


# torchvision's transforms are nn.Modules (nn.Sequential, .to(), no parameters); ours are too when
# torch is installed, and plain objects with the same calling convention when it is not.
_Module = _installed_torch.nn.Module if _installed_torch is not None else _PlainModule


class Transform(_Module):
    """Samples parameters once per call (make_params) and applies them to every target leaf.

    Subclasses implement ``make_params(targets)`` and ``transform(inpt, params)``; their
    ``__init__`` need not call ``super().__init__()``: the nn.Module state is set up when the
    object is created (``__new__``), so that subclasses only set their own attributes."""

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        if _Module is not _PlainModule:
            _Module.__init__(self)
        return self

    def __init__(self) -> None:
        pass  # nn.Module.__init__ ran in __new__; running it again would reset the module's state

    def __init_subclass__(cls, **kwargs):
        # Every transform that draws random numbers takes per_sample=False (keyword); it is added
        # here, once, to the __init__ of each such class rather than written into each signature.
        super().__init_subclass__(**kwargs)
        if _draws_random(cls) and ("__init__" in cls.__dict__ or not getattr(cls.__init__, "_takes_per_sample", False)):
            cls.__init__ = _with_per_sample(cls.__init__)
        if (getattr(cls.__init__, "_takes_per_sample", False) and cls.__doc__ and "per_sample" not in cls.__doc__
                and not cls.__name__.startswith("_")):
            cls.__doc__ = cls.__doc__.rstrip() + _PER_SAMPLE_DOC

    # Photometric transforms leave masks, boxes and keypoints as they are (torchvision does too).
    _passes_through_tv_tensors = False
    # Transforms of one tv_tensor kind set this to those kinds' names (e.g. ("BoundingBoxes",)).
    _only_tv_tensors = None

    def check_inputs(self, flat_inputs):
        """Raises for samples the transform cannot take (all leaves, before anything is drawn)."""

    def make_params(self, flat_inputs):
        return {}

    def transform(self, inpt, params):
        raise NotImplementedError

    def _draw_applies(self):
        """Whether this call applies the transform (random transforms draw here)."""
        return True

    # Per-sample mode (see _per_sample): set by the per_sample=... argument of random transforms.
    per_sample = False

    def _fixed_output_size(self):
        """Whether every output has one size whatever the input's (batches become one tensor)."""
        return False

    def sample_params(self, batch):
        """Per-sample parameters for `batch` (a tensor [N, ...] or a list of [C, H, W] tensors): a
        BatchParams of fields [N, ...] on the batch's device, named as the transform's single-image
        parameters, plus ``applied`` (see transforms.v2._per_sample)."""
        if not isinstance(batch, _per_sample.Batch):
            batch = _per_sample.Batch(batch, type(self).__name__)
        sampler = getattr(self, "_sample_batch", None)
        if sampler is not None and batch.device.type == "cuda":
            return sampler(batch)
        return _per_sample.sample_on_host(self, batch)

    def apply(self, batch, params):
        """`batch` transformed with per-sample `params` (from sample_params): image i of the result
        equals this transform's op on image i with parameters i."""
        if not isinstance(batch, _per_sample.Batch):
            batch = _per_sample.Batch(batch, type(self).__name__)
        batched = getattr(self, "_apply_batch", None)
        out = batched(batch, params) if batched is not None else None
        if out is None:
            out = _per_sample.apply_per_image(self, batch, params, self._fixed_output_size())
        return out

    def _forward_image_list(self, images):
        """An ImageList outside per-sample mode: one draw for the call, applied to every image."""
        self.check_inputs(list(images))
        if not self._draw_applies():
            return images
        params = self.make_params(list(images))
        outs = [_keep_type(self.transform(x, params), x) for x in images]
        return _per_sample.rebuild_list(outs, self._fixed_output_size())

    def forward(self, *inputs):
        if len(inputs) == 1 and not self.per_sample and self._only_tv_tensors is None:
            x = inputs[0]
            torch = _torch()
            if torch is not None and type(x) is torch.Tensor:
                # One plain torch tensor, the common call: it is the image and the only leaf, so the
                # sample is not taken apart (what follows gives the same result, 4-5 µs later).
                self.check_inputs([x])
                if not self._draw_applies():
                    return x
                return self.transform(x, self.make_params([x]))
        if len(inputs) == 1 and (self.per_sample or isinstance(inputs[0], _per_sample.ImageList)):
            if self.per_sample:
                batch = _per_sample.Batch(inputs[0], type(self).__name__)
                return self.apply(batch, self.sample_params(batch))
            return self._forward_image_list(inputs[0])
        sample = inputs if len(inputs) > 1 else inputs[0]
        flat = _leaves(sample)
        self.check_inputs(flat)
        chosen = _sample.targets(self, flat)
        if not self._draw_applies() or not any(chosen):
            return sample
        params = self.make_params([x for x, c in zip(flat, chosen) if c])
        return _sample.rebuild(sample, [_keep_type(self.transform(x, params), x) if c else x
                                        for x, c in zip(flat, chosen)])

    def extra_repr(self):
        # torchvision's: the public attributes of simple types
        return ", ".join(f"{k}={v}" for k, v in vars(self).items() if not k.startswith("_") and k != "training"
                         and not (k == "per_sample" and not v)  # torchvision's repr unless per-sample
                         and isinstance(v, (bool, int, float, str, tuple, list, enum.Enum)))


_PER_SAMPLE_DOC = """

    Per-sample mode: with ``per_sample=True`` (keyword) the input is a batch (a tensor
    ``[N, ...]`` or a list of ``[C, H, W]`` images) and every image gets its own random
    parameters (``sample_params`` draws them, ``apply`` applies them; see
    :class:`~streamvision.transforms.v2.BatchParams`).
    """


def _compiling():
    """True while torch.compile / torch.export traces: the batch kernels are not custom ops, so
    a traced Compose runs its transforms one by one (each a custom op)."""
    t = _torch()
    return t is not None and t.compiler.is_compiling()


def _draws_random(cls):
    return (cls.make_params is not Transform.make_params or cls._draw_applies is not Transform._draw_applies
            or getattr(cls, "_random_without_params", False))


def _with_per_sample(init):
    import functools
    import inspect

    @functools.wraps(init)
    def __init__(self, *args, per_sample=False, **kwargs):
        init(self, *args, **kwargs)
        self.per_sample = bool(per_sample)

    __init__._takes_per_sample = True
    sig = inspect.signature(init)
    params = list(sig.parameters.values())
    extra = inspect.Parameter("per_sample", inspect.Parameter.KEYWORD_ONLY, default=False)
    at = next((i for i, q in enumerate(params) if q.kind == inspect.Parameter.VAR_KEYWORD), len(params))
    __init__.__signature__ = sig.replace(parameters=params[:at] + [extra] + params[at:])
    return __init__


def _applies(p):
    """Whether a transform of probability p applies to this call: torchvision's draw and test,
    ``not torch.rand(1) >= p`` (compared in float32, as torch compares). The number is drawn even
    for p == 1 (the same random stream); for p of 1 or 0 the outcome is known without reading it
    back to the host, which keeps such transforms inside one torch.compile graph."""
    t = _torch()
    if t is None:
        return random.random() < p
    r = t.rand(1)
    if p >= 1.0 or p <= 0.0:
        return p >= 1.0
    return bool(r < p)


class _RandomApplied(Transform):
    """A transform applied with probability p (the decision is made once per call)."""

    def __init__(self, p: float = 0.5) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def _draw_applies(self):
        return _applies(self.p)  # drawn even for p == 1, as torchvision does (same random stream)


def _check_transforms(transforms, module_list=False):
    """torchvision's checks of a container's transforms (a non-empty sequence)."""
    nn = getattr(sys.modules.get("torch"), "nn", None)
    if module_list and nn is not None and isinstance(transforms, nn.ModuleList):
        pass
    elif not isinstance(transforms, Sequence):
        raise TypeError("Argument transforms should be a sequence of callables"
                        + (" or a `nn.ModuleList`" if module_list else ""))
    if not transforms:
        raise ValueError("Pass at least one transform")
    return transforms


def _run_in_turn(transforms, inputs):
    """Each transform on the previous one's output; several inputs are passed unpacked (as
    separate arguments) to every transform, as torchvision's containers pass them."""
    unpack = len(inputs) > 1
    for t in transforms:
        out = t(*inputs)
        inputs = out if unpack else (out,)
    return out


class Compose(Transform):
    """Applies ``transforms`` one after another, as torchvision's Compose.

    A prefix that one batch kernel computes (a crop or resize, a horizontal flip, ToDtype,
    Normalize: see ``_fusion``) can run as that kernel, with the same output bit for bit.

    Args:
        transforms: the transforms (callables); several inputs are passed unpacked to each.
        fuse: keyword-only. ``"auto"`` (the default) fuses chains whose crop or flip is per-sample
            (their images go through the batch kernel anyway, so fusing only removes launches);
            ``True`` fuses every recognised chain; ``False`` runs every transform on its own. For
            one shared draw on large images the separate tiled kernels are faster today (see
            bench/RESULTS.md), hence the default.
    """

    def __init__(self, transforms: Sequence[Callable[..., Any]], *, fuse: Union[bool, str] = "auto") -> None:
        self.transforms = _check_transforms(transforms)
        self._fuse = fuse

    def forward(self, *inputs):
        per_sample = any(getattr(t, "per_sample", False) for t in self.transforms)
        if len(inputs) == 1 and type(inputs[0]) in (list, tuple) and per_sample:
            inputs = (_per_sample.ImageList(inputs[0]),)  # a per-sample pipeline takes a list as a batch
        # "auto" fuses only chains with a per-sample crop, flip or jitter: without any per-sample
        # transform the matching (about 4 µs a call) is skipped.
        if (self._fuse and (per_sample or self._fuse != "auto") and len(inputs) == 1
                and isinstance(self.transforms, (list, tuple)) and not _compiling()):
            out = _fusion.run(self, inputs[0], only_per_sample=self._fuse == "auto")
            if out is not NotImplemented:
                return out
        return _run_in_turn(self.transforms, inputs)

    def extra_repr(self):
        return "\n".join(f"    {t}" for t in self.transforms)


class RandomApply(Compose):
    """Applies all of ``transforms`` in turn with probability ``p``, else returns the input.

    Args:
        transforms: a sequence (or ``nn.ModuleList``) of transforms.
        p: the probability that the transform applies (drawn once per call).
    """

    def __init__(self, transforms: Sequence[Callable[..., Any]], p: float = 0.5) -> None:
        self.transforms = _check_transforms(transforms, module_list=True)
        if not 0.0 <= p <= 1.0:
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def forward(self, *inputs):
        if not _applies(self.p):
            return inputs if len(inputs) > 1 else inputs[0]
        return _run_in_turn(self.transforms, inputs)


class RandomChoice(Transform):
    """Applies one of ``transforms``, drawn with probabilities ``p``.

    Args:
        transforms: a sequence of transforms.
        p: their relative weights (None: equal); normalised to sum to 1.
    """

    def __init__(self, transforms: Sequence[Callable[..., Any]], p: Optional[Sequence[float]] = None) -> None:
        self.transforms = _check_transforms(transforms)
        if p is None:
            p = [1] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}")
        total = sum(p)
        self.p = [x / total for x in p]

    def forward(self, *inputs):
        return self.transforms[_multinomial1(self.p)](*inputs)


class RandomOrder(Compose):
    """Applies ``transforms`` in a random order.

    Args:
        transforms: a sequence of transforms.
    """

    extra_repr = Transform.extra_repr  # torchvision's repr: transforms=[...]

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        self.transforms = _check_transforms(transforms)
        self._fuse = False  # the order changes per call

    def forward(self, *inputs):
        return _run_in_turn([self.transforms[i] for i in _randperm(len(self.transforms))], inputs)


class Lambda(Transform):
    """Calls ``lambd`` on every image of the sample that is an instance of ``types`` (any object by default).

    Differences from torchvision: the function is called on the sample's images only (torchvision's on every leaf).

    Args:
        lambd: the function.
        types: the types it applies to.
    """

    def __init__(self, lambd: Callable[[Any], Any], *types: type) -> None:
        self.lambd = lambd
        self.types = types or (object,)

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        flags = _selected(_leaves(sample, []), lambda x: True, pure=_is_pure_torch)
        return _map_selected(sample, flags, lambda x: self.transform(x, {}))

    def transform(self, inpt, params):
        return self.lambd(inpt) if isinstance(inpt, self.types) else inpt


# ---- geometry ----------------------------------------------------------------------------------
# Every geometric transform moves all images, videos, masks, boxes and keypoints of a sample with
# the same parameters (the functionals dispatch on each leaf's type). `fill` is a number, a
# sequence, None or a dict per tv_tensor type ({tv_tensors.Image: 127, tv_tensors.Mask: 0},
# "others" for the rest), as torchvision's.
class _RandomFlip(_RandomApplied):
    def _sample_batch(self, batch):
        return _per_sample.BatchParams({"applied": _per_sample.sample_coins(self.p, batch)})

    def _apply_batch(self, batch, params):
        return _per_sample.apply_flip(batch, params, self._flip)

    def transform(self, inpt, params):
        return self._flip(inpt)


class RandomHorizontalFlip(_RandomFlip):
    """Flips the sample left to right with probability ``p``
    (:func:`~streamvision.transforms.v2.functional.horizontal_flip`). Geometric: moves every Image, Video, Mask,
    BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        p: the probability that the transform applies (drawn once per call).
    """

    _flip = staticmethod(F.horizontal_flip)


class RandomVerticalFlip(_RandomFlip):
    """Flips the sample upside down with probability ``p``
    (:func:`~streamvision.transforms.v2.functional.vertical_flip`). Geometric: moves every Image, Video, Mask,
    BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        p: the probability that the transform applies (drawn once per call).
    """

    _flip = staticmethod(F.vertical_flip)


class Resize(Transform):
    """Resizes the sample to ``size`` (:func:`~streamvision.transforms.v2.functional.resize`). Geometric: moves
    every Image, Video, Mask, BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        size: ``[height, width]``; or an int / ``[s]``: the shorter edge becomes ``s``; or None with ``max_size``.
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.resize`).
        max_size: the bound of the longer edge when ``size`` is one number.
        antialias: low-pass filter when downscaling (bilinear, bicubic).
    """

    def __init__(self, size: Union[int, Sequence[int], None],
                 interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 max_size: Optional[int] = None, antialias: Optional[bool] = True) -> None:
        self.size = [size] if isinstance(size, int) else (list(size) if size is not None else None)
        self.interpolation, self.max_size, self.antialias = interpolation, max_size, antialias

    def _fixed_output_size(self):
        return self.size is not None and len(self.size) == 2

    def transform(self, inpt, params):
        return F.resize(inpt, self.size, interpolation=self.interpolation, max_size=self.max_size,
                        antialias=self.antialias)


class CenterCrop(Transform):
    """Crops the centre of the sample (zero-padded where the image is smaller). Geometric: moves every Image, Video,
    Mask, BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        size: ``[height, width]`` or an int for a square.
    """

    def __init__(self, size: Size) -> None:
        self.size = _setup_size(size)

    def _fixed_output_size(self):
        return True

    def transform(self, inpt, params):
        return F.center_crop(inpt, self.size)


class _MultiCrop(Transform):
    """FiveCrop and TenCrop: images and videos become tuples of crops. Boxes and masks cannot
    follow (TypeError, as in torchvision); keypoints pass through with torchvision's warning."""

    def check_inputs(self, flat_inputs):
        if any(_sample.kind(x) in ("BoundingBoxes", "Mask") for x in flat_inputs):
            raise TypeError(f"BoundingBoxes'es and Mask's are not supported by {type(self).__name__}()")

    def transform(self, inpt, params):
        if _sample.kind(inpt) == "KeyPoints":
            warnings.warn(f"{type(self).__name__}() is currently passing through inputs of type "
                          "tv_tensors.KeyPoints. This will likely change in the future.")
            return inpt
        return self._crops(inpt)


class FiveCrop(_MultiCrop):
    """The four corners and the centre crop of ``size``: each image or video becomes a tuple of 5. Masks and boxes
    raise TypeError, keypoints pass through (as torchvision).

    Args:
        size: ``[height, width]`` or an int for a square.
    """

    def __init__(self, size: Size) -> None:
        self.size = _setup_size(size)

    def _crops(self, inpt):
        return F.five_crop(inpt, self.size)


class TenCrop(_MultiCrop):
    """:class:`FiveCrop` of the image and of its flipped copy (a tuple of 10).

    Args:
        size: ``[height, width]`` or an int for a square.
        vertical_flip: flip upside down instead of left to right.
    """

    def __init__(self, size: Size, vertical_flip: bool = False) -> None:
        self.size, self.vertical_flip = _setup_size(size), vertical_flip

    def _crops(self, inpt):
        return F.ten_crop(inpt, self.size, vertical_flip=self.vertical_flip)


class Pad(Transform):
    """Pads the sample's borders (:func:`~streamvision.transforms.v2.functional.pad`). Geometric: moves every Image,
    Video, Mask, BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        padding: one number, ``[left/right, top/bottom]`` or ``[left, top, right, bottom]``.
        fill: the value of pixels from outside the image: a number, one per channel, None, or a dict from tv_tensor
            type to fill (e.g. ``{tv_tensors.Image: 127, tv_tensors.Mask: 0}``; ``"others"`` for the rest).
        padding_mode: ``"constant"``, ``"edge"``, ``"reflect"`` or ``"symmetric"``.
    """

    def __init__(self, padding: Size, fill: FillArg = 0, padding_mode: str = "constant") -> None:
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode
        self._fill = _setup_fill(fill)

    def transform(self, inpt, params):
        return F.pad(inpt, self.padding, fill=_get_fill(self._fill, inpt), padding_mode=self.padding_mode)


class RandomCrop(Transform):
    """Crops a random window of ``size``, after optional padding. Geometric: moves every Image, Video, Mask,
    BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        size: ``[height, width]`` or an int for a square.
        padding: padding applied first (as :class:`Pad`), or None.
        pad_if_needed: pad an image smaller than ``size`` up to it.
        fill: the value of pixels from outside the image: a number, one per channel, None, or a dict from tv_tensor
            type to fill (e.g. ``{tv_tensors.Image: 127, tv_tensors.Mask: 0}``; ``"others"`` for the rest).
        padding_mode: as :class:`Pad`'s.
    """

    def __init__(self, size: Size, padding: Optional[Size] = None, pad_if_needed: bool = False, fill: FillArg = 0,
                 padding_mode: str = "constant") -> None:
        self.size = _setup_size(size)
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode
        self._fill = _setup_fill(fill)

    def make_params(self, flat_inputs):
        h, w = _query_size(flat_inputs)
        pad = [0, 0, 0, 0]  # left, top, right, bottom
        if self.padding is not None:
            p = [self.padding] if isinstance(self.padding, int) else list(self.padding)
            pad = p * 4 if len(p) == 1 else (p * 2 if len(p) == 2 else p)
            h, w = h + pad[1] + pad[3], w + pad[0] + pad[2]
        ch, cw = self.size
        if self.pad_if_needed:
            if h < ch:
                diff = ch - h
                pad[1] += diff
                pad[3] += diff
                h += 2 * diff
            if w < cw:
                diff = cw - w
                pad[0] += diff
                pad[2] += diff
                w += 2 * diff
        if h < ch or w < cw:
            raise ValueError(f"Required crop size {(ch, cw)} is larger than input image size {(h, w)}")
        # torchvision draws an offset only along an axis with room to move (and crops only then)
        top = _randint(0, h - ch + 1) if h > ch else 0
        left = _randint(0, w - cw + 1) if w > cw else 0
        return dict(padding=pad if any(pad) else None, crop=h > ch or w > cw, top=top, left=left)

    def _fixed_output_size(self):
        return True

    def transform(self, inpt, params):
        if params["padding"] is not None:
            inpt = F.pad(inpt, params["padding"], fill=_get_fill(self._fill, inpt), padding_mode=self.padding_mode)
        if params["crop"]:
            inpt = F.crop(inpt, params["top"], params["left"], *self.size)
        return inpt


class RandomResizedCrop(Transform):
    """Crops a random window (area fraction in ``scale``, aspect ratio in ``ratio``) and resizes it to ``size``, as
    torchvision draws it. Geometric: moves every Image, Video, Mask, BoundingBoxes and KeyPoints of the sample with
    the same parameters.

    Args:
        size: the output ``[height, width]`` or an int for a square.
        scale: the window's area range, as a fraction of the image's.
        ratio: the window's aspect ratio range (width / height, drawn log-uniformly).
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.resize`).
        antialias: low-pass filter when downscaling.
    """

    def __init__(self, size: Size, scale: Tuple[float, float] = (0.08, 1.0),
                 ratio: Tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0),
                 interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 antialias: Optional[bool] = True) -> None:
        self.size = _setup_size(size)
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("Scale and ratio should be of kind (min, max)")
        self.scale, self.ratio, self.interpolation, self.antialias = scale, ratio, interpolation, antialias

    def make_params(self, flat_inputs):
        height, width = _query_size(flat_inputs)
        area = height * width
        torch = _torch()
        log_ratio = torch.log(torch.tensor(self.ratio)) if torch is not None else (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            target_area = area * _uniform(self.scale[0], self.scale[1])
            if torch is not None:  # float32, exactly as torchvision draws it
                aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
            else:
                aspect = math.exp(random.uniform(log_ratio[0], log_ratio[1]))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return dict(top=_randint(0, height - h + 1), left=_randint(0, width - w + 1), height=h, width=w)
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            h, w = height, int(round(height * max(self.ratio)))
        else:
            w, h = width, height
        return dict(top=(height - h) // 2, left=(width - w) // 2, height=h, width=w)

    def _fixed_output_size(self):
        return True

    def _sample_batch(self, batch):
        return _per_sample.sample_resized_crop(self.scale, self.ratio, batch)

    def _apply_batch(self, batch, params):
        return _per_sample.apply_resized_crop(batch, params, self.size, self.interpolation, self.antialias)

    def transform(self, inpt, params):
        return F.resized_crop(inpt, params["top"], params["left"], params["height"], params["width"], self.size,
                              interpolation=self.interpolation, antialias=self.antialias)


def _degrees(degrees, name="degrees"):
    if isinstance(degrees, numbers.Number):
        if degrees < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        return [-float(degrees), float(degrees)]
    if len(degrees) != 2:
        raise ValueError(f"If {name} is a sequence, it must be of len 2.")
    return [float(d) for d in degrees]


class RandomRotation(Transform):
    """Rotates the sample by an angle drawn uniformly from ``degrees``. Geometric: moves every Image, Video, Mask,
    BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        degrees: ``(min, max)`` degrees, or ``d`` for ``(-d, d)``.
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.rotate`).
        expand: enlarge the output to hold the whole rotated image.
        center: the rotation centre ``[x, y]`` (None: the image's centre).
        fill: the value of pixels from outside the image: a number, one per channel, None, or a dict from tv_tensor
            type to fill (e.g. ``{tv_tensors.Image: 127, tv_tensors.Mask: 0}``; ``"others"`` for the rest).
    """

    def __init__(self, degrees: Range, interpolation: InterpolationLike = InterpolationMode.NEAREST,
                 expand: bool = False, center: Optional[Sequence[float]] = None, fill: FillArg = 0) -> None:
        self.degrees = _degrees(degrees)
        self.interpolation, self.expand, self.center, self.fill = interpolation, expand, center, fill
        self._fill = _setup_fill(fill)

    def make_params(self, flat_inputs):
        return dict(angle=_uniform(self.degrees[0], self.degrees[1]))

    def transform(self, inpt, params):
        return F.rotate(inpt, params["angle"], interpolation=self.interpolation, expand=self.expand,
                        center=self.center, fill=_get_fill(self._fill, inpt))


class RandomAffine(Transform):
    """A random affine transformation (rotation, translation, scale, shear), drawn as torchvision draws it.
    Geometric: moves every Image, Video, Mask, BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        degrees: rotation range ``(min, max)``, or ``d`` for ``(-d, d)``.
        translate: ``(a, b)``: the largest horizontal and vertical shifts as fractions of width and height (None:
            none).
        scale: ``(min, max)`` scale factor range (None: 1).
        shear: ``d``, ``(min, max)`` (x only) or ``(xmin, xmax, ymin, ymax)`` degrees (None: none).
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.affine`).
        fill: the value of pixels from outside the image: a number, one per channel, None, or a dict from tv_tensor
            type to fill (e.g. ``{tv_tensors.Image: 127, tv_tensors.Mask: 0}``; ``"others"`` for the rest).
        center: the centre ``[x, y]`` (None: the image's centre).
    """

    def __init__(self, degrees: Range, translate: Optional[Sequence[float]] = None,
                 scale: Optional[Sequence[float]] = None, shear: Optional[Range] = None,
                 interpolation: InterpolationLike = InterpolationMode.NEAREST, fill: FillArg = 0,
                 center: Optional[Sequence[float]] = None) -> None:
        self.degrees = _degrees(degrees)
        self.translate, self.scale = translate, scale
        if shear is not None:
            shear = list(_degrees(shear, "shear")) if isinstance(shear, numbers.Number) or len(shear) == 2 else list(shear)
        self.shear, self.interpolation, self.fill, self.center = shear, interpolation, fill, center
        self._fill = _setup_fill(fill)

    def make_params(self, flat_inputs):
        h, w = _query_size(flat_inputs)
        angle = _uniform(self.degrees[0], self.degrees[1])
        if self.translate is not None:
            max_dx, max_dy = self.translate[0] * w, self.translate[1] * h
            translate = [int(round(_uniform(-max_dx, max_dx))), int(round(_uniform(-max_dy, max_dy)))]
        else:
            translate = [0, 0]
        scale = _uniform(self.scale[0], self.scale[1]) if self.scale is not None else 1.0
        shear_x = shear_y = 0.0
        if self.shear is not None:
            shear_x = _uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear_y = _uniform(self.shear[2], self.shear[3])
        return dict(angle=angle, translate=translate, scale=scale, shear=[shear_x, shear_y])

    def transform(self, inpt, params):
        return F.affine(inpt, params["angle"], params["translate"], params["scale"], params["shear"],
                        interpolation=self.interpolation, fill=_get_fill(self._fill, inpt), center=self.center)


class RandomPerspective(_RandomApplied):
    """A random perspective transformation with probability ``p``. Geometric: moves every Image, Video, Mask,
    BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        distortion_scale: how far the corners may move, in [0, 1].
        p: the probability that the transform applies (drawn once per call).
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.perspective`).
        fill: the value of pixels from outside the image: a number, one per channel, None, or a dict from tv_tensor
            type to fill (e.g. ``{tv_tensors.Image: 127, tv_tensors.Mask: 0}``; ``"others"`` for the rest).
    """

    def __init__(self, distortion_scale: float = 0.5, p: float = 0.5,
                 interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 fill: FillArg = 0) -> None:
        super().__init__(p)
        if not 0 <= distortion_scale <= 1:
            raise ValueError("Argument distortion_scale value should be between 0 and 1")
        self.distortion_scale, self.interpolation, self.fill = distortion_scale, interpolation, fill
        self._fill = _setup_fill(fill)

    def make_params(self, flat_inputs):
        height, width = _query_size(flat_inputs)
        d = self.distortion_scale
        half_h, half_w = height // 2, width // 2
        bound_h, bound_w = int(d * half_h) + 1, int(d * half_w) + 1
        tl = [_randint(0, bound_w), _randint(0, bound_h)]
        tr = [_randint(width - bound_w, width), _randint(0, bound_h)]
        br = [_randint(width - bound_w, width), _randint(height - bound_h, height)]
        bl = [_randint(0, bound_w), _randint(height - bound_h, height)]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return dict(startpoints=start, endpoints=[tl, tr, br, bl])

    def transform(self, inpt, params):
        return F.perspective(inpt, params["startpoints"], params["endpoints"], interpolation=self.interpolation,
                             fill=_get_fill(self._fill, inpt))


class ElasticTransform(Transform):
    """An elastic deformation: a random displacement field (drawn with torch on the host, then blurred, as
    torchvision) applied with :func:`~streamvision.transforms.v2.functional.elastic`. Geometric: moves every Image,
    Video, Mask, BoundingBoxes and KeyPoints of the sample with the same parameters.

    Args:
        alpha: the displacement's magnitude (one number or per axis).
        sigma: the smoothing of the field (one number or per axis).
        interpolation: the interpolation mode (see :func:`~streamvision.transforms.v2.functional.elastic`).
        fill: the value of pixels from outside the image: a number, one per channel, None, or a dict from tv_tensor
            type to fill (e.g. ``{tv_tensors.Image: 127, tv_tensors.Mask: 0}``; ``"others"`` for the rest).
    """

    def __init__(self, alpha: Range = 50.0, sigma: Range = 5.0,
                 interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 fill: FillArg = 0) -> None:
        self.alpha = [float(alpha)] * 2 if isinstance(alpha, numbers.Number) else [float(a) for a in alpha]
        self.sigma = [float(sigma)] * 2 if isinstance(sigma, numbers.Number) else [float(s) for s in sigma]
        self.interpolation, self.fill = interpolation, fill
        self._fill = _setup_fill(fill)

    def make_params(self, flat_inputs):
        torch = _torch()
        if torch is None:
            raise RuntimeError("ElasticTransform draws its displacement field with torch")
        h, w = _query_size(flat_inputs)
        fields = []
        for axis, size in ((0, w), (1, h)):
            d = torch.rand([1, 1, h, w]) * 2 - 1
            if self.sigma[axis] > 0.0:
                k = int(8 * self.sigma[axis] + 1)
                k += 1 - k % 2
                d = F.gaussian_blur(d, [k, k], list(self.sigma))  # both sigmas for each field, as torchvision
            fields.append(d * self.alpha[axis] / size)
        displacement = torch.concat(fields, 1).permute([0, 2, 3, 1])
        return dict(displacement=displacement)

    def transform(self, inpt, params):
        displacement = params["displacement"]
        if hasattr(inpt, "device") and str(getattr(inpt, "device", "cpu")) != "cpu" and hasattr(displacement, "to"):
            displacement = displacement.to(inpt.device, non_blocking=True)
        return F.elastic(inpt, displacement, interpolation=self.interpolation, fill=_get_fill(self._fill, inpt))


# ---- colour ------------------------------------------------------------------------------------
class ColorJitter(Transform):
    """Changes brightness, contrast, saturation and hue by random factors, in a random order. Photometric: changes
    Images and Videos (and the plain image); masks, boxes and keypoints pass through.

    Args:
        brightness: ``f`` for ``[max(0, 1 - f), 1 + f]`` or ``(min, max)``; None: unchanged.
        contrast: as ``brightness``.
        saturation: as ``brightness``.
        hue: ``f`` for ``[-f, f]`` or ``(min, max)``, within [-0.5, 0.5]; None: unchanged.
    """

    def __init__(self, brightness: Optional[Range] = None, contrast: Optional[Range] = None,
                 saturation: Optional[Range] = None, hue: Optional[Range] = None) -> None:
        self.brightness = _setup_range(brightness, "brightness") if brightness is not None else None
        self.contrast = _setup_range(contrast, "contrast") if contrast is not None else None
        self.saturation = _setup_range(saturation, "saturation") if saturation is not None else None
        self.hue = _setup_range(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False) if hue is not None else None

    def _ranges(self):
        return (self.brightness, self.contrast, self.saturation, self.hue)

    def _sample_batch(self, batch):
        return _per_sample.sample_color_jitter(self._ranges(), batch)

    def _apply_batch(self, batch, params):
        return _per_sample.apply_color_jitter(batch, params, self._ranges())

    def make_params(self, images):
        pick = lambda r: None if r is None else _uniform(r[0], r[1])  # noqa: E731
        return dict(order=_randperm(4), b=pick(self.brightness), c=pick(self.contrast), s=pick(self.saturation),
                    h=pick(self.hue))

    def transform(self, image, params):
        for i in params["order"]:
            if i == 0 and params["b"] is not None:
                image = F.adjust_brightness(image, params["b"])
            elif i == 1 and params["c"] is not None:
                image = F.adjust_contrast(image, params["c"])
            elif i == 2 and params["s"] is not None:
                image = F.adjust_saturation(image, params["s"])
            elif i == 3 and params["h"] is not None:
                image = F.adjust_hue(image, params["h"])
        return image


class Grayscale(Transform):
    """Converts RGB images to grayscale. Photometric: changes Images and Videos (and the plain image); masks, boxes
    and keypoints pass through.

    Args:
        num_output_channels: 1, or 3 (the gray value repeated).
    """

    def __init__(self, num_output_channels: int = 1) -> None:
        self.num_output_channels = num_output_channels

    def transform(self, image, params):
        return F.rgb_to_grayscale(image, num_output_channels=self.num_output_channels)


class RandomGrayscale(_RandomApplied):
    """Converts images to grayscale (keeping their channel count) with probability ``p``. Photometric: changes
    Images and Videos (and the plain image); masks, boxes and keypoints pass through.

    Args:
        p: the probability that the transform applies (drawn once per call).
    """

    def __init__(self, p: float = 0.1) -> None:
        super().__init__(p)

    def transform(self, image, params):
        return F.rgb_to_grayscale(image, num_output_channels=F.get_num_channels(image))


class GaussianBlur(Transform):
    """Blurs with a Gaussian kernel whose sigma is drawn uniformly from ``sigma``. Photometric: changes Images and
    Videos (and the plain image); masks, boxes and keypoints pass through.

    Args:
        kernel_size: ``[kx, ky]`` or an int; odd and positive.
        sigma: ``(min, max)`` or a fixed sigma.
    """

    def __init__(self, kernel_size: Size, sigma: Range = (0.1, 2.0)) -> None:
        self.kernel_size = _setup_size(kernel_size, "kernel_size")
        for k in self.kernel_size:
            if k <= 0 or k % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        self.sigma = [float(sigma)] * 2 if isinstance(sigma, numbers.Number) else [float(s) for s in sigma]
        if not 0.0 < self.sigma[0] <= self.sigma[1]:
            raise ValueError("sigma values should be positive and of the form (min, max).")

    def make_params(self, images):
        s = _uniform(self.sigma[0], self.sigma[1])
        return dict(sigma=[s, s])

    def transform(self, image, params):
        return F.gaussian_blur(image, self.kernel_size, params["sigma"])


class GaussianNoise(Transform):
    """Adds Gaussian noise (:func:`~streamvision.transforms.v2.functional.gaussian_noise`). Photometric: changes
    Images and Videos (and the plain image); masks, boxes and keypoints pass through.

    Args:
        mean: the noise's mean.
        sigma: its standard deviation.
        clip: clamp the result to the dtype's range.
    """

    _random_without_params = True  # the noise itself

    def __init__(self, mean: float = 0.0, sigma: float = 0.1, clip: bool = True) -> None:
        self.mean, self.sigma, self.clip = mean, sigma, clip

    def transform(self, image, params):
        return F.gaussian_noise(image, mean=self.mean, sigma=self.sigma, clip=self.clip)


class RandomInvert(_RandomApplied):
    """Inverts images with probability ``p``. Photometric: changes Images and Videos (and the plain image); masks,
    boxes and keypoints pass through.

    Args:
        p: the probability that the transform applies (drawn once per call).
    """

    def transform(self, image, params):
        return F.invert(image)


class RandomPosterize(_RandomApplied):
    """Posterizes images to ``bits`` bits with probability ``p``. Photometric: changes Images and Videos (and the
    plain image); masks, boxes and keypoints pass through.

    Args:
        bits: the bits kept.
        p: the probability that the transform applies (drawn once per call).
    """

    def __init__(self, bits: int, p: float = 0.5) -> None:
        super().__init__(p)
        self.bits = bits

    def transform(self, image, params):
        return F.posterize(image, self.bits)


class RandomSolarize(_RandomApplied):
    """Solarizes images (inverts values at or above ``threshold``) with probability ``p``. Photometric: changes
    Images and Videos (and the plain image); masks, boxes and keypoints pass through.

    Args:
        threshold: the threshold, in the dtype's value range.
        p: the probability that the transform applies (drawn once per call).
    """

    def __init__(self, threshold: float, p: float = 0.5) -> None:
        super().__init__(p)
        self.threshold = threshold

    def transform(self, image, params):
        return F.solarize(image, self.threshold)


class RandomAutocontrast(_RandomApplied):
    """Autocontrasts images with probability ``p``. Photometric: changes Images and Videos (and the plain image);
    masks, boxes and keypoints pass through.

    Args:
        p: the probability that the transform applies (drawn once per call).
    """

    def transform(self, image, params):
        return F.autocontrast(image)


class RandomEqualize(_RandomApplied):
    """Equalizes images' histograms with probability ``p``. Photometric: changes Images and Videos (and the plain
    image); masks, boxes and keypoints pass through.

    Args:
        p: the probability that the transform applies (drawn once per call).
    """

    def transform(self, image, params):
        return F.equalize(image)


class RandomAdjustSharpness(_RandomApplied):
    """Adjusts sharpness by ``sharpness_factor`` with probability ``p``. Photometric: changes Images and Videos (and
    the plain image); masks, boxes and keypoints pass through.

    Args:
        sharpness_factor: 0 smooths, 1 keeps, 2 sharpens.
        p: the probability that the transform applies (drawn once per call).
    """

    def __init__(self, sharpness_factor: float, p: float = 0.5) -> None:
        super().__init__(p)
        self.sharpness_factor = sharpness_factor

    def transform(self, image, params):
        return F.adjust_sharpness(image, self.sharpness_factor)


class RandomErasing(_RandomApplied):
    """Erases a random rectangle of each image with probability ``p``, as torchvision draws it. Photometric: changes
    Images and Videos (and the plain image); masks, boxes and keypoints pass through.

    Args:
        p: the probability that the transform applies (drawn once per call).
        scale: the rectangle's area range, as a fraction of the image's.
        ratio: its aspect ratio range.
        value: a number, one per channel, or ``"random"`` (standard normal noise, drawn with torch).
        inplace: write into the input.
    """

    def __init__(self, p: float = 0.5, scale: Tuple[float, float] = (0.02, 0.33),
                 ratio: Tuple[float, float] = (0.3, 3.3),
                 value: Union[float, Sequence[float], str] = 0.0, inplace: bool = False) -> None:
        super().__init__(p)
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("Scale and ratio should be of kind (min, max)")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        self.scale, self.ratio, self.inplace = scale, ratio, inplace
        if isinstance(value, (int, float)):
            self.value = [float(value)]
        elif isinstance(value, str):
            self.value = None
        else:
            self.value = [float(v) for v in value]

    def make_params(self, images):
        torch = _torch()
        c, h, w = _dims(images[0])
        if self.value is not None and len(self.value) not in (1, c):
            raise ValueError(f"If value is a sequence, it should have either a single value or {c} (number of inpt channels)")
        area = h * w
        # torchvision draws in float32 from torch's generator; do the same for the same numbers.
        if torch is not None:
            log_ratio = torch.log(torch.tensor(self.ratio))
        for _ in range(10):
            if torch is not None:
                erase_area = area * torch.empty(1).uniform_(self.scale[0], self.scale[1]).item()
                aspect = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1])).item()
            else:
                erase_area = area * random.uniform(*self.scale)
                aspect = math.exp(random.uniform(math.log(self.ratio[0]), math.log(self.ratio[1])))
            eh, ew = int(round(math.sqrt(erase_area * aspect))), int(round(math.sqrt(erase_area / aspect)))
            if not (eh < h and ew < w):
                continue
            if self.value is None:
                if torch is None:
                    raise RuntimeError("RandomErasing(value='random') draws its noise with torch")
                v = torch.empty([c, eh, ew], dtype=torch.float32).normal_()
            else:
                v = self.value
            return dict(i=_randint(0, h - eh + 1), j=_randint(0, w - ew + 1), h=eh, w=ew, v=v)
        return dict(i=0, j=0, h=h, w=w, v=None)

    def transform(self, image, params):
        if params["v"] is None:
            return image  # no window fitted: torchvision returns the input unchanged
        torch = _torch()
        v = params["v"]
        if torch is not None and isinstance(image, torch.Tensor):
            v = torch.as_tensor(v, dtype=image.dtype).to(image.device, non_blocking=True)
            if v.ndim == 1:
                v = v[:, None, None]
        else:
            import numpy as np

            v = np.asarray(v, dtype=np.asarray(image).dtype)
            if v.ndim == 1:
                v = v[:, None, None]
        return F.erase(image, params["i"], params["j"], params["h"], params["w"], v, inplace=self.inplace)


# ---- conversion --------------------------------------------------------------------------------
class ToDtype(Transform):
    """Converts images to ``dtype`` (:func:`~streamvision.transforms.v2.functional.to_dtype`); other tv_tensors are
    cast without scaling.

    Args:
        dtype: the dtype (torch, numpy or streamvision dtype, or its name).
        scale: map the value range to the new dtype's.
    """

    def __init__(self, dtype: DTypeLike, scale: bool = False) -> None:
        self.dtype, self.scale = dtype, scale

    def transform(self, image, params):
        return F.to_dtype(image, self.dtype, scale=self.scale)


class Normalize(Transform):
    """Normalizes float images per channel: ``(x - mean[c]) / std[c]``. Photometric: changes Images and Videos (and
    the plain image); masks, boxes and keypoints pass through.

    Args:
        mean: one value per channel.
        std: one value per channel.
        inplace: write into the input.
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        self.mean, self.std, self.inplace = list(mean), list(std), inplace

    def transform(self, image, params):
        return F.normalize(image, self.mean, self.std, inplace=self.inplace)


for _photometric in (ColorJitter, Grayscale, RandomGrayscale, GaussianBlur, GaussianNoise, RandomInvert, RandomPosterize,
                     RandomSolarize, RandomAutocontrast, RandomEqualize, RandomAdjustSharpness, RandomErasing, ToDtype,
                     Normalize, Lambda):
    _photometric._passes_through_tv_tensors = True
