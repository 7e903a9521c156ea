"""Functional ops with torchvision.transforms.v2.functional's names, parameters and defaults,
plus a keyword-only ``stream=``. Each accepts torch tensors (returning torch tensors, on the
caller's current stream), numpy arrays, streamvision.Tensor and any DLPack / CUDA Array
Interface / buffer exporter, and returns the same kind."""

from ._kernels import (
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    adjust_sharpness,
    affine,
    autocontrast,
    center_crop,
    crop,
    elastic,
    equalize,
    erase,
    five_crop,
    gaussian_blur,
    gaussian_noise,
    get_dimensions,
    get_num_channels,
    get_size,
    grayscale_to_rgb,
    horizontal_flip,
    invert,
    normalize,
    pad,
    permute_channels,
    perspective,
    posterize,
    resize,
    resized_crop,
    rgb_to_grayscale,
    rotate,
    solarize,
    ten_crop,
    to_channels_last,
    to_contiguous,
    to_dtype,
    vertical_flip,
)

from .._interpolation import InterpolationMode

# torchvision's aliases
hflip = horizontal_flip
vflip = vertical_flip
to_grayscale = rgb_to_grayscale

__all__ = [name for name in dir() if not name.startswith("_")]
