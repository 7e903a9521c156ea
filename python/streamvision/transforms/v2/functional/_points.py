"""Moving [M, 2] point tensors (x, y): the scalings, shifts and affine, perspective and elastic maps
that keypoints and box corners share.

The arithmetic is torchvision 0.26's (its matmuls, its dtypes, its float32 roundings), so points
land where torchvision puts them. Parameters reach the device as kernel arguments: Python scalars,
or small constant tensors written with fill kernels (`device_constant`) instead of a host-to-device
copy, which would wait for the stream and could not be captured in a CUDA graph. Nothing here
reads a value back to the host.
"""

import torch

from . import _geometry_params as P


def device_constant(values, dtype, device):
    """A small constant tensor (nested lists of Python numbers) on `device`: made on the host for
    CPU tensors, else written with fill kernels (`filled`), never copied host-to-device. Values are
    rounded to `dtype` as torch.tensor(values, dtype=dtype) rounds them."""
    if torch.device(device).type == "cpu":
        return torch.tensor(values, dtype=dtype)
    return filled(values, dtype, device)


def filled(values, dtype, device):
    """device_constant's device path: each value a fill kernel's argument (capturable)."""
    rows = values if isinstance(values[0], (list, tuple)) else [values]
    out = torch.empty((len(rows), len(rows[0])), dtype=dtype, device=device)
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            out[i, j].fill_(v)
    return out if isinstance(values[0], (list, tuple)) else out[0]


def float_dtype(t):
    """The dtype torchvision computes a point tensor's geometry in: its own if floating, else float32."""
    return t.dtype if t.is_floating_point() else torch.float32


def scale(t, sx, sy):
    """x (even columns) times sx, y (odd columns) times sy, as torchvision's multiplication by a float32
    [sx, sy, ...] tensor computes it (ratios rounded to float32; the result in the promoted dtype)."""
    out = t.to(torch.promote_types(t.dtype, torch.float32) if t.is_floating_point() else torch.float32, copy=True)
    out[..., 0::2] *= P.f32(sx)
    out[..., 1::2] *= P.f32(sy)
    return out


def homogeneous(points):
    """[M, 2] -> [M, 3] with a column of ones in the points' dtype."""
    return torch.cat([points, torch.ones(points.shape[0], 1, dtype=points.dtype, device=points.device)], dim=-1)


def affine(points, matrix):
    """Points [M, 2] (floating) through a forward 2x3 `matrix` (6 Python floats) in their dtype."""
    m = device_constant([matrix[0:3], matrix[3:6]], points.dtype, points.device)
    return torch.matmul(homogeneous(points), m.T)


def expand_shift(matrix, canvas_size, dtype):
    """How far the canvas corners moved below (0, 0) under a forward `matrix`, as host floats
    (tx, ty): expand's translation back into the new canvas. Computed on the host in `dtype`."""
    height, width = canvas_size
    corners = torch.tensor([[0.0, 0.0, 1.0], [0.0, float(height), 1.0], [float(width), float(height), 1.0],
                            [float(width), 0.0, 1.0]], dtype=dtype)
    m = torch.tensor([matrix[0:3], matrix[3:6]], dtype=dtype)
    tx, ty = torch.matmul(corners, m.T).amin(dim=0).tolist()
    return tx, ty


def perspective(points, inverse, dtype):
    """Points [M, 2] (any dtype) through the forward perspective map with `inverse` coefficients
    (P.inverse_perspective), computed in `dtype`: torchvision's two matmuls and a division."""
    num = device_constant([inverse[0:3], inverse[3:6]], dtype, points.device)
    den = device_constant([[inverse[6], inverse[7], 1.0], [inverse[6], inverse[7], 1.0]], dtype, points.device)
    ones = torch.ones(points.shape[0], 1, device=points.device)  # float32, as torchvision's
    h = torch.cat([points, ones], dim=-1)
    if h.dtype != dtype:
        h = h.to(dtype)
    return torch.matmul(h, num.T).div_(torch.matmul(h, den.T))


def check_displacement(op, displacement, canvas_size):
    if not isinstance(displacement, torch.Tensor):
        raise TypeError(f"{op}: argument 'displacement': expected a torch.Tensor, got {type(displacement).__name__} "
                        "(Argument displacement should be a Tensor)")
    expected = (1, canvas_size[0], canvas_size[1], 2)
    if tuple(displacement.shape) != expected:
        raise ValueError(f"{op}: argument 'displacement': expected shape {list(expected)}, got "
                         f"{list(displacement.shape)} (Argument displacement shape should be {expected}, but given "
                         f"{displacement.shape})")


def elastic_lookup(ix, iy, displacement, canvas_size, dtype):
    """Where the elastic map sends pixel (ix, iy) (int64 [M] each, in range): torchvision's
    approximate inverse, identity grid minus displacement, at those pixels, in pixel coordinates.
    Only the looked-up grid entries are formed, not the whole H x W grid."""
    height, width = canvas_size
    d = displacement.to(dtype=dtype, device=ix.device)
    gx = torch.linspace((-width + 1) / width, (width - 1) / width, width, device=ix.device, dtype=dtype)
    gy = torch.linspace((-height + 1) / height, (height - 1) / height, height, device=ix.device, dtype=dtype)
    moved = torch.stack([gx[ix], gy[iy]], dim=-1).sub_(d[0, iy, ix, :])
    moved.add_(1)
    moved[:, 0].mul_(0.5 * width)
    moved[:, 1].mul_(0.5 * height)
    return moved.sub_(0.5)


def pixel_index(coordinate, size):
    """Integer pixel indices of coordinates (already whole numbers) into an axis of `size`:
    negative ones counted from the end as torch indexing counts them, and ones past the end held at
    the last pixel (where torchvision's indexing would fail; see elastic in _boxes)."""
    index = coordinate.to(torch.int64)
    index = torch.where(index < 0, index + size, index)
    return index.clamp_(0, size - 1)
