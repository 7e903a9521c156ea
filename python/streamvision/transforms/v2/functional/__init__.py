"""Functional ops with torchvision.transforms.v2.functional's names, parameters and defaults,
plus a keyword-only ``stream=``. Each accepts torch tensors (returning torch tensors, on the
caller's current stream), numpy arrays, streamvision.Tensor and any DLPack / CUDA Array
Interface / buffer exporter, and returns the same kind.

The geometric ops (and get_size) also dispatch on torchvision's tv_tensors as torchvision does:
Image and Video through the image kernels, Mask with NEAREST, BoundingBoxes (every format) and
KeyPoints by torch math on their device, each keeping its type and metadata (_geometry). The
box/keypoint functionals (format conversion, clamping, sanitizing) are in _meta. The other ops
take Image and Video (their type kept) and refuse masks, boxes and keypoints as torchvision does
(_photometric); all reach the C++ kernels through _kernels."""

from ._photometric import (
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    adjust_sharpness,
    autocontrast,
    equalize,
    erase,
    gaussian_blur,
    gaussian_noise,
    grayscale_to_rgb,
    invert,
    normalize,
    permute_channels,
    posterize,
    rgb_to_grayscale,
    solarize,
    to_dtype,
)
from ._geometry import (
    affine,
    center_crop,
    crop,
    elastic,
    five_crop,
    horizontal_flip,
    pad,
    perspective,
    resize,
    resized_crop,
    rotate,
    ten_crop,
    vertical_flip,
)
from ._batch import color_jitter_batch, color_jitter_params, resized_crop_batch, resized_crop_boxes
from ._meta import (
    clamp_bounding_boxes,
    clamp_keypoints,
    convert_bounding_box_format,
    get_dimensions,
    get_num_channels,
    get_size,
    sanitize_bounding_boxes,
    to_channels_last,
    to_contiguous,
)

from .._interpolation import InterpolationMode

# torchvision's aliases
hflip = horizontal_flip
vflip = vertical_flip
to_grayscale = rgb_to_grayscale
elastic_transform = elastic

__all__ = [
    "InterpolationMode",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "adjust_sharpness",
    "affine",
    "autocontrast",
    "center_crop",
    "clamp_bounding_boxes",
    "clamp_keypoints",
    "color_jitter_batch",
    "color_jitter_params",
    "convert_bounding_box_format",
    "crop",
    "elastic",
    "elastic_transform",
    "equalize",
    "erase",
    "five_crop",
    "gaussian_blur",
    "gaussian_noise",
    "get_dimensions",
    "get_num_channels",
    "get_size",
    "grayscale_to_rgb",
    "hflip",
    "horizontal_flip",
    "invert",
    "normalize",
    "pad",
    "permute_channels",
    "perspective",
    "posterize",
    "resize",
    "resized_crop",
    "resized_crop_batch",
    "resized_crop_boxes",
    "rgb_to_grayscale",
    "rotate",
    "sanitize_bounding_boxes",
    "solarize",
    "ten_crop",
    "to_channels_last",
    "to_contiguous",
    "to_dtype",
    "to_grayscale",
    "vertical_flip",
    "vflip",
]
