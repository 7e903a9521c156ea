"""The non-geometric functionals on torchvision's tv_tensors, dispatched as torchvision dispatches
them: an Image or Video runs the image kernel and keeps its type; a Mask, BoundingBoxes or
KeyPoints is refused with torchvision's TypeError (never silently treated as an image), except by
to_dtype, which converts every tv_tensor (without scaling the non-images, as torchvision does).
Anything else goes to the kernel as it is."""

from __future__ import annotations

import functools
import sys
from typing import Callable, Optional, Sequence, TypeVar, Union

from . import _kernels
from ._dispatch import plain, plain_types
from ._forwarding import Parameters, make
from ...._C import Generator
from ...._docs import op_doc
from ...._typing import DTypeLike, ImageLike, ImageT, StreamLike

_F = TypeVar("_F", bound=Callable[..., object])

_IMAGE_AND_VIDEO = ("Image", "Video")


def _tv_tensors():
    return sys.modules.get("torchvision.tv_tensors")  # tv_tensors exist only once torchvision is imported


def _dispatching(kinds=_IMAGE_AND_VIDEO) -> Callable[[_F], _F]:
    """Decorator: the functional whose signature and docstring are the decorated function's (which
    has no body of its own) and which calls the _kernels function of its name."""
    return lambda signature: _dispatching_functional(signature, kinds)


def _dispatching_functional(signature, kinds):
    name = signature.__name__
    params = Parameters(signature)
    assert params.positional[0] == "inpt", name
    rest = params.call(skip_first=True)
    # Plain inputs (their type looked up first: a function call less) call the kernel with the
    # arguments as given; a tv_tensor goes to _on_tv_tensor with the kernel call for its plain tensor.
    body = ["    if type(inpt) in _plain_types or _plain(inpt):",
            f"        return _kernel({params.call()})",
            f"    return _on_tv_tensor(inpt, lambda x: _kernel(x, {rest}))"]
    functional = make(name, params, body, dict(_plain_types=plain_types, _plain=plain, _kernel=getattr(_kernels, name),
                                               _on_tv_tensor=functools.partial(_on_tv_tensor, name, kinds)))
    return functools.update_wrapper(functional, signature)


def _on_tv_tensor(name, kinds, inpt, image):
    """image(plain tensor) for the tv_tensor kinds the functional takes, with inpt's type put back;
    torchvision's TypeError for the others."""
    tv = _tv_tensors()
    if isinstance(inpt, tuple(getattr(tv, k) for k in kinds)):
        return tv.wrap(image(inpt.as_subclass(sys.modules["torch"].Tensor)), like=inpt)
    raise TypeError(f"Functional F.{name} supports inputs of type {', '.join(kinds)} and plain tensors, "
                    f"but got {type(inpt).__name__}")


def _to_dtype(signature: _F) -> _F:
    params = Parameters(signature)
    rest = params.call(skip_first=True)
    # A plain torch tensor that already has the (torch) dtype asked for, no stream given: the input
    # itself, as the kernel and torchvision return it, without the call (not while torch.compile
    # traces: there the custom op returns a copy, see _kernels).
    body = ["    torch = _modules.get('torch')",
            "    if (torch is not None and type(inpt) is torch.Tensor and stream is None and dtype is inpt.dtype",
            "            and not torch.compiler.is_compiling()):",
            "        return inpt",
            "    if type(inpt) in _plain_types or _plain(inpt):",
            f"        return _kernel({params.call()})",
            f"    return _to_dtype_tv_tensor(inpt, dtype, lambda x: _kernel(x, {rest}))"]
    functional = make("to_dtype", params, body, dict(_modules=sys.modules, _plain_types=plain_types, _plain=plain,
                                                     _kernel=_kernels.to_dtype, _to_dtype_tv_tensor=_to_dtype_tv_tensor))
    return functools.update_wrapper(functional, signature)


