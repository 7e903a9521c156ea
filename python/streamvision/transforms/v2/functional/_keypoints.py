"""Geometric ops on keypoints: plain tensors [..., 2] of (x, y) with their canvas_size, as
torchvision 0.26's keypoint kernels move them. Each op returns (points, new canvas_size); points
are never clamped by an op (clamp_keypoints does that on request), unlike boxes.
"""

import torch

from . import _geometry_params as P
from . import _points


def horizontal_flip(k, canvas_size):
    out = k.clone()
    out[..., 0] = (canvas_size[1] - 1) - out[..., 0]
    return out, canvas_size


def vertical_flip(k, canvas_size):
    out = k.clone()
    out[..., 1] = (canvas_size[0] - 1) - out[..., 1]
    return out, canvas_size


def resize(k, canvas_size, size, max_size, op="resize"):
    new = P.resized_size(op, canvas_size, size, max_size)
    if new == tuple(canvas_size):
        return k, canvas_size
    return _points.scale(k, new[1] / canvas_size[1], new[0] / canvas_size[0]).to(k.dtype), new


def crop(k, canvas_size, top, left, height, width):
    out = k.clone()
    out[..., 0] -= left
    out[..., 1] -= top
    return out, (height, width)


def center_crop(k, canvas_size, output_size):
    height, width = P.crop_size("center_crop", output_size)
    top, left = P.center_crop_anchor(height, width, *canvas_size)
    return crop(k, canvas_size, top, left, height, width)


def resized_crop(k, canvas_size, top, left, height, width, size):
    k, canvas_size = crop(k, canvas_size, top, left, height, width)
    return resize(k, canvas_size, size, None, op="resized_crop")


def pad(k, canvas_size, padding, padding_mode):
    if padding_mode != "constant":
        raise ValueError(f"pad: argument 'padding_mode': expected 'constant' for KeyPoints, got {padding_mode!r} "
                         f"(Padding mode '{padding_mode}' is not supported with KeyPoints)")
    left, right, top, bottom = P.parse_padding("pad", padding)
    out = k.clone()
    out[..., 0] += left
    out[..., 1] += top
    return out, (canvas_size[0] + top + bottom, canvas_size[1] + left + right)


def affine(k, canvas_size, angle, translate, scale, shear, center, expand=False, op="affine"):
    angle, translate, scale, shear, center = P.affine_args(op, angle, translate, scale, shear, center)
    if k.numel() == 0:
        return k, canvas_size
    work = k.clone() if k.is_floating_point() else k.float()
    if center is None:
        center = [canvas_size[1] * 0.5, canvas_size[0] * 0.5]
    matrix = P.affine_matrix(center, angle, translate, scale, shear, inverted=False)
    moved = _points.affine(work.reshape(-1, 2), matrix)
    if expand:
        tx, ty = _points.expand_shift(matrix, canvas_size, work.dtype)
        moved[:, 0] -= tx
        moved[:, 1] -= ty
        inverse = P.affine_matrix(center, angle, translate, scale, shear, inverted=True)
        canvas_size = P.affine_expanded_size(inverse, canvas_size[1], canvas_size[0])
    return moved.reshape(k.shape).to(k.dtype), canvas_size


def rotate(k, canvas_size, angle, expand, center):
    return affine(k, canvas_size, -angle, [0.0, 0.0], 1.0, [0.0, 0.0], center, expand=expand, op="rotate")


def perspective(k, canvas_size, startpoints, endpoints, coefficients):
    coefficients = P.perspective_coefficients("perspective", startpoints, endpoints, coefficients)
    if k.numel() == 0:
        return k, canvas_size
    inverse = P.inverse_perspective("perspective", coefficients)
    moved = _points.perspective(k.reshape(-1, 2), inverse, _points.float_dtype(k))
    return moved.to(k.dtype).reshape(k.shape), canvas_size


def elastic(k, canvas_size, displacement):
    _points.check_displacement("elastic", displacement, canvas_size)
    if k.numel() == 0:
        return k, canvas_size
    flat = k.reshape(-1, 2)
    # truncated to pixels and held inside the canvas, as torchvision does for keypoints
    ix = flat[:, 0].to(torch.int64).clamp_(0, canvas_size[1] - 1)
    iy = flat[:, 1].to(torch.int64).clamp_(0, canvas_size[0] - 1)
    moved = _points.elastic_lookup(ix, iy, displacement, canvas_size, _points.float_dtype(k))
    return moved.to(k.dtype).reshape(k.shape), canvas_size


def clamp(k, canvas_size):
    """Keypoints held inside the canvas: x in [0, W - 1], y in [0, H - 1] (pixel centres, unlike
    boxes' [0, W])."""
    work = k.clone() if k.is_floating_point() else k.float()
    work[..., 0].clamp_(min=0, max=canvas_size[1] - 1)
    work[..., 1].clamp_(min=0, max=canvas_size[0] - 1)
    return work.to(k.dtype)
