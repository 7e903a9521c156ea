"""Host-side parameter math of the geometric ops, for the box and keypoint kernels.

The C++ image kernels compute these numbers internally (output sizes, affine matrices,
perspective coefficients); boxes and keypoints are torch math in Python and need the same numbers,
computed the way torchvision 0.26 computes them (Python doubles, or float32 where torchvision
rounds through float32 tensors), so that a box lands where torchvision puts it and a canvas_size is
torchvision's. Everything here runs on the host from Python scalars: no device work, no sync.
"""

import math
import numbers
import struct


def f32(x):
    """x rounded to float32 (what a float32 tensor made from the Python float holds)."""
    return struct.unpack("f", struct.pack("f", x))[0]


# ---- padding, crops, resize --------------------------------------------------------------------
def parse_padding(op, padding):
    """torchvision's padding forms (int, or 1, 2 or 4 ints) as (left, right, top, bottom)."""
    if isinstance(padding, int):
        return padding, padding, padding, padding
    if isinstance(padding, (tuple, list)):
        if len(padding) == 1:
            return padding[0], padding[0], padding[0], padding[0]
        if len(padding) == 2:
            return padding[0], padding[0], padding[1], padding[1]
        if len(padding) == 4:
            return padding[0], padding[2], padding[1], padding[3]
        raise ValueError(f"{op}: argument 'padding': expected an int or 1, 2 or 4 ints, got {len(padding)} values "
                         f"(Padding must be an int or a 1, 2, or 4 element tuple or list. Found {len(padding)})")
    raise TypeError(f"{op}: argument 'padding': expected an int or a sequence of ints, got {padding!r}")


def crop_size(op, size):
    """center_crop's / five_crop's output size as [height, width]."""
    if isinstance(size, numbers.Number):
        return [int(size), int(size)]
    if isinstance(size, (tuple, list)) and len(size) in (1, 2):
        return [size[0], size[0]] if len(size) == 1 else list(size)
    raise ValueError(f"{op}: argument 'output_size': expected an int or a sequence of one or two ints, got {size!r}")


def center_crop_anchor(crop_height, crop_width, height, width):
    """(top, left) of a centred crop, rounded as torchvision rounds it."""
    return int(round((height - crop_height) / 2.0)), int(round((width - crop_width) / 2.0))


def resized_size(op, canvas_size, size, max_size):
    """resize's output (height, width) for an input of canvas_size, by torchvision's rules: one
    value is the shorter edge (the longer one follows the aspect ratio, capped by max_size), two
    are (height, width), None lets max_size set the longer edge."""
    h, w = canvas_size
    if isinstance(size, int):
        size = [size]
    elif size is not None:
        size = list(size)
        if max_size is not None and len(size) != 1:
            raise ValueError(f"{op}: argument 'max_size': expected None when size has two values, got {max_size} "
                             "(max_size should only be passed if size is None or specifies the length of the smaller "
                             "edge, i.e. size should be an int or a sequence of length 1 in torchscript mode.)")
    short, long = (w, h) if w <= h else (h, w)
    if size is None:
        if not isinstance(max_size, int):
            raise ValueError(f"{op}: argument 'max_size': expected an int when size is None, got {max_size!r}")
        new_short, new_long = int(max_size * short / long), max_size
    elif len(size) == 1:
        new_short, new_long = size[0], int(size[0] * long / short)
        if max_size is not None:
            if max_size <= size[0]:
                raise ValueError(f"{op}: argument 'max_size': expected more than the shorter edge {size[0]}, got "
                                 f"{max_size} (max_size = {max_size} must be strictly greater than the requested size "
                                 f"for the smaller edge size = {size})")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
    elif len(size) == 2:
        return int(size[0]), int(size[1])
    else:
        raise ValueError(f"{op}: argument 'size': expected one or two values, got {size!r}")
    return (new_long, new_short) if w <= h else (new_short, new_long)


# ---- affine --------------------------------------------------------------------------------------
def affine_args(op, angle, translate, scale, shear, center):
    """Checks and normalises affine's arguments as torchvision does: (angle, translate, scale,
    [shear_x, shear_y], center or None)."""
    if not isinstance(angle, (int, float)):
        raise TypeError(f"{op}: argument 'angle': expected an int or float, got {type(angle).__name__} "
                        "(Argument angle should be int or float)")
    if not isinstance(translate, (list, tuple)):
        raise TypeError(f"{op}: argument 'translate': expected a sequence, got {type(translate).__name__} "
                        "(Argument translate should be a sequence)")
    if len(translate) != 2:
        raise ValueError(f"{op}: argument 'translate': expected 2 values, got {len(translate)} "
                         "(Argument translate should be a sequence of length 2)")
    if scale <= 0.0:
        raise ValueError(f"{op}: argument 'scale': expected a positive number, got {scale} "
                         "(Argument scale should be positive)")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    elif isinstance(shear, (list, tuple)):
        shear = [shear[0], shear[0]] if len(shear) == 1 else list(shear)
    else:
        raise TypeError(f"{op}: argument 'shear': expected a number or a sequence of two numbers, got "
                        f"{type(shear).__name__} (Shear should be either a single value or a sequence of two values)")
    if len(shear) != 2:
        raise ValueError(f"{op}: argument 'shear': expected two values, got {shear} "
                         f"(Shear should be a sequence containing two values. Got {shear})")
    if center is not None:
        if not isinstance(center, (list, tuple)):
            raise TypeError(f"{op}: argument 'center': expected a sequence, got {type(center).__name__} "
                            "(Argument center should be a sequence)")
        center = [float(c) for c in center]
    return float(angle), list(translate), scale, shear, center


