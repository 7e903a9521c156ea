"""The learned and random augmentation policies (torchvision's AutoAugment, RandAugment,
TrivialAugmentWide, AugMix) on streamvision's kernels.

Each policy is a choice of ops and magnitudes, then a chain of ordinary functional ops (shear and
translate are F.affine, the rest F.rotate, F.adjust_*, F.posterize, ...). The ops draw no random
numbers, so make_params draws every choice up front, in the order torchvision draws them while it
applies the ops (same seed, same chain), and transform only applies the chain. Magnitude tables
are built as torchvision builds them (torch.linspace in float32 when torch is loaded) so that a
bin holds the same number.

The policies are defined for one image or video per sample: no image, several, or boxes, masks
and keypoints (the ops would not move them) raise TypeError, as in torchvision.
"""

from __future__ import annotations

import enum
import math
import numbers

from . import functional as F
from ._interpolation import InterpolationMode
from ._transforms import FillArg
from ..._typing import InterpolationLike
from typing import Union
from ._transforms import (Transform, _coin, _dims, _leaves, _randint, _require_torch, _targets, _torch,
                          _tv_tensors)

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]


class AutoAugmentPolicy(enum.Enum):
    """The datasets AutoAugment's policies were learned on (torchvision's values; its own enum is
    accepted too)."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# ---- arguments ---------------------------------------------------------------------------------
_PIL_CODES = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
              4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}


def _check_interpolation(mode):
    """Our InterpolationMode for ours, torchvision's, or a PIL integer code."""
    if isinstance(mode, int) and not isinstance(mode, bool):
        return _PIL_CODES[mode]
    if isinstance(mode, enum.Enum) and mode.value in {m.value for m in InterpolationMode}:
        return InterpolationMode(mode.value)
    raise ValueError("Argument interpolation should be an `InterpolationMode` or a corresponding Pillow integer "
                     f"constant, but got {mode}.")


def _check_fill(fill):
    if isinstance(fill, dict):
        for v in fill.values():
            _check_fill(v)
    elif fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg, only Numbers, tuples, lists and dicts are allowed.")


def _setup_fill(fill):
    """torchvision's fill argument as a dict {input type or "others": fill}."""
    _check_fill(fill)
    convert = lambda f: f if f is None or isinstance(f, (int, float)) else [float(v) for v in f]  # noqa: E731
    if isinstance(fill, dict):
        return {k: convert(v) for k, v in fill.items()}
    return {"others": convert(fill)}


def _fill_for(fills, kind):
    return fills[kind] if kind in fills else fills.get("others")


# ---- magnitude tables --------------------------------------------------------------------------
def _linspace(start, end, steps):
    torch = _torch()
    if torch is not None:  # float32 values, as torchvision's tables hold them
        return torch.linspace(start, end, steps).tolist()
    return [start + (end - start) * i / (steps - 1) for i in range(steps)] if steps > 1 else [float(start)][:steps]


def _up_to(hi):
    return lambda bins, height, width: _linspace(0.0, hi, bins)


def _bits(top, span):
    """Posterize's bit counts, top - i / ((bins - 1) / span), rounded half to even."""
    def table(bins, height, width):
        torch = _torch()
        if torch is not None:
            return (top - torch.arange(bins) / ((bins - 1) / span)).round().int().tolist()
        return [round(top - i / ((bins - 1) / span)) for i in range(bins)]
    return table


