"""Bounding-box formats: conversion between them, clamping to the canvas (axis-aligned and
rotated, per clamping_mode), the rectangle of a transformed parallelogram, and validity.

torchvision 0.26 defines these numbers, and every geometric box op goes through them, so they
follow its arithmetic step for step (the order of additions, integer floor divisions, the float32
detours): a box converted, clamped or sanitized here equals torchvision's. All of it is torch math
on the boxes' own device: no host sync, no Python loop over boxes, no data-dependent shape.

Formats are handled by name ("XYXY", ...); callers pass a str or a tv_tensors.BoundingBoxFormat.
Axis-aligned formats go through XYXY, rotated ones through XYWHR (angles in degrees,
counter-clockwise), as torchvision's converter does.
"""

import math

import torch

AXIS_ALIGNED = ("XYXY", "XYWH", "CXCYWH")
ROTATED = ("XYWHR", "CXCYWHR", "XYXYXYXY")
WIDTH = {"XYXY": 4, "XYWH": 4, "CXCYWH": 4, "XYWHR": 5, "CXCYWHR": 5, "XYXYXYXY": 8}
CLAMPING_MODES = ("soft", "hard", None)


def format_name(op, argument, fmt):
    """The format's name from a BoundingBoxFormat or a string (any case)."""
    name = getattr(fmt, "value", fmt)
    if isinstance(name, str) and name.upper() in WIDTH:
        return name.upper()
    raise ValueError(f"{op}: argument '{argument}': expected a BoundingBoxFormat or one of "
                     f"{', '.join(WIDTH)}, got {fmt!r}")


def is_rotated(fmt):
    return fmt in ROTATED


def points_format(fmt):
    """The corner format a box op moves points in: XYXY for axis-aligned boxes, XYXYXYXY for rotated."""
    return "XYXYXYXY" if fmt in ROTATED else "XYXY"


# ---- conversion -----------------------------------------------------------------------------------
def _floor_div_if_int(t, divisor):
    return t.div(divisor, rounding_mode=None if t.is_floating_point() else "floor")


def _radians(boxes):
    return boxes[..., 4].mul(math.pi).div(180.0)


def _xywh_to_xyxy(b):
    out = b.clone()
    out[..., 2:] += out[..., :2]
    return out


def _xyxy_to_xywh(b):
    out = b.clone()
    out[..., 2:] -= out[..., :2]
    return out


def _cxcywh_to_xyxy(b):
    # integer boxes are converted in float32 and truncated back, as torchvision.ops' box_convert
    out = b.clone() if b.is_floating_point() else b.float()
    out[..., :2] -= out[..., 2:] / 2
    out[..., 2:] += out[..., :2]
    return out.to(b.dtype)


def _xyxy_to_cxcywh(b):
    out = b.clone()
    out[..., 2:] -= out[..., :2]
    centre = out[..., :2]
    centre.mul_(2).add_(out[..., 2:]).div_(2, rounding_mode=None if out.is_floating_point() else "floor")
    return out


def _cxcywhr_to_xywhr(b):
    out = b.clone()
    half = _floor_div_if_int(out[..., 2:4], -2).abs_()
    r = _radians(out)
    cos, sin = r.cos(), r.sin()
    out[..., 0].sub_(half[..., 0].mul(cos)).sub_(half[..., 1].mul(sin))
    out[..., 1].add_(half[..., 0].mul(sin)).sub_(half[..., 1].mul(cos))
    return out


def _xywhr_to_cxcywhr(b):
    out = b.clone()
    half = _floor_div_if_int(out[..., 2:4], -2).abs_()
    r = _radians(out)
    cos, sin = r.cos(), r.sin()
    out[..., 0].add_(half[..., 0].mul(cos)).add_(half[..., 1].mul(sin))
    out[..., 1].sub_(half[..., 0].mul(sin)).add_(half[..., 1].mul(cos))
    return out


