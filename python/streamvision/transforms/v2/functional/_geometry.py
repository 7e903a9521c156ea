"""The geometric functionals: torchvision.transforms.v2.functional's names, parameters and
defaults (plus keyword-only ``stream=``), dispatching on the input's type (_dispatch).

Each one states, in one place, what the op means for every input kind: the C++ image kernel
(through `_kernels`, the one door to them) for plain inputs, Images and Videos; the same kernel
with NEAREST and the mask's fill for Masks; the box and keypoint ops for BoundingBoxes and
KeyPoints. Arguments that only images use (interpolation, antialias, fill) are ignored for boxes
and keypoints, as in torchvision.

A plain tensor (the common case) calls its kernel first thing, before the per-kind handlers are
built: the lambda and its call cost about 0.7 µs of a 7.7 µs CPU hflip on the development VM.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from . import _kernels
from ._dispatch import dispatch, plain
from .._interpolation import InterpolationMode

from ...._docs import op_doc
from ...._typing import Fill, ImageLike, ImageT, InterpolationLike, StreamLike

NEAREST = InterpolationMode.NEAREST

# What every geometric functional does with torchvision's tv_tensors (the dtype section's tail).
_TV = ("tv_tensors.Image and Video run the image kernel; Mask the same kernel with NEAREST; BoundingBoxes "
       "(every format) and KeyPoints torch math on their device, with the new canvas_size. Each keeps its type.")


@op_doc("all", extra=_TV)
def horizontal_flip(inpt: ImageT, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Flips the image (its last dim) left to right.

    Args:
        inpt: the image ``[..., H, W]``, or a tv_tensor (Image, Video, Mask, BoundingBoxes, KeyPoints).
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The flipped image, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.horizontal_flip(inpt, stream=stream)
    image = lambda x: _kernels.horizontal_flip(x, stream=stream)
    return dispatch("horizontal_flip", inpt, stream, image=image, mask=image,
                    boxes=lambda m, b, meta: m.horizontal_flip(b, meta),
                    keypoints=lambda m, k, canvas: m.horizontal_flip(k, canvas))


@op_doc("all", extra=_TV)
def vertical_flip(inpt: ImageT, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Flips the image (dim -2) upside down.

    Args:
        inpt: the image ``[..., H, W]``, or a tv_tensor (Image, Video, Mask, BoundingBoxes, KeyPoints).
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The flipped image, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.vertical_flip(inpt, stream=stream)
    image = lambda x: _kernels.vertical_flip(x, stream=stream)
    return dispatch("vertical_flip", inpt, stream, image=image, mask=image,
                    boxes=lambda m, b, meta: m.vertical_flip(b, meta),
                    keypoints=lambda m, k, canvas: m.vertical_flip(k, canvas))


@op_doc("geometry", extra=_TV, differs=(
    "A ``size`` of more than two values raises (torchvision uses two of them). uint8 bicubic follows PyTorch's "
    "CPU integer path (int16 weights) on both engines; uint8 bilinear follows torchvision per device."))
def resize(inpt: ImageT, size: Union[int, Sequence[int], None], interpolation: Optional[InterpolationLike] = None,
           max_size: Optional[int] = None, antialias: Optional[bool] = True, *,
           stream: Optional[StreamLike] = None) -> ImageT:
    """Resizes the image to ``size``.

    Args:
        inpt: the image ``[..., C, H, W]``, or a tv_tensor.
        size: ``[height, width]``; or ``[s]`` / ``s``: the shorter edge becomes ``s`` and the other keeps the
            aspect ratio; or None: the longer edge becomes ``max_size``.
        interpolation: ``NEAREST``, ``NEAREST_EXACT``, ``BILINEAR`` (the default, also for None) or
            ``BICUBIC``; other modes raise NotImplementedError.
        max_size: the longest the longer edge may become when ``size`` is one number (or None).
        antialias: low-pass filter when downscaling (bilinear and bicubic), as PIL does.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The resized image, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.resize(inpt, size, interpolation, max_size, antialias, stream=stream)
    image = lambda x: _kernels.resize(x, size, interpolation, max_size, antialias, stream=stream)
    return dispatch("resize", inpt, stream, image=image,
                    mask=lambda x: _kernels.resize(x, size, NEAREST, max_size, stream=stream),
                    boxes=lambda m, b, meta: m.resize(b, meta, size, max_size),
                    keypoints=lambda m, k, canvas: m.resize(k, canvas, size, max_size))