_SOLARIZE = (lambda bins, height, width: _linspace(1.0, 0.0, bins), False)
_NO_MAGNITUDE = (None, False)
# op -> (magnitude table (bins, height, width) -> values, or None; whether the sign is drawn).
# The order of each table is the order torchvision draws ops from.
_AUTO_AUGMENT_OPS = {
    "ShearX": (_up_to(0.3), True),
    "ShearY": (_up_to(0.3), True),
    "TranslateX": (lambda bins, height, width: _linspace(0.0, 150.0 / 331.0 * width, bins), True),
    "TranslateY": (lambda bins, height, width: _linspace(0.0, 150.0 / 331.0 * height, bins), True),
    "Rotate": (_up_to(30.0), True),
    "Brightness": (_up_to(0.9), True),
    "Color": (_up_to(0.9), True),
    "Contrast": (_up_to(0.9), True),
    "Sharpness": (_up_to(0.9), True),
    "Posterize": (_bits(8, 4), False),
    "Solarize": _SOLARIZE,
    "AutoContrast": _NO_MAGNITUDE,
    "Equalize": _NO_MAGNITUDE,
    "Invert": _NO_MAGNITUDE,
}
_RAND_AUGMENT_OPS = {"Identity": _NO_MAGNITUDE, **{k: v for k, v in _AUTO_AUGMENT_OPS.items() if k != "Invert"}}
_TRIVIAL_AUGMENT_OPS = {
    "Identity": _NO_MAGNITUDE,
    "ShearX": (_up_to(0.99), True),
    "ShearY": (_up_to(0.99), True),
    "TranslateX": (_up_to(32.0), True),
    "TranslateY": (_up_to(32.0), True),
    "Rotate": (_up_to(135.0), True),
    "Brightness": (_up_to(0.99), True),
    "Color": (_up_to(0.99), True),
    "Contrast": (_up_to(0.99), True),
    "Sharpness": (_up_to(0.99), True),
    "Posterize": (_bits(8, 6), False),
    "Solarize": _SOLARIZE,
    "AutoContrast": _NO_MAGNITUDE,
    "Equalize": _NO_MAGNITUDE,
}
_AUGMIX_GEOMETRY_OPS = {
    "ShearX": (_up_to(0.3), True),
    "ShearY": (_up_to(0.3), True),
    "TranslateX": (lambda bins, height, width: _linspace(0.0, width / 3.0, bins), True),
    "TranslateY": (lambda bins, height, width: _linspace(0.0, height / 3.0, bins), True),
    "Rotate": (_up_to(30.0), True),
    "Posterize": (_bits(4, 4), False),
    "Solarize": _SOLARIZE,
    "AutoContrast": _NO_MAGNITUDE,
    "Equalize": _NO_MAGNITUDE,
}
_AUGMIX_OPS = {**_AUGMIX_GEOMETRY_OPS,
               **{k: _AUTO_AUGMENT_OPS[k] for k in ("Brightness", "Color", "Contrast", "Sharpness")}}


# ---- the ops -----------------------------------------------------------------------------------
_MAX_VALUES = {"uint8": 255, "int8": 127, "int16": 32767, "uint16": 65535, "int32": 2**31 - 1, "int64": 2**63 - 1}


def _max_value(image):
    """The value range's top for Solarize's threshold: torchvision's table (1 for floats and for
    the integer types it does not list)."""
    return _MAX_VALUES.get(str(image.dtype).rsplit(".", 1)[-1], 1)


def _apply_op(image, op, magnitude, interpolation, fill):
    if op == "Identity":
        return image
    if op in ("ShearX", "ShearY"):
        # torchvision shears by atan(magnitude) degrees about the top-left corner
        angle = math.degrees(math.atan(magnitude))
        return F.affine(image, angle=0.0, translate=[0, 0], scale=1.0,
                        shear=[angle, 0.0] if op == "ShearX" else [0.0, angle],
                        interpolation=interpolation, fill=fill, center=[0, 0])
    if op in ("TranslateX", "TranslateY"):
        return F.affine(image, angle=0.0, translate=[int(magnitude), 0] if op == "TranslateX" else [0, int(magnitude)],
                        scale=1.0, shear=[0.0, 0.0], interpolation=interpolation, fill=fill)
    if op == "Rotate":
        return F.rotate(image, magnitude, interpolation=interpolation, fill=fill)
    if op == "Brightness":
        return F.adjust_brightness(image, 1.0 + magnitude)
    if op == "Color":
        return F.adjust_saturation(image, 1.0 + magnitude)
    if op == "Contrast":
        return F.adjust_contrast(image, 1.0 + magnitude)
    if op == "Sharpness":
        return F.adjust_sharpness(image, 1.0 + magnitude)
    if op == "Posterize":
        return F.posterize(image, int(magnitude))
    if op == "Solarize":
        return F.solarize(image, _max_value(image) * magnitude)
    if op == "AutoContrast":
        return F.autocontrast(image)
    if op == "Equalize":
        return F.equalize(image)
    if op == "Invert":
        return F.invert(image)
    raise ValueError(f"No transform available for {op}")


def _magnitude(space, op, bins, height, width, index=None):
    """The op's magnitude from its table, at `index` (drawn from the bins when None), with a
    drawn sign for signed ops; 0.0 for ops without one. Draws in torchvision's order."""
    table, signed = space[op]
    if table is None:
        return 0.0
    values = table(bins, height, width)
    magnitude = float(values[_randint(0, bins) if index is None else index])
    if signed and _coin(0.5, inclusive=True):
        magnitude = -magnitude
    return magnitude


def _pick(space):
    keys = tuple(space)
    return keys[_randint(0, len(keys))]


