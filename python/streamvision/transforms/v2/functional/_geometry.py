"""The geometric functionals: torchvision.transforms.v2.functional's names, parameters and
defaults (plus keyword-only ``stream=``), dispatching on the input's type (_dispatch).

Each one states, in one place, what the op means for every input kind: the C++ image kernel
(through `_kernels`, the one door to them) for plain inputs, Images and Videos; the same kernel
with NEAREST and the mask's fill for Masks; the box and keypoint ops for BoundingBoxes and
KeyPoints. Arguments that only images use (interpolation, antialias, fill) are ignored for boxes
and keypoints, as in torchvision.
"""

from . import _kernels
from ._dispatch import dispatch
from .._interpolation import InterpolationMode

NEAREST = InterpolationMode.NEAREST


def horizontal_flip(inpt, *, stream=None):
    return dispatch("horizontal_flip", inpt, stream,
                    image=lambda x: _kernels.horizontal_flip(x, stream=stream),
                    mask=lambda x: _kernels.horizontal_flip(x, stream=stream),
                    boxes=lambda m, b, meta: m.horizontal_flip(b, meta),
                    keypoints=lambda m, k, canvas: m.horizontal_flip(k, canvas))


def vertical_flip(inpt, *, stream=None):
    return dispatch("vertical_flip", inpt, stream,
                    image=lambda x: _kernels.vertical_flip(x, stream=stream),
                    mask=lambda x: _kernels.vertical_flip(x, stream=stream),
                    boxes=lambda m, b, meta: m.vertical_flip(b, meta),
                    keypoints=lambda m, k, canvas: m.vertical_flip(k, canvas))


def resize(inpt, size, interpolation=None, max_size=None, antialias=True, *, stream=None):
    return dispatch("resize", inpt, stream,
                    image=lambda x: _kernels.resize(x, size, interpolation, max_size, antialias, stream=stream),
                    mask=lambda x: _kernels.resize(x, size, NEAREST, max_size, stream=stream),
                    boxes=lambda m, b, meta: m.resize(b, meta, size, max_size),
                    keypoints=lambda m, k, canvas: m.resize(k, canvas, size, max_size))


def resized_crop(inpt, top, left, height, width, size, interpolation=None, antialias=True, *, stream=None):
    return dispatch("resized_crop", inpt, stream,
                    image=lambda x: _kernels.resized_crop(x, top, left, height, width, size, interpolation, antialias,
                                                          stream=stream),
                    mask=lambda x: _kernels.resized_crop(x, top, left, height, width, size, NEAREST, stream=stream),
                    boxes=lambda m, b, meta: m.resized_crop(b, meta, top, left, height, width, size),
                    keypoints=lambda m, k, canvas: m.resized_crop(k, canvas, top, left, height, width, size))


def crop(inpt, top, left, height, width, *, stream=None):
    return dispatch("crop", inpt, stream,
                    image=lambda x: _kernels.crop(x, top, left, height, width, stream=stream),
                    mask=lambda x: _kernels.crop(x, top, left, height, width, stream=stream),
                    boxes=lambda m, b, meta: m.crop(b, meta, top, left, height, width),
                    keypoints=lambda m, k, canvas: m.crop(k, canvas, top, left, height, width))


def center_crop(inpt, output_size, *, stream=None):
    return dispatch("center_crop", inpt, stream,
                    image=lambda x: _kernels.center_crop(x, output_size, stream=stream),
                    mask=lambda x: _kernels.center_crop(x, output_size, stream=stream),
                    boxes=lambda m, b, meta: m.center_crop(b, meta, output_size),
                    keypoints=lambda m, k, canvas: m.center_crop(k, canvas, output_size))


def pad(inpt, padding, fill=None, padding_mode="constant", *, stream=None):
    def mask(x):
        from ._masks import pad_fill

        return _kernels.pad(x, padding, pad_fill(fill), padding_mode, stream=stream)

    return dispatch("pad", inpt, stream,
                    image=lambda x: _kernels.pad(x, padding, fill, padding_mode, stream=stream),
                    mask=mask,
                    boxes=lambda m, b, meta: m.pad(b, meta, padding, padding_mode),
                    keypoints=lambda m, k, canvas: m.pad(k, canvas, padding, padding_mode))


def rotate(inpt, angle, interpolation=None, expand=False, center=None, fill=None, *, stream=None):
    return dispatch("rotate", inpt, stream,
                    image=lambda x: _kernels.rotate(x, angle, interpolation, expand, center, fill, stream=stream),
                    mask=lambda x: _kernels.rotate(x, angle, NEAREST, expand, center, fill, stream=stream),
                    boxes=lambda m, b, meta: m.rotate(b, meta, angle, expand, center),
                    keypoints=lambda m, k, canvas: m.rotate(k, canvas, angle, expand, center))


def affine(inpt, angle, translate, scale, shear, interpolation=None, fill=None, center=None, *, stream=None):
    return dispatch("affine", inpt, stream,
                    image=lambda x: _kernels.affine(x, angle, translate, scale, shear, interpolation, fill, center,
                                                    stream=stream),
                    mask=lambda x: _kernels.affine(x, angle, translate, scale, shear, NEAREST, fill, center,
                                                   stream=stream),
                    boxes=lambda m, b, meta: m.affine(b, meta, angle, translate, scale, shear, center),
                    keypoints=lambda m, k, canvas: m.affine(k, canvas, angle, translate, scale, shear, center))


def perspective(inpt, startpoints, endpoints, interpolation=None, fill=None, coefficients=None, *, stream=None):
    return dispatch("perspective", inpt, stream,
                    image=lambda x: _kernels.perspective(x, startpoints, endpoints, interpolation, fill, coefficients,
                                                         stream=stream),
                    mask=lambda x: _kernels.perspective(x, startpoints, endpoints, NEAREST, fill, coefficients,
                                                        stream=stream),
                    boxes=lambda m, b, meta: m.perspective(b, meta, startpoints, endpoints, coefficients),
                    keypoints=lambda m, k, canvas: m.perspective(k, canvas, startpoints, endpoints, coefficients))


def elastic(inpt, displacement, interpolation=None, fill=None, *, stream=None):
    return dispatch("elastic", inpt, stream,
                    image=lambda x: _kernels.elastic(x, displacement, interpolation, fill, stream=stream),
                    mask=lambda x: _kernels.elastic(x, displacement, NEAREST, fill, stream=stream),
                    boxes=lambda m, b, meta: m.elastic(b, meta, displacement),
                    keypoints=lambda m, k, canvas: m.elastic(k, canvas, displacement))


# five_crop and ten_crop are image-only in torchvision too: masks, boxes and keypoints raise.
def five_crop(inpt, size, *, stream=None):
    return dispatch("five_crop", inpt, stream, image=lambda x: _kernels.five_crop(x, size, stream=stream))


def ten_crop(inpt, size, vertical_flip=False, *, stream=None):
    return dispatch("ten_crop", inpt, stream,
                    image=lambda x: _kernels.ten_crop(x, size, vertical_flip, stream=stream))