def affine_matrix(center, angle, translate, scale, shear, inverted):
    """The 2x3 affine matrix (row-major, 6 values) of torchvision's convention: translate, then
    about `center` rotate by `angle` degrees clockwise, scale and shear (degrees); `inverted` gives
    the output-to-input map the image warp samples with."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    # rotation-shear part with unit scale, whose determinant is 1
    a = math.cos(rot - sy) / math.cos(sy)
    b = -(a * math.tan(sx) + math.sin(rot))
    c = math.sin(rot - sy) / math.cos(sy)
    d = math.cos(rot) - c * math.tan(sx)
    if inverted:
        m = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
        m[2] += cx - m[0] * (cx + tx) - m[1] * (cy + ty)
        m[5] += cy - m[3] * (cx + tx) - m[4] * (cy + ty)
    else:
        m = [a * scale, b * scale, 0.0, c * scale, d * scale, 0.0]
        m[2] += (cx + tx) - m[0] * cx - m[1] * cy
        m[5] += (cy + ty) - m[3] * cx - m[4] * cy
    return m


def affine_expanded_size(matrix, width, height):
    """rotate/affine's expanded canvas (height, width) for an inverse `matrix`: the image corners
    through it in float32, snapped to 1e-4, then ceil(max) - floor(min), as torchvision's tensor
    version computes it (so expand sizes agree with torchvision to the pixel)."""
    import torch

    hw, hh = 0.5 * width, 0.5 * height
    corners = torch.tensor([[-hw, -hh, 1.0], [-hw, hh, 1.0], [hw, hh, 1.0], [hw, -hh, 1.0]])
    moved = corners @ torch.tensor(matrix, dtype=torch.float32).view(2, 3).T
    lo, hi = moved.aminmax(dim=0)
    half = torch.tensor((hw, hh))
    tol = 1e-4
    hi = hi.add_(half).mul_(1.0 / tol).trunc_().mul_(tol).ceil_()
    lo = lo.add_(half).mul_(1.0 / tol).trunc_().mul_(tol).floor_()
    new_w, new_h = (int(v) for v in hi.sub_(lo))
    return new_h, new_w


# ---- perspective --------------------------------------------------------------------------------
def _row_as_torch_builds_it(values):
    """A least-squares row as torchvision builds it, torch.tensor(list): exact for Python ints,
    float32-rounded when any value is a float."""
    if all(isinstance(v, int) for v in values):
        return [float(v) for v in values]
    return [f32(float(v)) for v in values]


def perspective_coefficients(op, startpoints, endpoints, coefficients):
    """The 8 coefficients mapping output to input pixels: given, or solved from the four point
    pairs by least squares in double precision (LAPACK gels) and rounded to float32, as torchvision."""
    if coefficients is not None:
        if startpoints is not None and endpoints is not None:
            raise ValueError(f"{op}: argument 'coefficients': expected either startpoints/endpoints or coefficients, "
                             "got both (The startpoints/endpoints and the coefficients shouldn't be defined concurrently.)")
        if len(coefficients) != 8:
            raise ValueError(f"{op}: argument 'coefficients': expected 8 values, got {len(coefficients)} "
                             "(Argument coefficients should have 8 float values)")
        return [float(c) for c in coefficients]
    if startpoints is None or endpoints is None:
        raise ValueError(f"{op}: arguments 'startpoints'/'endpoints': expected both, or coefficients, got neither "
                         "(Either the startpoints/endpoints or the coefficients must have non `None` values.)")
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(f"{op}: arguments 'startpoints'/'endpoints': expected four corners each, got "
                         f"{len(startpoints)} and {len(endpoints)}")
    import torch

    rows = []
    for (ex, ey), (sx, sy) in zip(endpoints, startpoints):
        rows.append(_row_as_torch_builds_it([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey]))
        rows.append(_row_as_torch_builds_it([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey]))
    a = torch.tensor(rows, dtype=torch.float64)
    b = torch.tensor(startpoints, dtype=torch.float64).view(8)
    return torch.linalg.lstsq(a, b, driver="gels").solution.to(torch.float32).tolist()


def inverse_perspective(op, c):
    """The coefficients of the input-to-output map (boxes and keypoints move forward, the image
    samples backward), by torchvision's closed form; RuntimeError where it does not exist."""
    denom = c[0] * c[4] - c[1] * c[3]
    if denom == 0:
        raise RuntimeError(f"{op}: argument 'coefficients': expected an invertible map, got {c} "
                           f"(Denominator is zero, denom={denom})")
    return [
        (c[4] - c[5] * c[7]) / denom,
        (-c[1] + c[2] * c[7]) / denom,
        (c[1] * c[5] - c[2] * c[4]) / denom,
        (-c[3] + c[5] * c[6]) / denom,
        (c[0] - c[2] * c[6]) / denom,
        (-c[0] * c[5] + c[2] * c[3]) / denom,
        (-c[4] * c[6] + c[3] * c[7]) / denom,
        (-c[0] * c[7] + c[1] * c[6]) / denom,
    ]
