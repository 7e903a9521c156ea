"""The non-geometric functionals on torchvision's tv_tensors, dispatched as torchvision dispatches
them: an Image or Video runs the image kernel and keeps its type; a Mask, BoundingBoxes or
KeyPoints is refused with torchvision's TypeError (never silently treated as an image), except by
to_dtype, which converts every tv_tensor (without scaling the non-images, as torchvision does).
Anything else goes to the kernel as it is."""

import functools
import sys

from . import _kernels

_IMAGE_AND_VIDEO = ("Image", "Video")


def _tv_tensors():
    return sys.modules.get("torchvision.tv_tensors")  # tv_tensors exist only once torchvision is imported


def _dispatching(name, kinds=_IMAGE_AND_VIDEO):
    kernel = getattr(_kernels, name)

    @functools.wraps(kernel)
    def functional(inpt, *args, **kwargs):
        tv = _tv_tensors()
        if tv is None or not isinstance(inpt, tv.TVTensor):
            return kernel(inpt, *args, **kwargs)
        if isinstance(inpt, tuple(getattr(tv, k) for k in kinds)):
            return tv.wrap(kernel(inpt.as_subclass(sys.modules["torch"].Tensor), *args, **kwargs), like=inpt)
        raise TypeError(f"Functional F.{name} supports inputs of type {', '.join(kinds)} and plain tensors, "
                        f"but got {type(inpt).__name__}")

    return functional


def _to_dtype():
    kernel = _kernels.to_dtype

    @functools.wraps(kernel)
    def to_dtype(inpt, *args, **kwargs):
        tv = _tv_tensors()
        if tv is None or not isinstance(inpt, tv.TVTensor):
            return kernel(inpt, *args, **kwargs)
        plain = inpt.as_subclass(sys.modules["torch"].Tensor)
        if isinstance(inpt, (tv.Image, tv.Video)):
            return tv.wrap(kernel(plain, *args, **kwargs), like=inpt)
        dtype = args[0] if args else kwargs.get("dtype")
        return tv.wrap(plain.to(dtype), like=inpt)  # masks, boxes, keypoints: a plain cast

    return to_dtype


adjust_brightness = _dispatching("adjust_brightness")
adjust_contrast = _dispatching("adjust_contrast")
adjust_gamma = _dispatching("adjust_gamma")
adjust_hue = _dispatching("adjust_hue")
adjust_saturation = _dispatching("adjust_saturation")
adjust_sharpness = _dispatching("adjust_sharpness")
autocontrast = _dispatching("autocontrast")
equalize = _dispatching("equalize")
erase = _dispatching("erase")
gaussian_blur = _dispatching("gaussian_blur")
gaussian_noise = _dispatching("gaussian_noise")
grayscale_to_rgb = _dispatching("grayscale_to_rgb")
invert = _dispatching("invert")
normalize = _dispatching("normalize")
permute_channels = _dispatching("permute_channels")
posterize = _dispatching("posterize")
rgb_to_grayscale = _dispatching("rgb_to_grayscale", ("Image",))
solarize = _dispatching("solarize")
to_dtype = _to_dtype()
