"""How a functional picks its kernel from the input's type, as torchvision's dispatchers do.

Plain inputs (torch tensors, numpy arrays, streamvision.Tensor, any DLPack / CUDA Array Interface
exporter) and tv_tensors.Image / Video go to the C++ image kernel (a tv_tensor's type is put back
on the result); tv_tensors.Mask goes to the image kernel by the mask rules (_masks);
BoundingBoxes and KeyPoints go to torch math on their own device (_boxes, _keypoints), which also
gives their new canvas_size. A tv_tensor type an op has no kernel for raises TypeError, as in
torchvision.

torch and torchvision are never imported here: tv_tensors exist only once torchvision is
imported, so a numpy-only program never pays for them (or needs them installed).
"""

import contextlib
import sys

_HANDLED = ("BoundingBoxes", "KeyPoints", "Mask", "Video", "Image")  # subclasses before bases


def tv_tensors():
    return sys.modules.get("torchvision.tv_tensors")


def kind(inpt):
    """None for plain inputs; else the name of the tv_tensor class it is (an instance of), or
    "TVTensor" for tv_tensor types streamvision does not know."""
    tv = tv_tensors()
    if tv is None or not isinstance(inpt, tv.TVTensor):
        return None
    for name in _HANDLED:
        if isinstance(inpt, getattr(tv, name)):
            return name
    return "TVTensor"


# Exact types known not to be tv_tensors (torch.Tensor, numpy.ndarray, streamvision.Tensor, ...).
# A class's bases are fixed when it is made, and tv_tensor classes only exist once torchvision is
# imported, so a type found plain stays plain.
plain_types = set()


def plain(inpt):
    """True when `inpt` goes straight to the image kernel (it is not a tv_tensor): the functionals'
    fast path, which skips building the per-kind handlers (about 0.5 µs of a call)."""
    t = type(inpt)
    if t in plain_types:
        return True
    if kind(inpt) is not None:
        return False
    plain_types.add(t)
    return True


def rewrap(out, like):
    """The image kernel's result with `like`'s tv_tensor type (each item of five_crop's tuple)."""
    wrap = tv_tensors().wrap
    if isinstance(out, (tuple, list)):
        return type(out)(wrap(o, like=like) for o in out)
    return wrap(out, like=like)


@contextlib.contextmanager
def _torch_stream(stream, tensor):
    """Box and keypoint math on an explicit `stream=` (torch's current stream otherwise)."""
    if stream is None or tensor.device.type != "cuda":
        yield
        return
    import torch

    from streamvision import as_stream

    with torch.cuda.stream(torch.cuda.ExternalStream(as_stream(stream).handle, device=tensor.device)):
        yield


def _unsupported(op, inpt, handlers):
    kinds = ["a tensor or array", "tv_tensors.Image", "tv_tensors.Video"]
    kinds += [f"tv_tensors.{name}" for name, h in handlers.items() if h is not None]
    return TypeError(f"{op}: argument 'inpt': expected {', '.join(kinds[:-1])} or {kinds[-1]}, got "
                     f"{type(inpt).__module__}.{type(inpt).__name__}")


def dispatch(op, inpt, stream=None, *, image, mask=None, boxes=None, keypoints=None):
    """`op` on `inpt` by its type.

    image(x): the image kernel call, for plain inputs, Images and Videos.
    mask(x): the kernel call for a Mask as an image [..., C, H, W] (NEAREST, the mask's fill).
    boxes(module, b, meta) -> (b, canvas_size) and keypoints(module, k, canvas_size) ->
    (k, canvas_size): the _boxes / _keypoints op, given that module (imported on first use).
    A kind without a handler raises TypeError."""
    k = kind(inpt)
    if k is None:
        return image(inpt)
    import torch

    plain = inpt.as_subclass(torch.Tensor)
    if k in ("Image", "Video"):
        return rewrap(image(plain), inpt)
    handlers = {"Mask": mask, "BoundingBoxes": boxes, "KeyPoints": keypoints}
    if handlers.get(k) is None:
        raise _unsupported(op, inpt, handlers)
    wrap = tv_tensors().wrap
    with _torch_stream(stream, plain):
        if k == "Mask":
            from . import _masks

            return wrap(_masks.apply(plain, mask), like=inpt)
        if k == "BoundingBoxes":
            from . import _box_meta, _boxes

            meta = _boxes.Meta(_box_meta.format_name(op, "inpt.format", inpt.format), tuple(inpt.canvas_size),
                               inpt.clamping_mode)
            out, canvas_size = boxes(_boxes, plain, meta)
        else:
            from . import _keypoints

            out, canvas_size = keypoints(_keypoints, plain, tuple(inpt.canvas_size))
    if tuple(canvas_size) == tuple(inpt.canvas_size):
        return wrap(out, like=inpt)
    return wrap(out, like=inpt, canvas_size=tuple(canvas_size))