@op_doc("geometry", extra=_TV)
def resized_crop(inpt: ImageT, top: int, left: int, height: int, width: int, size: Sequence[int],
                 interpolation: Optional[InterpolationLike] = None, antialias: Optional[bool] = True, *,
                 stream: Optional[StreamLike] = None) -> ImageT:
    """Crops the window ``[top, top + height) x [left, left + width)`` and resizes it to ``size``.

    Args:
        inpt: the image ``[..., C, H, W]``, or a tv_tensor.
        top: the window's first row (may lie outside the image: zeros there).
        left: the window's first column.
        height: the window's height.
        width: the window's width.
        size: the output ``[height, width]`` (or ``[s]``, as in :func:`resize`).
        interpolation: as in :func:`resize` (None: ``BILINEAR``).
        antialias: as in :func:`resize`.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The resized window, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.resized_crop(inpt, top, left, height, width, size, interpolation, antialias,
                                     stream=stream)
    image = lambda x: _kernels.resized_crop(x, top, left, height, width, size, interpolation, antialias,
                                            stream=stream)
    return dispatch("resized_crop", inpt, stream, image=image,
                    mask=lambda x: _kernels.resized_crop(x, top, left, height, width, size, NEAREST, stream=stream),
                    boxes=lambda m, b, meta: m.resized_crop(b, meta, top, left, height, width, size),
                    keypoints=lambda m, k, canvas: m.resized_crop(k, canvas, top, left, height, width, size))


@op_doc("all", extra=_TV, differs=(
    "The result is always ``[height, width]``; torchvision returns a wrong shape for a window wholly above or "
    "left of the image."))
def crop(inpt: ImageT, top: int, left: int, height: int, width: int, *,
         stream: Optional[StreamLike] = None) -> ImageT:
    """The window ``[top, top + height) x [left, left + width)`` of the image; outside the image is zero.

    Args:
        inpt: the image ``[..., H, W]``, or a tv_tensor.
        top: the window's first row (negative: above the image).
        left: the window's first column (negative: left of the image).
        height: the window's height.
        width: the window's width.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The window ``[..., height, width]``, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.crop(inpt, top, left, height, width, stream=stream)
    image = lambda x: _kernels.crop(x, top, left, height, width, stream=stream)
    return dispatch("crop", inpt, stream, image=image, mask=image,
                    boxes=lambda m, b, meta: m.crop(b, meta, top, left, height, width),
                    keypoints=lambda m, k, canvas: m.crop(k, canvas, top, left, height, width))


