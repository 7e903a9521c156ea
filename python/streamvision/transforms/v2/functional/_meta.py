"""Functionals about tv_tensor metadata: get_size for every kind, and the box/keypoint
functionals (format conversion, clamping, sanitizing) with torchvision 0.26's signatures and
rules: a plain tensor needs its format / canvas_size passed, a tv_tensor must not be given them.
"""

from . import _kernels
from ._dispatch import kind, tv_tensors


def get_size(inpt):
    """[height, width]: of the image or mask, or a box/keypoint tensor's canvas_size."""
    k = kind(inpt)
    if k in ("BoundingBoxes", "KeyPoints"):
        return list(inpt.canvas_size)
    if k == "Mask":
        if inpt.ndim < 2:
            raise TypeError(f"get_size: argument 'inpt': expected a mask with at least two dimensions, got {inpt.ndim}")
        return list(inpt.shape[-2:])
    return _kernels.get_size(inpt)


def _is_plain_torch(inpt):
    import sys

    torch = sys.modules.get("torch")
    return torch is not None and isinstance(inpt, torch.Tensor) and kind(inpt) is None


def convert_bounding_box_format(inpt, old_format=None, new_format=None, inplace=False):
    """Boxes in `new_format`; a plain tensor needs `old_format`. inplace=True writes the result into
    the input where the two formats have the same width; between widths (XYXYXYXY and the 5-value
    formats) the input is left alone (torchvision's leaves an intermediate format in it)."""
    op = "convert_bounding_box_format"
    if new_format is None:
        raise TypeError(f"{op}() missing 1 required argument: 'new_format'")
    from . import _box_meta as B

    new = B.format_name(op, "new_format", new_format)
    if _is_plain_torch(inpt):
        if old_format is None:
            raise ValueError(f"{op}: argument 'old_format': expected a format for a plain tensor, got None "
                             "(For pure tensor inputs, `old_format` has to be passed.)")
        plain, old = inpt, B.format_name(op, "old_format", old_format)
    elif kind(inpt) == "BoundingBoxes":
        if old_format is not None:
            raise ValueError(f"{op}: argument 'old_format': expected None for BoundingBoxes (they carry their format), "
                             f"got {old_format!r} (For bounding box tv_tensor inputs, `old_format` must not be passed.)")
        import torch

        plain, old = inpt.as_subclass(torch.Tensor), B.format_name(op, "inpt.format", inpt.format)
    else:
        raise TypeError(f"{op}: argument 'inpt': expected a torch.Tensor or tv_tensors.BoundingBoxes, got "
                        f"{type(inpt).__name__}")
    out = B.convert(plain, old, new, op)
    if inplace and out is not plain and out.shape == plain.shape:
        out = plain.copy_(out)
    if plain is inpt:
        return out
    return tv_tensors().wrap(out, like=inpt, format=new)


def clamp_bounding_boxes(inpt, format=None, canvas_size=None, clamping_mode="auto"):
    """Boxes clamped to their canvas per clamping_mode ("soft", "hard", None; "auto": the boxes' own)."""
    op = "clamp_bounding_boxes"
    if clamping_mode not in ("soft", "hard", "auto", None):
        raise ValueError(f"{op}: argument 'clamping_mode': expected 'soft', 'hard', 'auto' or None, got "
                         f"{clamping_mode!r}")
    from . import _box_meta as B

    if _is_plain_torch(inpt):
        if format is None or canvas_size is None or clamping_mode == "auto":
            raise ValueError(f"{op}: arguments 'format', 'canvas_size', 'clamping_mode': expected all three for a "
                             "plain tensor ('auto' needs BoundingBoxes), got "
                             f"format={format!r}, canvas_size={canvas_size!r}, clamping_mode={clamping_mode!r} "
                             "(For pure tensor inputs, `format`, `canvas_size` and `clamping_mode` have to be passed.)")
        return B.clamp(inpt, B.format_name(op, "format", format), tuple(canvas_size), clamping_mode)
    if kind(inpt) == "BoundingBoxes":
        if format is not None or canvas_size is not None:
            raise ValueError(f"{op}: arguments 'format', 'canvas_size': expected None for BoundingBoxes (they carry "
                             "them) (For bounding box tv_tensor inputs, `format` and `canvas_size` must not be passed.)")
        import torch

        mode = inpt.clamping_mode if clamping_mode == "auto" else clamping_mode
        out = B.clamp(inpt.as_subclass(torch.Tensor), B.format_name(op, "inpt.format", inpt.format),
                      tuple(inpt.canvas_size), mode)
        return tv_tensors().wrap(out, like=inpt)
    raise TypeError(f"{op}: argument 'inpt': expected a torch.Tensor or tv_tensors.BoundingBoxes, got "
                    f"{type(inpt).__name__}")


