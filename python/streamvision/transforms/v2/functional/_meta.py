"""Functionals about tv_tensor metadata: get_size for every kind, and the box/keypoint
functionals (format conversion, clamping, sanitizing) with torchvision 0.26's signatures and
rules: a plain tensor needs its format / canvas_size passed, a tv_tensor must not be given them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from . import _kernels
from ._dispatch import kind, tv_tensors
from ...._docs import op_doc
from ...._typing import ImageLike, ImageT, StreamLike

if TYPE_CHECKING:
    import torch

    from torchvision.tv_tensors import BoundingBoxFormat

_NO_KERNEL = ("Only the metadata is read (shape, or a tv_tensor's canvas_size): any dtype and device, "
              "nothing runs on a stream.")
_BOXES = ("torch math on the boxes' own device and dtype, on torch's current stream; every bounding box "
          "format (XYXY, XYWH, CXCYWH, XYWHR, CXCYWHR, XYXYXYXY).")


@op_doc(_NO_KERNEL, stream=False)
def get_dimensions(inpt: ImageLike) -> List[int]:
    """``[C, H, W]`` of an image ``[..., C, H, W]`` (or an Image / Video).

    Args:
        inpt: the image.

    Returns:
        ``[channels, height, width]``.
    """
    return _kernels.get_dimensions(inpt)


@op_doc(_NO_KERNEL, stream=False)
def get_num_channels(inpt: ImageLike) -> int:
    """The number of channels ``C`` of an image ``[..., C, H, W]`` (or an Image / Video).

    Args:
        inpt: the image.

    Returns:
        ``C``.
    """
    return _kernels.get_num_channels(inpt)


@op_doc("all")
def to_channels_last(inpt: ImageT, *, stream: Optional[StreamLike] = None) -> ImageT:
    """A channels_last copy of the image (``[..., C, H, W]`` with C innermost in memory); the input itself if it
    is laid out so already. streamvision's own helper (torchvision has none).

    Args:
        inpt: the image ``[..., C, H, W]``.
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The image, of ``inpt``'s kind.
    """
    return _kernels.to_channels_last(inpt, stream=stream)


@op_doc("all")
def to_contiguous(inpt: ImageT, *, stream: Optional[StreamLike] = None) -> ImageT:
    """A contiguous (row-major) copy of the image; the input itself if it is contiguous already.
    streamvision's own helper (torchvision has none).

    Args:
        inpt: the image (any shape).
        stream: the CUDA stream to run on (see "Stream"); None: the current one.

    Returns:
        The image, of ``inpt``'s kind.
    """
    return _kernels.to_contiguous(inpt, stream=stream)


@op_doc(_NO_KERNEL, stream=False)
def get_size(inpt: ImageLike) -> List[int]:
    """``[height, width]`` of an image or mask, or the ``canvas_size`` of BoundingBoxes / KeyPoints.

    Args:
        inpt: the image ``[..., H, W]`` or any tv_tensor.

    Returns:
        ``[height, width]``.
    """
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


@op_doc(_BOXES, stream=False, differs=(
    "``inplace=True`` between formats of different widths leaves the input alone (torchvision leaves an "
    "intermediate format in it)."))
def convert_bounding_box_format(inpt: torch.Tensor, old_format: Optional[BoundingBoxFormat | str] = None,
                                new_format: Optional[BoundingBoxFormat | str] = None,
                                inplace: bool = False) -> torch.Tensor:
    """Converts boxes to ``new_format``.

    Args:
        inpt: a ``tv_tensors.BoundingBoxes`` or a plain ``[..., K]`` torch tensor of boxes.
        old_format: the format of a plain tensor (required for one; must be None for BoundingBoxes).
        new_format: the format to convert to (required).
        inplace: write the result into ``inpt`` where both formats have the same width.

    Returns:
        The boxes in ``new_format`` (BoundingBoxes keep their metadata, with the new format).

    Raises:
        TypeError: ``new_format`` is missing, or ``inpt`` is neither a torch tensor nor BoundingBoxes.
        ValueError: ``old_format`` is missing for a plain tensor or given for BoundingBoxes.
    """
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


@op_doc(_BOXES, stream=False)
def clamp_bounding_boxes(inpt: torch.Tensor, format: Optional[BoundingBoxFormat | str] = None,
                         canvas_size: Optional[Tuple[int, int]] = None,
                         clamping_mode: Optional[str] = "auto") -> torch.Tensor:
    """Clamps boxes to their canvas.

    Args:
        inpt: a ``tv_tensors.BoundingBoxes`` or a plain torch tensor of boxes.
        format: the boxes' format (a plain tensor only).
        canvas_size: ``(height, width)`` of the canvas (a plain tensor only).
        clamping_mode: ``"soft"``, ``"hard"``, None (no clamping) or ``"auto"``: the BoundingBoxes' own mode
            (a plain tensor needs an explicit one).

    Returns:
        The clamped boxes, of ``inpt``'s kind.

    Raises:
        ValueError: metadata missing for a plain tensor, given for BoundingBoxes, or an unknown mode.
        TypeError: ``inpt`` is neither a torch tensor nor BoundingBoxes.
    """
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


@op_doc(_BOXES.split(";")[0].replace("boxes'", "keypoints'") + ".", stream=False)
def clamp_keypoints(inpt: torch.Tensor, canvas_size: Optional[Tuple[int, int]] = None) -> torch.Tensor:
    """Holds keypoints inside their canvas (x in [0, W - 1], y in [0, H - 1]).

    Args:
        inpt: a ``tv_tensors.KeyPoints`` or a plain ``[..., 2]`` torch tensor of ``(x, y)`` points.
        canvas_size: ``(height, width)`` of the canvas (a plain tensor only).

    Returns:
        The clamped keypoints, of ``inpt``'s kind.

    Raises:
        ValueError: ``canvas_size`` missing for a plain tensor or given for KeyPoints.
        TypeError: ``inpt`` is neither a torch tensor nor KeyPoints.
    """
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


@op_doc(_BOXES, stream=False)
def sanitize_bounding_boxes(bounding_boxes: torch.Tensor, format: Optional[BoundingBoxFormat | str] = None,
                            canvas_size: Optional[Tuple[int, int]] = None, min_size: float = 1.0,
                            min_area: float = 1.0) -> Tuple[torch.Tensor, torch.Tensor]:
    """Removes degenerate boxes: keeps those at least ``min_size`` wide and high, ``min_area`` large and wholly
    inside the canvas. The output's shape depends on the data, so on CUDA this synchronizes with the host
    once, as torchvision's does.

    Args:
        bounding_boxes: a ``tv_tensors.BoundingBoxes`` or a plain ``[N, K]`` torch tensor of boxes.
        format: the boxes' format (a plain tensor only).
        canvas_size: ``(height, width)`` of the canvas (a plain tensor only).
        min_size: the smallest width and height kept.
        min_area: the smallest area kept.

    Returns:
        ``(valid_boxes, keep)``: the kept boxes (of the input's kind) and the ``[N]`` bool mask selecting them.

    Raises:
        ValueError: metadata missing for a plain tensor or given for BoundingBoxes, or another input type.
    """
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