@op_doc("all", extra=_TV)
def center_crop(inpt: ImageT, output_size: Union[int, Sequence[int]], *,
                stream: Optional[StreamLike] = None) -> ImageT:
    """The centred window of ``output_size``, zero-padded where it is larger than the image.

    Args:
        inpt: the image ``[..., H, W]``, or a tv_tensor.
        output_size: ``[height, width]``, or one number for a square.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The window, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.center_crop(inpt, output_size, stream=stream)
    image = lambda x: _kernels.center_crop(x, output_size, stream=stream)
    return dispatch("center_crop", inpt, stream, image=image, mask=image,
                    boxes=lambda m, b, meta: m.center_crop(b, meta, output_size),
                    keypoints=lambda m, k, canvas: m.center_crop(k, canvas, output_size))


@op_doc("all", extra=_TV)
def pad(inpt: ImageT, padding: Union[int, Sequence[int]], fill: Fill = None, padding_mode: str = "constant", *,
        stream: Optional[StreamLike] = None) -> ImageT:
    """Pads the image's borders.

    Args:
        inpt: the image ``[..., H, W]``, or a tv_tensor.
        padding: one number for every side; ``[left/right, top/bottom]``; or ``[left, top, right, bottom]``.
        fill: the value of constant padding (one number, or one per channel); None: 0.
        padding_mode: ``"constant"``, ``"edge"``, ``"reflect"`` or ``"symmetric"``.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The padded image, of ``inpt``'s kind.
    """
    def mask(x):
        from ._masks import pad_fill

        return _kernels.pad(x, padding, pad_fill(fill), padding_mode, stream=stream)

    if plain(inpt):
        return _kernels.pad(inpt, padding, fill, padding_mode, stream=stream)
    image = lambda x: _kernels.pad(x, padding, fill, padding_mode, stream=stream)
    return dispatch("pad", inpt, stream, image=image,
                    mask=mask,
                    boxes=lambda m, b, meta: m.pad(b, meta, padding, padding_mode),
                    keypoints=lambda m, k, canvas: m.pad(k, canvas, padding, padding_mode))


@op_doc("geometry", extra="Right angles: every dtype. " + _TV)
def rotate(inpt: ImageT, angle: float, interpolation: Optional[InterpolationLike] = None, expand: bool = False,
           center: Optional[Sequence[float]] = None, fill: Fill = None, *,
           stream: Optional[StreamLike] = None) -> ImageT:
    """Rotates the image counter-clockwise by ``angle`` degrees.

    Multiples of 90 degrees are exact copies (every dtype); other angles sample as :func:`affine` does.

    Args:
        inpt: the image ``[..., C, H, W]``, or a tv_tensor.
        angle: degrees, counter-clockwise.
        interpolation: ``NEAREST`` or ``BILINEAR`` (None: ``NEAREST``).
        expand: enlarge the output to hold the whole rotated image.
        center: the rotation centre ``[x, y]`` in pixels; None: the image's centre.
        fill: the value of pixels from outside the image (one number, or one per channel); None: 0.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The rotated image, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.rotate(inpt, angle, interpolation, expand, center, fill, stream=stream)
    image = lambda x: _kernels.rotate(x, angle, interpolation, expand, center, fill, stream=stream)
    return dispatch("rotate", inpt, stream, image=image,
                    mask=lambda x: _kernels.rotate(x, angle, NEAREST, expand, center, fill, stream=stream),
                    boxes=lambda m, b, meta: m.rotate(b, meta, angle, expand, center),
                    keypoints=lambda m, k, canvas: m.rotate(k, canvas, angle, expand, center))


@op_doc("geometry", extra=_TV)
def affine(inpt: ImageT, angle: float, translate: Sequence[float], scale: float, shear: Union[float, Sequence[float]],
           interpolation: Optional[InterpolationLike] = None, fill: Fill = None,
           center: Optional[Sequence[float]] = None, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Applies an affine transformation (rotation, translation, scale, shear), keeping the image's size.

    Args:
        inpt: the image ``[..., C, H, W]``, or a tv_tensor.
        angle: rotation in degrees, clockwise.
        translate: ``[tx, ty]`` in pixels.
        scale: the scale factor (> 0).
        shear: degrees: ``sx``, or ``[sx, sy]``.
        interpolation: ``NEAREST`` or ``BILINEAR`` (None: ``NEAREST``).
        fill: the value of pixels from outside the image (one number, or one per channel); None: 0.
        center: the centre ``[x, y]`` in pixels; None: the image's centre.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The transformed image, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.affine(inpt, angle, translate, scale, shear, interpolation, fill, center,
                               stream=stream)
    image = lambda x: _kernels.affine(x, angle, translate, scale, shear, interpolation, fill, center,
                                      stream=stream)
    return dispatch("affine", inpt, stream, image=image,
                    mask=lambda x: _kernels.affine(x, angle, translate, scale, shear, NEAREST, fill, center,
                                                   stream=stream),
                    boxes=lambda m, b, meta: m.affine(b, meta, angle, translate, scale, shear, center),
                    keypoints=lambda m, k, canvas: m.affine(k, canvas, angle, translate, scale, shear, center))


@op_doc("geometry", extra=_TV, differs=(
    "The coefficients are solved on the host as MKL's ``dgels`` solves them (torchvision's result on x86); "
    "other BLAS builds can differ at noise level."))