def clamp_keypoints(inpt, canvas_size=None):
    """Keypoints held inside their canvas (x in [0, W - 1], y in [0, H - 1])."""
    op = "clamp_keypoints"
    from . import _keypoints as K

    if _is_plain_torch(inpt):
        if canvas_size is None:
            raise ValueError(f"{op}: argument 'canvas_size': expected (height, width) for a plain tensor, got None "
                             "(For pure tensor inputs, `canvas_size` has to be passed.)")
        return K.clamp(inpt, tuple(canvas_size))
    if kind(inpt) == "KeyPoints":
        if canvas_size is not None:
            raise ValueError(f"{op}: argument 'canvas_size': expected None for KeyPoints (they carry it), got "
                             f"{canvas_size!r} (For keypoints tv_tensor inputs, `canvas_size` must not be passed.)")
        import torch

        return tv_tensors().wrap(K.clamp(inpt.as_subclass(torch.Tensor), tuple(inpt.canvas_size)), like=inpt)
    raise TypeError(f"{op}: argument 'inpt': expected a torch.Tensor or tv_tensors.KeyPoints, got {type(inpt).__name__}")


def sanitize_bounding_boxes(bounding_boxes, format=None, canvas_size=None, min_size=1.0, min_area=1.0):
    """(the valid boxes, the [N] bool mask that selects them): boxes at least min_size wide and
    high, min_area large, wholly inside the canvas. Its output shape depends on the data (one
    host sync on CUDA), as torchvision's."""
    op = "sanitize_bounding_boxes"
    from . import _box_meta as B

    if _is_plain_torch(bounding_boxes):
        if format is None or canvas_size is None:
            raise ValueError(f"{op}: arguments 'format', 'canvas_size': expected both for a plain tensor, got "
                             f"format={format!r}, canvas_size={canvas_size!r} (format and canvas_size cannot be None "
                             "if bounding_boxes is a pure tensor.)")
        valid = B.valid_mask(bounding_boxes, B.format_name(op, "format", format), tuple(canvas_size), min_size,
                             min_area)
        return bounding_boxes[valid], valid
    if kind(bounding_boxes) != "BoundingBoxes":
        raise ValueError(f"{op}: argument 'bounding_boxes': expected tv_tensors.BoundingBoxes or a torch.Tensor, got "
                         f"{type(bounding_boxes).__name__} (bounding_boxes must be a tv_tensors.BoundingBoxes "
                         "instance or a pure tensor.)")
    if format is not None or canvas_size is not None:
        raise ValueError(f"{op}: arguments 'format', 'canvas_size': expected None for BoundingBoxes (they carry them) "
                         "(format and canvas_size must be None when bounding_boxes is a tv_tensors.BoundingBoxes "
                         "instance.)")
    import torch

    plain = bounding_boxes.as_subclass(torch.Tensor)
    valid = B.valid_mask(plain, B.format_name(op, "format", bounding_boxes.format), tuple(bounding_boxes.canvas_size),
                         min_size, min_area)
    return tv_tensors().wrap(plain[valid], like=bounding_boxes), valid