def _to_dtype_tv_tensor(inpt, dtype, image):
    """to_dtype of a tv_tensor: Images and Videos by the kernel (image(plain tensor)); masks, boxes
    and keypoints by a plain cast, without scaling, as torchvision converts them."""
    tv = _tv_tensors()
    torch = sys.modules["torch"]
    plain = inpt.as_subclass(torch.Tensor)
    if isinstance(inpt, (tv.Image, tv.Video)):
        return tv.wrap(image(plain), like=inpt)
    return tv.wrap(plain.to(getattr(torch, dtype) if isinstance(dtype, str) else dtype), like=inpt)


@_dispatching()
@op_doc("color")
def adjust_brightness(inpt: ImageT, brightness_factor: float, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Multiplies the image by ``brightness_factor``, clamped to the dtype's range ([0, 1] for floats).

    Args:
        inpt: the image ``[..., C, H, W]`` (C = 1 or 3), an Image or a Video.
        brightness_factor: >= 0; 0 gives black, 1 the image itself.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("color")
def adjust_contrast(inpt: ImageT, contrast_factor: float, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Blends the image with the mean of its grayscale version (computed on the device, per image).

    Args:
        inpt: the image ``[..., C, H, W]`` (C = 1 or 3), an Image or a Video.
        contrast_factor: >= 0; 0 gives a uniform gray image, 1 the image itself.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("color")
def adjust_gamma(inpt: ImageT, gamma: float, gain: float = 1.0, *, stream: Optional[StreamLike] = None) -> ImageT:
    """``gain * x ** gamma`` on values scaled to [0, 1], clamped to the dtype's range.

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        gamma: >= 0; below 1 brightens the dark regions, above 1 darkens them.
        gain: the multiplier.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("color")
def adjust_hue(inpt: ImageT, hue_factor: float, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Rotates the hue (in HSV space) by ``hue_factor`` of a full turn; 1-channel images are returned as they are.

    Args:
        inpt: the image ``[..., C, H, W]`` (C = 1 or 3), an Image or a Video.
        hue_factor: in [-0.5, 0.5].
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("color")
def adjust_saturation(inpt: ImageT, saturation_factor: float, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Blends the image with its grayscale version; 1-channel images are returned as they are.

    Args:
        inpt: the image ``[..., C, H, W]`` (C = 1 or 3), an Image or a Video.
        saturation_factor: >= 0; 0 gives the grayscale image, 1 the image itself.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("color")
def adjust_sharpness(inpt: ImageT, sharpness_factor: float, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Blends the image with its 3x3-smoothed version (border pixels kept), as PIL's ImageEnhance.Sharpness.

    Args:
        inpt: the image ``[..., C, H, W]`` (C = 1 or 3), an Image or a Video.
        sharpness_factor: >= 0; 0 gives the smoothed image, 1 the image itself, 2 a sharper one.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("levels")
def autocontrast(inpt: ImageT, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Stretches each channel of each image to the dtype's full range (minimum and maximum found on the device).

    Args:
        inpt: the image ``[..., C, H, W]`` (C = 1 or 3), an Image or a Video.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("color")
def equalize(inpt: ImageT, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Equalizes each channel's histogram (histograms and lookup tables built on the device).

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("all")
def erase(inpt: ImageT, i: int, j: int, h: int, w: int, v: ImageLike, inplace: bool = False,
          *, stream: Optional[StreamLike] = None) -> ImageT:
    """Sets the window ``[i, i + h) x [j, j + w)`` of the image to ``v``.

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        i: the window's first row.
        j: the window's first column.
        h: the window's height.
        w: the window's width.
        v: the values, broadcast to ``[..., C, h, w]`` (a tensor, on any device).
        inplace: write into ``inpt`` and return it.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("color")
def gaussian_blur(inpt: ImageT, kernel_size: Union[int, Sequence[int]],
                  sigma: Union[float, Sequence[float], None] = None, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Blurs the image with a separable Gaussian kernel (reflect padding at the borders).

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        kernel_size: ``[kx, ky]`` (x first) or one number; odd and positive.
        sigma: ``[sx, sy]`` or one number, > 0; None: ``0.3 * ((k - 1) * 0.5 - 1) + 0.8`` per axis, as torchvision.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("noise", differs=(
    "Inputs other than torch tensors, and an explicit ``generator=``, draw from streamvision's counter-based "
    "Philox generator; torchvision takes torch tensors only."))
def gaussian_noise(inpt: ImageT, mean: float = 0.0, sigma: float = 0.1, clip: bool = True, *,
                   generator: Optional[Generator] = None, stream: Optional[StreamLike] = None) -> ImageT:
    """Adds Gaussian noise ``N(mean, sigma)`` to the image (uint8: ``mean`` and ``sigma`` times 255), as torchvision.

    torch tensors draw their normals with ``torch.randn_like`` from torch's generator (so ``torch.manual_seed``
    reproduces torchvision's values and CUDA graphs replay fresh noise); other inputs, or an explicit ``generator``,
    draw from streamvision's counter-based generator (the same numbers on the CPU and CUDA).

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        mean: the noise's mean.
        sigma: the noise's standard deviation, >= 0.
        clip: clamp the result to the dtype's range ([0, 1] for floats).
        generator: a :class:`streamvision.Generator` to draw from instead.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("all")
def grayscale_to_rgb(inpt: ImageT, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Repeats a 1-channel image into 3 channels; images of 3 or more channels are returned as they are.

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("levels")
def invert(inpt: ImageT, *, stream: Optional[StreamLike] = None) -> ImageT:
    """``max - x``: the dtype's maximum (1 for floats) minus the image (bitwise not for unsigned integers).

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("float")
def normalize(inpt: ImageT, mean: Sequence[float], std: Sequence[float], inplace: bool = False,
              *, stream: Optional[StreamLike] = None) -> ImageT:
    """``(x - mean[c]) / std[c]`` for each channel ``c`` of a float image.

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        mean: one value per channel (or one for all).
        std: one value per channel (or one for all), non-zero.
        inplace: write into ``inpt`` and return it.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.

    Raises:
        TypeError: the image is not a float image (torchvision's rule).
    """


@_dispatching()
@op_doc("all")
def permute_channels(inpt: ImageT, permutation: Sequence[int], *, stream: Optional[StreamLike] = None) -> ImageT:
    """Reorders the channels: output channel ``i`` is input channel ``permutation[i]``.

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        permutation: a permutation of ``range(C)``.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("levels")
def posterize(inpt: ImageT, bits: int, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Keeps the ``bits`` most significant bits of each value (floats: quantised to ``2 ** bits`` levels).

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        bits: 0 to 8 for uint8 (up to the dtype's value bits for other integers).
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching(("Image",))
@op_doc("color")
def rgb_to_grayscale(inpt: ImageT, num_output_channels: int = 1, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Converts RGB to grayscale, ``0.2989 R + 0.587 G + 0.114 B``.

    Args:
        inpt: the image ``[..., C, H, W]`` (C = 1 or 3) or an Image (Videos raise TypeError, as in torchvision).
        num_output_channels: 1, or 3 (the gray value repeated).
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_dispatching()
@op_doc("levels")
def solarize(inpt: ImageT, threshold: float, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Inverts the values at or above ``threshold`` (as :func:`invert`).

    Args:
        inpt: the image ``[..., C, H, W]``, an Image or a Video.
        threshold: in the dtype's value range ([0, 1] for floats).
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The result, of ``inpt``'s kind.
    """


@_to_dtype
@op_doc("all", extra="Masks, boxes and keypoints are cast without scaling, as torchvision does.")
def to_dtype(inpt: ImageT, dtype: DTypeLike = "float32", scale: bool = False, *,
             stream: Optional[StreamLike] = None) -> ImageT:
    """Converts the image to ``dtype``, optionally scaling values to the new dtype's range.

    Args:
        inpt: the image, or any tv_tensor.
        dtype: the new dtype (torch, numpy or streamvision dtype, or its name).
        scale: map the value range to the new dtype's, as torchvision (e.g. uint8 [0, 255] to float [0, 1]).
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The converted image, of ``inpt``'s kind; the input itself when the dtype is unchanged.
    """