def perspective(inpt: ImageT, startpoints: Optional[Sequence[Sequence[float]]],
                endpoints: Optional[Sequence[Sequence[float]]], interpolation: Optional[InterpolationLike] = None,
                fill: Fill = None, coefficients: Optional[Sequence[float]] = None, *,
                stream: Optional[StreamLike] = None) -> ImageT:
    """Applies the perspective transformation that maps ``startpoints`` to ``endpoints``.

    Args:
        inpt: the image ``[..., C, H, W]``, or a tv_tensor.
        startpoints: four ``[x, y]`` corners of the original image (or None with ``coefficients``).
        endpoints: the four ``[x, y]`` points they move to.
        interpolation: ``NEAREST`` or ``BILINEAR`` (None: ``BILINEAR``).
        fill: the value of pixels from outside the image (one number, or one per channel); None: 0.
        coefficients: the 8 coefficients of the output-to-input map, instead of the points.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The transformed image, of ``inpt``'s kind.

    Raises:
        RuntimeError: the points are (nearly) singular (torchvision raises ``torch.linalg.LinAlgError``).
    """
    if plain(inpt):
        return _kernels.perspective(inpt, startpoints, endpoints, interpolation, fill, coefficients,
                                    stream=stream)
    image = lambda x: _kernels.perspective(x, startpoints, endpoints, interpolation, fill, coefficients,
                                           stream=stream)
    return dispatch("perspective", inpt, stream, image=image,
                    mask=lambda x: _kernels.perspective(x, startpoints, endpoints, NEAREST, fill, coefficients,
                                                        stream=stream),
                    boxes=lambda m, b, meta: m.perspective(b, meta, startpoints, endpoints, coefficients),
                    keypoints=lambda m, k, canvas: m.perspective(k, canvas, startpoints, endpoints, coefficients))


@op_doc("geometry", extra=_TV, differs=(
    "float16 images sample in float32 on both engines (torchvision's CUDA path samples in float16). For boxes, a "
    "corner on the canvas' right or bottom edge reads the last displacement (torchvision 0.26 indexes past it)."))
def elastic(inpt: ImageT, displacement: ImageLike, interpolation: Optional[InterpolationLike] = None,
            fill: Fill = None, *, stream: Optional[StreamLike] = None) -> ImageT:
    """Moves every pixel by ``displacement`` (an elastic deformation).

    Args:
        inpt: the image ``[..., C, H, W]``, or a tv_tensor.
        displacement: ``[1, H, W, 2]`` offsets in normalised coordinates ([-1, 1] spans the image), a tensor on
            any device (moved to the image's) and of any dtype (converted to the sampling dtype: the image's
            float dtype, float32 for integer and float16 images).
        interpolation: ``NEAREST`` or ``BILINEAR`` (None: ``BILINEAR``).
        fill: the value of pixels from outside the image (one number, or one per channel); None: 0.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The deformed image, of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.elastic(inpt, displacement, interpolation, fill, stream=stream)
    image = lambda x: _kernels.elastic(x, displacement, interpolation, fill, stream=stream)
    return dispatch("elastic", inpt, stream, image=image,
                    mask=lambda x: _kernels.elastic(x, displacement, NEAREST, fill, stream=stream),
                    boxes=lambda m, b, meta: m.elastic(b, meta, displacement),
                    keypoints=lambda m, k, canvas: m.elastic(k, canvas, displacement))


# five_crop and ten_crop are image-only in torchvision too: masks, boxes and keypoints raise.
@op_doc("all")
def five_crop(inpt: ImageT, size: Union[int, Sequence[int]], *,
              stream: Optional[StreamLike] = None) -> Tuple[ImageT, ImageT, ImageT, ImageT, ImageT]:
    """The four corner crops and the centre crop of ``size``.

    Args:
        inpt: the image ``[..., H, W]``, Image or Video (masks, boxes and keypoints raise TypeError).
        size: ``[height, width]``, or one number for a square.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        ``(top_left, top_right, bottom_left, bottom_right, center)``, each of ``inpt``'s kind.
    """
    if plain(inpt):
        return _kernels.five_crop(inpt, size, stream=stream)
    image = lambda x: _kernels.five_crop(x, size, stream=stream)
    return dispatch("five_crop", inpt, stream, image=image)


@op_doc("all")
def ten_crop(inpt: ImageT, size: Union[int, Sequence[int]], vertical_flip: bool = False, *,
             stream: Optional[StreamLike] = None) -> Tuple[ImageT, ...]:
    """:func:`five_crop` of the image and of its flipped copy.

    Args:
        inpt: the image ``[..., H, W]``, Image or Video (masks, boxes and keypoints raise TypeError).
        size: ``[height, width]``, or one number for a square.
        vertical_flip: flip upside down instead of left to right.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The five crops of the image, then the five of the flipped image.
    """
    if plain(inpt):
        return _kernels.ten_crop(inpt, size, vertical_flip, stream=stream)
    image = lambda x: _kernels.ten_crop(x, size, vertical_flip, stream=stream)
    return dispatch("ten_crop", inpt, stream, image=image)