# ---- the transforms ----------------------------------------------------------------------------
class _AutoAugmentBase(Transform):
    """make_params draws the chain of (op, magnitude) for the sample's one image; transform
    applies it."""

    _passes_through_tv_tensors = True  # checked in __call__: they make these transforms raise

    def __init__(self, *, interpolation: InterpolationLike = InterpolationMode.NEAREST, fill: FillArg = None) -> None:
        self.interpolation = _check_interpolation(interpolation)
        self.fill = fill
        self._fill = _setup_fill(fill)

    def forward(self, *inputs):
        leaves = _leaves(inputs if len(inputs) > 1 else inputs[0], [])
        tv = _tv_tensors()
        if tv is not None:
            unsupported = tuple(getattr(tv, n) for n in ("BoundingBoxes", "Mask", "KeyPoints") if hasattr(tv, n))
            for x in leaves:
                if isinstance(x, unsupported):
                    raise TypeError(f"Inputs of type {type(x).__name__} are not supported by {type(self).__name__}()")
        images = _targets(self, leaves)
        if not images:
            raise TypeError("Found no image in the sample.")
        if len(images) > 1:
            raise TypeError("Auto augment transformations are only properly defined for a single image or video, "
                            f"but found {len(images)}.")
        return super().forward(*inputs)

    def make_params(self, images):
        _, height, width = _dims(images[0])
        return dict(chain=self._draw_chain(height, width), fill=_fill_for(self._fill, type(images[0])))

    def transform(self, inpt, params):
        for op, magnitude in params["chain"]:
            inpt = _apply_op(inpt, op, magnitude, self.interpolation, params["fill"])
        return inpt


