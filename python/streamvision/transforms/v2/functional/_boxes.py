"""Geometric ops on bounding boxes, as torchvision 0.26's box kernels move them.

Each op takes the plain tensor and the boxes' metadata (`Meta`: format name, canvas_size,
clamping_mode) and returns (boxes, new canvas_size) in the input's format and dtype. Boxes that
move off-axis (rotate, affine, perspective, elastic) go through their corners: an axis-aligned box
becomes the axis-aligned box around its moved corners, a rotated box the rectangle of its moved
parallelogram (_box_meta.parallelogram_to_rectangle). Results are clamped to the new canvas per
clamping_mode wherever torchvision clamps them (not after flips or a resize of axis-aligned boxes).
"""

from collections import namedtuple

import torch

from . import _box_meta as B
from . import _geometry_params as P
from . import _points

Meta = namedtuple("Meta", "format canvas_size clamping_mode")


def _shift(boxes, fmt, dx, dy):
    """Boxes moved by (dx, dy) pixels in their own format (only positions move, not sizes)."""
    out = boxes.clone()
    if fmt in ("XYXY", "XYXYXYXY"):  # every coordinate is a position
        xs, ys = slice(0, None, 2), slice(1, None, 2)
    else:  # (x, y) then sizes (and an angle)
        xs, ys = 0, 1
    out[..., xs] += dx
    out[..., ys] += dy
    return out


def _corners(xyxy):
    """[N, 4] XYXY -> [4N, 2] corners: top-left, top-right, bottom-right, bottom-left."""
    x1, y1, x2, y2 = xyxy.unbind(-1)
    return torch.stack([x1, y1, x2, y1, x2, y2, x1, y2], dim=-1).reshape(-1, 2)


def _enclosing(points, fmt):
    """Moved corners [4N, 2] -> boxes in the points format: the enclosing XYXY box, or the rectangle
    of the parallelogram for rotated boxes."""
    if B.is_rotated(fmt):
        return B.parallelogram_to_rectangle(points.reshape(-1, 8))
    lo, hi = torch.aminmax(points.reshape(-1, 4, 2), dim=1)
    return torch.cat([lo, hi], dim=1)


# ---- flips ------------------------------------------------------------------------------------------
def _flip(b, meta, axis):
    """Boxes mirrored across the canvas' vertical (axis 0: x -> W - x) or horizontal (axis 1)
    centre line. Flips never clamp."""
    extent = meta.canvas_size[1 - axis]
    f = meta.format
    out = b.clone().reshape(-1, B.WIDTH[f])
    if f == "XYXY":  # the two edges swap
        low, high = out[:, axis].clone(), out[:, axis + 2].clone()
        out[:, axis] = extent - high
        out[:, axis + 2] = extent - low
    elif f == "XYWH":
        out[:, axis] = extent - (out[:, axis] + out[:, axis + 2])
    elif f in ("CXCYWH", "CXCYWHR"):
        out[:, axis] = extent - out[:, axis]
    elif f == "XYXYXYXY":
        out[:, axis::2] = extent - out[:, axis::2]
        out = out.reshape(-1, 2, 2, 2).flip(2).reshape(-1, 8)  # corners (2, 1, 4, 3): the winding is kept
    else:  # XYWHR: the new first corner is the mirrored second one (w along the angle from the first)
        r = out[:, 4].mul(torch.pi).div(180)
        second_x, second_y = out[:, 0] + out[:, 2].mul(r.cos()), out[:, 1] - out[:, 2].mul(r.sin())
        out[:, 0], out[:, 1] = second_x, second_y
        out[:, axis] = extent - out[:, axis]
    if f in ("XYWHR", "CXCYWHR"):
        out[:, 4] = -out[:, 4] if axis == 0 else 180 - out[:, 4]
    return out.reshape(b.shape), meta.canvas_size


def horizontal_flip(b, meta):
    return _flip(b, meta, 0)


def vertical_flip(b, meta):
    return _flip(b, meta, 1)


# ---- resize, crop, pad --------------------------------------------------------------------------------
def resize(b, meta, size, max_size, op="resize"):
    old = tuple(meta.canvas_size)
    new = P.resized_size(op, old, size, max_size)
    if new == old:
        return b, meta.canvas_size
    sx, sy = new[1] / old[1], new[0] / old[0]
    if not B.is_rotated(meta.format):
        return _points.scale(b, sx, sy).to(b.dtype), new
    corners = _points.scale(B.convert(b, meta.format, "XYXYXYXY").reshape(-1, 8), sx, sy)
    out = B.clamp(B.parallelogram_to_rectangle(corners), "XYXYXYXY", new, meta.clamping_mode)
    return B.convert(out, "XYXYXYXY", meta.format).to(b.dtype).reshape(b.shape), new


def crop(b, meta, top, left, height, width):
    out = _shift(b, meta.format, -left, -top)
    if meta.format == "XYXYXYXY":
        out = B.parallelogram_to_rectangle(out)
    return B.clamp(out, meta.format, (height, width), meta.clamping_mode), (height, width)


def center_crop(b, meta, output_size):
    height, width = P.crop_size("center_crop", output_size)
    top, left = P.center_crop_anchor(height, width, *meta.canvas_size)
    return crop(b, meta, top, left, height, width)