def _xywhr_to_xyxyxyxy(b):
    w, h = b[..., 2], b[..., 3]
    r = _radians(b)
    cos, sin = r.cos(), r.sin()
    out = b[..., :2].tile((1, 4))  # (x1, y1) four times, then each corner moves from it
    out[..., 2].add_(w.mul(cos))
    out[..., 3].sub_(w.mul(sin))
    out[..., 4].add_(w.mul(cos).add(h.mul(sin)))
    out[..., 5].sub_(w.mul(sin).sub(h.mul(cos)))
    out[..., 6].add_(h.mul(sin))
    out[..., 7].add_(h.mul(cos))
    return out


def _xyxyxyxy_to_xywhr(b):
    # in float32 unless float32/64 already (squares of half floats overflow), as torchvision
    work = b.clone() if b.dtype in (torch.float32, torch.float64) else b.to(torch.float32)
    r = torch.atan2(work[..., 1].sub(work[..., 3]), work[..., 2].sub(work[..., 0]))
    work[..., 4:6].sub_(work[..., 2:4])  # second edge
    work[..., 2:4].sub_(work[..., :2])  # first edge
    work[..., 2] = work[..., 2].pow(2).add(work[..., 3].pow(2)).sqrt()
    work[..., 3] = work[..., 4].pow(2).add(work[..., 5].pow(2)).sqrt()
    work[..., 4] = r.div_(math.pi).mul_(180.0)
    return work.to(b.dtype)[..., :5]


_TO_BASE = {"XYWH": _xywh_to_xyxy, "CXCYWH": _cxcywh_to_xyxy, "CXCYWHR": _cxcywhr_to_xywhr,
            "XYXYXYXY": _xyxyxyxy_to_xywhr}
_FROM_BASE = {"XYWH": _xyxy_to_xywh, "CXCYWH": _xyxy_to_cxcywh, "CXCYWHR": _xywhr_to_cxcywhr,
              "XYXYXYXY": _xywhr_to_xyxyxyxy}


def convert(boxes, old, new, op="convert_bounding_box_format"):
    """boxes (a plain tensor [..., K]) from format `old` to `new`, never in place; the input itself
    when the formats agree."""
    if old == new:
        return boxes
    if is_rotated(old) != is_rotated(new):
        raise ValueError(f"{op}: argument 'new_format': expected a format of the same kind as {old}, got {new} "
                         "(Cannot convert between rotated and unrotated bounding boxes.)")
    if old in _TO_BASE:
        boxes = _TO_BASE[old](boxes)
    if new in _FROM_BASE:
        boxes = _FROM_BASE[new](boxes)
    return boxes


# ---- clamping ---------------------------------------------------------------------------------------
def clamp(boxes, fmt, canvas_size, mode):
    """Boxes clamped to the canvas per clamping_mode (None: a copy)."""
    if mode is None:
        return boxes.clone()
    if is_rotated(fmt):
        return _clamp_rotated(boxes, fmt, canvas_size, mode)
    # soft and hard agree for axis-aligned boxes: the corners are clamped
    work = boxes.clone() if boxes.is_floating_point() else boxes.float()
    xyxy = convert(work, fmt, "XYXY")
    xyxy[..., 0::2].clamp_(min=0, max=canvas_size[1])
    xyxy[..., 1::2].clamp_(min=0, max=canvas_size[0])
    return convert(xyxy, "XYXY", fmt).to(boxes.dtype)


def _edge_lines(corners):
    """Slope and y-intercept of the four edges (corner i to corner i+1) of [N, 8] corners."""
    x, y = corners[..., 0::2], corners[..., 1::2]
    slope = y.diff(append=y[..., :1]) / x.diff(append=x[..., :1])
    return slope, y - slope * x