class AutoAugment(_AutoAugmentBase):
    """AutoAugment: one of ``policy``'s sub-policies (two ops with probabilities and magnitudes), drawn per call.

    Args:
        policy: the :class:`AutoAugmentPolicy` (or torchvision's).
        interpolation: ``NEAREST`` or ``BILINEAR``.
        fill: as for the geometric transforms (a number, one per channel, None or a dict per tv_tensor type).
    """

    _AUGMENTATION_SPACE = _AUTO_AUGMENT_OPS
    # (op, probability, magnitude bin) pairs of the AutoAugment paper's policies
    _POLICIES = {
        "imagenet": [
            (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
            (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
            (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
            (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
            (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
            (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
            (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
            (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
            (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
            (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
            (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
            (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
            (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
        ],
        "cifar10": [
            (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
            (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
            (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
            (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
            (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
            (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
            (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
            (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
            (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
            (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
            (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
            (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
            (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None)),
        ],
        "svhn": [
            (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
            (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
            (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
            (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
            (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
            (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
            (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
            (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
            (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
            (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
            (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
            (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
            (("ShearX", 0.7, 2), ("Invert", 0.1, None)),
        ],
    }

    def __init__(self, policy: Union[AutoAugmentPolicy, enum.Enum, str] = AutoAugmentPolicy.IMAGENET,
                 interpolation: InterpolationLike = InterpolationMode.NEAREST, fill: FillArg = None) -> None:
        super().__init__(interpolation=interpolation, fill=fill)
        self.policy = policy
        value = policy.value if isinstance(policy, enum.Enum) and type(policy).__name__ == "AutoAugmentPolicy" else None
        if value not in self._POLICIES:
            raise ValueError(f"The provided policy {policy} is not recognized.")
        self._policies = self._POLICIES[value]

    def _draw_chain(self, height, width):
        chain = []
        for op, probability, index in self._policies[_randint(0, len(self._policies))]:
            if _coin(probability, inclusive=True):
                chain.append((op, _magnitude(self._AUGMENTATION_SPACE, op, 10, height, width, index)))
        return chain


class RandAugment(_AutoAugmentBase):
    """RandAugment: ``num_ops`` random ops of magnitude ``magnitude`` (of ``num_magnitude_bins``).

    Args:
        num_ops: the number of ops applied.
        magnitude: the magnitude bin.
        num_magnitude_bins: the number of bins.
        interpolation: ``NEAREST`` or ``BILINEAR``.
        fill: as for the geometric transforms.
    """

    _AUGMENTATION_SPACE = _RAND_AUGMENT_OPS

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation: InterpolationLike = InterpolationMode.NEAREST, fill: FillArg = None) -> None:
        super().__init__(interpolation=interpolation, fill=fill)
        if not isinstance(num_ops, int) or num_ops < 0:
            raise ValueError(f"num_ops should be a non-negative integer, but got {num_ops} instead.")
        self.num_ops, self.magnitude, self.num_magnitude_bins = num_ops, magnitude, num_magnitude_bins

    def _draw_chain(self, height, width):
        chain = []
        for _ in range(self.num_ops):
            op = _pick(self._AUGMENTATION_SPACE)
            chain.append((op, _magnitude(self._AUGMENTATION_SPACE, op, self.num_magnitude_bins, height, width,
                                         self.magnitude)))
        return chain


class TrivialAugmentWide(_AutoAugmentBase):
    """TrivialAugment Wide: one random op with a random magnitude.

    Args:
        num_magnitude_bins: the number of magnitude bins.
        interpolation: ``NEAREST`` or ``BILINEAR``.
        fill: as for the geometric transforms.
    """

    _AUGMENTATION_SPACE = _TRIVIAL_AUGMENT_OPS

    def __init__(self, num_magnitude_bins: int = 31, interpolation: InterpolationLike = InterpolationMode.NEAREST,
                 fill: FillArg = None) -> None:
        super().__init__(interpolation=interpolation, fill=fill)
        self.num_magnitude_bins = num_magnitude_bins

    def _draw_chain(self, height, width):
        op = _pick(self._AUGMENTATION_SPACE)
        return [(op, _magnitude(self._AUGMENTATION_SPACE, op, self.num_magnitude_bins, height, width))]


class AugMix(_AutoAugmentBase):
    """AugMix: ``mixture_width`` chains of random ops, mixed with Dirichlet weights and blended with the original by
    a Beta weight, per image of a batch. The mixing is torch arithmetic on the image's device (numpy images go
    through torch.from_numpy), so AugMix needs torch.

    Args:
        severity: the ops' magnitude (1 to 10).
        mixture_width: the number of chains.
        chain_depth: ops per chain (-1: random, 1 to 3).
        alpha: the Dirichlet and Beta parameter.
        all_ops: include the colour ops that overlap ImageNet-C's corruptions.
        interpolation: ``NEAREST`` or ``BILINEAR``.
        fill: as for the geometric transforms.
    """

    _PARTIAL_AUGMENTATION_SPACE = _AUGMIX_GEOMETRY_OPS
    _AUGMENTATION_SPACE = _AUGMIX_OPS
    _PARAMETER_MAX = 10

    def __init__(self, severity: int = 3, mixture_width: int = 3, chain_depth: int = -1, alpha: float = 1.0,
                 all_ops: bool = True, interpolation: InterpolationLike = InterpolationMode.BILINEAR,
                 fill: FillArg = None) -> None:
        _require_torch("AugMix")
        super().__init__(interpolation=interpolation, fill=fill)
        if not 1 <= severity <= self._PARAMETER_MAX:
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got {severity} instead.")
        self.severity, self.mixture_width, self.chain_depth, self.alpha, self.all_ops = (
            severity, mixture_width, chain_depth, alpha, all_ops)

    def _sample_dirichlet(self, params):
        return _require_torch("AugMix")._sample_dirichlet(params)

    def make_params(self, images):
        torch = _require_torch("AugMix")
        image = images[0]
        tv = _tv_tensors()
        batch_ndim = 5 if tv is not None and isinstance(image, tv.Video) else 4
        batch_size = image.shape[0] if len(image.shape) >= batch_ndim else 1
        device = image.device if isinstance(image, torch.Tensor) else "cpu"
        _, height, width = _dims(image)
        # the original's Beta weight (column 0) and the chains' Dirichlet weights times the Beta's other column
        beta = self._sample_dirichlet(torch.tensor([self.alpha, self.alpha], device=device).expand(batch_size, -1))
        weights = self._sample_dirichlet(torch.tensor([self.alpha] * self.mixture_width, device=device)
                                         .expand(batch_size, -1)) * beta[:, 1].reshape([batch_size, -1])
        space = self._AUGMENTATION_SPACE if self.all_ops else self._PARTIAL_AUGMENTATION_SPACE
        chains = []
        for _ in range(self.mixture_width):
            depth = self.chain_depth if self.chain_depth > 0 else _randint(1, 4)
            chain = []
            for _ in range(depth):
                op = _pick(space)
                table, signed = space[op]
                # the bin is drawn from the first `severity` of _PARAMETER_MAX bins
                index = None if table is None else _randint(0, self.severity)
                chain.append((op, _magnitude(space, op, self._PARAMETER_MAX, height, width, index)))
            chains.append(chain)
        # torchvision looks the fill up for the batch it builds, a plain tensor
        return dict(beta=beta, weights=weights, chains=chains, batch_ndim=batch_ndim,
                    fill=_fill_for(self._fill, torch.Tensor))

    def transform(self, inpt, params):
        torch = _require_torch("AugMix")
        numpy_input = not isinstance(inpt, torch.Tensor)
        image = torch.from_numpy(inpt) if numpy_input else inpt
        shape = list(image.shape)
        batch = image.reshape([1] * max(params["batch_ndim"] - image.ndim, 0) + shape)
        weight_shape = [batch.shape[0]] + [1] * (batch.ndim - 1)
        mix = params["beta"][:, 0].reshape(weight_shape) * batch
        for i, chain in enumerate(params["chains"]):
            aug = batch
            for op, magnitude in chain:
                aug = _apply_op(aug, op, magnitude, self.interpolation, params["fill"])
            mix.add_(params["weights"][:, i].reshape(weight_shape) * aug)
        out = mix.reshape(shape).to(dtype=image.dtype)
        return out.numpy() if numpy_input else out