def resized_crop(b, meta, top, left, height, width, size):
    b, canvas_size = crop(b, meta, top, left, height, width)
    return resize(b, meta._replace(canvas_size=canvas_size), size, None, op="resized_crop")


def pad(b, meta, padding, padding_mode):
    if padding_mode != "constant":
        raise ValueError(f"pad: argument 'padding_mode': expected 'constant' for BoundingBoxes, got {padding_mode!r} "
                         f"(Padding mode '{padding_mode}' is not supported with bounding boxes)")
    left, right, top, bottom = P.parse_padding("pad", padding)
    canvas_size = (meta.canvas_size[0] + top + bottom, meta.canvas_size[1] + left + right)
    out = _shift(b, meta.format, left, top)
    return B.clamp(out, meta.format, canvas_size, meta.clamping_mode), canvas_size


# ---- warps ------------------------------------------------------------------------------------------------
def _through_corners(b, meta, move):
    """The shared path of the warps: boxes -> corners in float -> move(points) -> enclosing boxes
    (in the points format) -> back to the boxes' format and dtype. `move` returns the moved points,
    the new canvas_size and a (dx, dy) shift of the enclosing boxes into it; the result is clamped
    to that canvas."""
    f = meta.format
    inter = B.points_format(f)
    work = b.clone() if b.is_floating_point() else b.float()
    work = B.convert(work, f, inter).reshape(-1, B.WIDTH[inter])
    points = work.reshape(-1, 2) if B.is_rotated(f) else _corners(work)
    moved, canvas_size, (dx, dy) = move(points)
    out = _enclosing(moved, f)
    if dx or dy:
        out = _shift(out, inter, dx, dy)
    out = B.clamp(out, inter, canvas_size, meta.clamping_mode)
    return B.convert(out, inter, f).reshape(b.shape).to(b.dtype), canvas_size


def affine(b, meta, angle, translate, scale, shear, center, expand=False, op="affine"):
    angle, translate, scale, shear, center = P.affine_args(op, angle, translate, scale, shear, center)
    if b.numel() == 0:
        return b, meta.canvas_size
    height, width = meta.canvas_size
    if center is None:
        center = [width * 0.5, height * 0.5]
    matrix = P.affine_matrix(center, angle, translate, scale, shear, inverted=False)

    def move(points):
        moved = _points.affine(points, matrix)
        if not expand:
            return moved, meta.canvas_size, (0.0, 0.0)
        # the new canvas starts where the moved image corners reach furthest up and left
        tx, ty = _points.expand_shift(matrix, meta.canvas_size, points.dtype)
        inverse = P.affine_matrix(center, angle, translate, scale, shear, inverted=True)
        return moved, P.affine_expanded_size(inverse, width, height), (-tx, -ty)

    return _through_corners(b, meta, move)


def rotate(b, meta, angle, expand, center):
    return affine(b, meta, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], center, expand=expand, op="rotate")


def perspective(b, meta, startpoints, endpoints, coefficients):
    coefficients = P.perspective_coefficients("perspective", startpoints, endpoints, coefficients)
    if b.numel() == 0:
        return b, meta.canvas_size
    inverse = P.inverse_perspective("perspective", coefficients)
    f = meta.format
    inter = B.points_format(f)
    # torchvision converts before going to float (integer XYWH stays integer on the way to XYXY)
    corners = B.convert(b, f, inter).reshape(-1, B.WIDTH[inter])
    points = corners.reshape(-1, 2) if B.is_rotated(f) else _corners(corners)
    moved = _points.perspective(points, inverse, _points.float_dtype(corners))
    out = B.clamp(_enclosing(moved, f), inter, meta.canvas_size, meta.clamping_mode)
    return B.convert(out, inter, f).reshape(b.shape).to(b.dtype), meta.canvas_size


def elastic(b, meta, displacement):
    """Each corner (the centre for rotated boxes, whose size and angle stay) moves by the
    displacement at its pixel (coordinates rounded up). A corner on the canvas' right or bottom
    edge is looked up at the last pixel: torchvision 0.26 indexes one past the end there and fails
    (IndexError; a device assert on CUDA), so this is the one place we define a result it lacks."""
    _points.check_displacement("elastic", displacement, meta.canvas_size)
    if b.numel() == 0:
        return b, meta.canvas_size
    f = meta.format
    rotated = B.is_rotated(f)
    inter = "CXCYWHR" if rotated else "XYXY"
    boxes = B.convert(b.clone(), f, inter).reshape(-1, B.WIDTH[inter])
    points = boxes[:, :2] if rotated else _corners(boxes)
    if points.is_floating_point():
        points = points.ceil()
    height, width = meta.canvas_size
    ix, iy = _points.pixel_index(points[:, 0], width), _points.pixel_index(points[:, 1], height)
    moved = _points.elastic_lookup(ix, iy, displacement, meta.canvas_size, _points.float_dtype(b))
    if rotated:
        out = torch.cat([moved, boxes[:, 2:]], dim=1).to(boxes.dtype)
    else:
        lo, hi = torch.aminmax(moved.reshape(-1, 4, 2), dim=1)
        out = torch.cat([lo, hi], dim=1).to(boxes.dtype)
    out = B.clamp(out, inter, meta.canvas_size, meta.clamping_mode)
    return B.convert(out, inter, f).reshape(b.shape), meta.canvas_size