def _start_at_leftmost(corners, order=None):
    """Corners rotated (cyclically) to start at the leftmost one (ties: the higher one), or by a
    given order; returns (order, corners). The order is an [N, 8] gather index."""
    if order is None:
        x, y = corners[..., 0::2], corners[..., 1::2]
        score = y / y.abs().amax(dim=1, keepdim=True) + (x / x.abs().amax(dim=1, keepdim=True)) * 100
        first = score.min(dim=1).indices
        order = torch.ones_like(corners)
        order[..., 0] = first.mul(2)
        order.cumsum_(1).remainder_(8)
    return order, corners.gather(1, order.to(torch.int64))


def _clamped_intercepts(corners, original, canvas_size, mode):
    """The edges' y-intercepts moved so the box keeps its angles and stays inside the left part of
    the canvas: the smallest such box around the box-canvas intersection (soft), or the largest
    inside both (hard); never beyond the original box's edges."""
    height, width = canvas_size
    slope, intercept = _edge_lines(corners)
    a1, a2, a3, a4 = slope.unbind(-1)
    b1, b2, b3, b4 = intercept.unbind(-1)
    o1, o2, o3, o4 = _edge_lines(original)[1].unbind(-1)
    b1 = b2.clamp(b1, b3).clamp(0, height)
    b4 = b3.clamp(b2, b4).clamp(0, height)
    if mode == "hard":
        b1 = b4 = (b1 + b4) / 2  # one tensor: the two edges stay tied through the clamps below
        b2 = torch.stack([b1 * a2 / a1, b3 * a2 / a3, (a1 - a2) * width + b1, (a3 - a2) * width + b3],
                         dim=1).max(dim=1).values.clamp(max=b2)
        b3 = torch.stack([height * (1 - a3 / a4) + b4 * a3 / a4, height * (1 - a3 / a2) + b2 * a3 / a2,
                          (a2 - a3) * width + b2, (a4 - a3) * width + b4], dim=1).min(dim=1).values.clamp(min=b3)
    b1.clamp_(o1, o3)
    b3.clamp_(o1, o3)
    b2.clamp_(o2, o4)
    b4.clamp_(o2, o4)
    return torch.stack([b1, b2, b3, b4], dim=-1)


def _clamp_left_edge(corners, original, canvas_size, mode):
    """One side of the rotated clamp: corners [N, 8] starting at the leftmost, kept right of x=0."""
    slope = _edge_lines(corners)[0]
    x1, y1, x2, y2, x3, y3, x4, y4 = corners.unbind(-1)
    intercept = _clamped_intercepts(corners, original, canvas_size, mode)
    # the new corners: where consecutive edges meet
    cx = intercept.diff(prepend=intercept[..., 3:4]).neg() / slope.diff(prepend=slope[..., 3:4])
    crossing = torch.stack((cx, slope * cx + intercept), dim=-1).view(corners.shape[0], 8)
    pushed = corners.clone()
    pushed[..., 0].clamp_(0)
    pushed[..., 6].clamp_(0)
    axis_like = y1.isclose(y2) | y3.isclose(y4)
    cases = (
        ((x1 < 0) & ~crossing.isnan().any(-1), crossing),
        (axis_like, pushed),
        (((x1 <= 0) & (x2 <= 0) & (x3 <= 0) & (x4 <= 0)) | y1.isclose(y4) | y2.isclose(y3)
         | (axis_like & x1.isclose(x2)), torch.zeros_like(pushed)),
    )
    for condition, replacement in cases:  # later cases win, as in torchvision
        corners = torch.where(condition.unsqueeze(1).repeat(1, 8), replacement.reshape(-1, 8), corners)
    return corners


def _quarter_turn(corners, canvas_size):
    """Corners turned 90 degrees counter-clockwise within the canvas; the canvas turns with them."""
    turned = torch.empty_like(corners)
    turned[:, 0::2] = corners[:, 1::2]
    turned[:, 1::2] = canvas_size[1] - corners[:, 0::2]
    return turned, (canvas_size[1], canvas_size[0])


def _clamp_rotated(boxes, fmt, canvas_size, mode):
    """torchvision's rotated clamp: four times, clamp the side at x=0 and turn the canvas."""
    shape = boxes.shape
    corners = convert(boxes.clone(), fmt, "XYXYXYXY").reshape(-1, 8)
    original = corners.clone()
    for _ in range(4):
        order, corners = _start_at_leftmost(corners)
        original = _start_at_leftmost(original, order)[1]
        corners = _clamp_left_edge(corners, original, canvas_size, mode)
        # torchvision applies the same gather again here (not its inverse); so do we
        corners = _start_at_leftmost(corners, order)[1]
        original = _start_at_leftmost(original, order)[1]
        corners, turned_canvas = _quarter_turn(corners, canvas_size)
        original = _quarter_turn(original, canvas_size)[0]
        canvas_size = turned_canvas
    return convert(corners, "XYXYXYXY", fmt).reshape(shape)


# ---- parallelograms ---------------------------------------------------------------------------------
def parallelogram_to_rectangle(p):
    """[..., 8] parallelogram corners -> the rectangle that keeps the longer diagonal's two
    corners (what a sheared or anisotropically scaled rotated box becomes)."""
    dtype = p.dtype
    if dtype not in (torch.float32, torch.float64):
        p = p.to(torch.float32)
    x1, y1, x2, y2, x3, y3, x4, y4 = p.unbind(-1)
    cx, cy = (x1 + x3) / 2, (y1 + y3) / 2
    wp = torch.sqrt((x2 - x1) ** 2 + (y2 - y1) ** 2)
    hp = torch.sqrt((x4 - x1) ** 2 + (y4 - y1) ** 2)
    r12 = torch.atan2(y1 - y2, x2 - x1)
    r14 = torch.atan2(y1 - y4, x4 - x1)
    r = r12 - r14
    sign = torch.where(r > torch.pi / 2, -1, 1)
    cos, sin = r.cos(), r.sin()
    w = torch.where(wp < hp, wp * sin, wp + hp * cos * sign)
    h = torch.where(wp > hp, hp * sin, hp + wp * cos * sign)
    r = torch.where(hp > wp, r14 + torch.pi / 2, r12)
    cos, sin = r.cos(), r.sin()
    wc, ws, hc, hs = w / 2 * cos, w / 2 * sin, h / 2 * cos, h / 2 * sin
    out = torch.stack((cx - wc - hs, cy - hc + ws, cx + wc - hs, cy - hc - ws,
                       cx + wc + hs, cy + hc - ws, cx - wc + hs, cy + hc + ws), dim=-1)
    return out.reshape(p.shape).to(dtype)


# ---- validity ----------------------------------------------------------------------------------------
def valid_mask(boxes, fmt, canvas_size, min_size, min_area):
    """[N] bool: boxes at least min_size wide and high, min_area in area, with every corner inside
    the canvas (torchvision's rule, including its choice of coordinates for a rotated box's height)."""
    corners = convert(boxes, fmt, points_format(fmt))
    height, width = canvas_size
    if is_rotated(fmt):
        ws = torch.sqrt((corners[..., 0] - corners[..., 2]) ** 2 + (corners[..., 1] - corners[..., 3]) ** 2)
        # the height as torchvision 0.26 measures it: from y2 - y3 and x3 - x4 (columns 3-5, 4-6), not
        # from the second edge; kept so that the same boxes survive
        hs = torch.sqrt((corners[..., 3] - corners[..., 5]) ** 2 + (corners[..., 4] - corners[..., 6]) ** 2)
    else:
        ws, hs = corners[:, 2] - corners[:, 0], corners[:, 3] - corners[:, 1]
    valid = (ws >= min_size) & (hs >= min_size) & (corners >= 0).all(dim=-1) & (ws * hs >= min_area)
    for column in range(0, corners.shape[-1], 2):
        valid &= (corners[:, column] <= width) & (corners[:, column + 1] <= height)
    return valid
