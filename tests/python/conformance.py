"""Shared machinery of the torchvision conformance tests: random images in several layouts, the
comparison rules of issues 4 and 5, and a record of every comparison (max abs difference and
share of identical values per op, dtype and device) that scripts/gpu-check turns into the table
in bench/RESULTS.md (set SV_CONFORMANCE_JSON to a file to collect it)."""

import json
import os

import torch

TOLERANCE = {  # max abs difference for images in [0, 1] (floats) or [0, max] (ints)
    torch.float32: 1e-5,
    torch.float64: 1e-5,
    torch.float16: 2e-3,   # one ulp near 1 is 9.8e-4; torch may round intermediates differently
    torch.bfloat16: 1.6e-2,
}

_records = []


def record(op, dtype, device, max_abs, identical, note=""):
    _records.append(dict(op=op, dtype=str(dtype).replace("torch.", ""), device=device, max_abs=max_abs,
                         identical=identical, note=note))
    path = os.environ.get("SV_CONFORMANCE_JSON")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(_records[-1]) + "\n")


def random_image(shape, dtype, device, generator):
    if dtype.is_floating_point:
        x = torch.rand(shape, generator=generator, dtype=torch.float64).to(dtype)
    elif dtype == torch.bool:
        x = torch.randint(0, 2, shape, generator=generator).bool()
    else:
        hi = 256 if dtype == torch.uint8 else min(torch.iinfo(dtype).max, 65535) + 1
        x = torch.randint(0, hi, shape, generator=generator, dtype=torch.int64).to(dtype)
    return x.to(device)


def variants(x):
    """The same image contiguous, channels_last (4-D) and sliced out of a larger buffer."""
    yield "contiguous", x
    if x.ndim == 4:
        yield "channels_last", x.contiguous(memory_format=torch.channels_last)
    big = torch.zeros(x.shape[:-1] + (x.shape[-1] + 2,), dtype=x.dtype, device=x.device)
    big[..., 1 : 1 + x.shape[-1]] = x
    yield "sliced", big[..., 1 : 1 + x.shape[-1]]


def compare(op, ours, theirs, rule, what, device):
    """rule: 'exact', or 'close' (float tolerance / uint8 <= 1 and >= 99 % identical), or
    'close:<tol>' with a float32 tolerance of its own."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), what
        for i, (a, b) in enumerate(zip(ours, theirs)):
            compare(op, a, b, rule, f"{what}[{i}]", device)
        return
    assert isinstance(ours, torch.Tensor), f"{what}: got {type(ours)}"
    assert ours.shape == theirs.shape, f"{what}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
    assert ours.dtype == theirs.dtype, f"{what}: dtype {ours.dtype} != {theirs.dtype}"
    theirs = theirs.to(ours.device)
    if ours.numel() == 0:
        return
    if ours.dtype == torch.bool:
        diff = (ours != theirs).to(torch.float64)
    else:
        diff = (ours.to(torch.float64) - theirs.to(torch.float64)).abs()
    max_abs = float(diff.max())
    identical = float((diff == 0).to(torch.float64).mean())
    record(op, ours.dtype, device, max_abs, identical)
    if rule == "exact" or ours.dtype in (torch.bool,):
        assert max_abs == 0, f"{what}: not bit-identical (max abs diff {max_abs}, {identical:.4%} identical)"
        return
    if ours.dtype.is_floating_point:
        tol = TOLERANCE[ours.dtype]
        if rule.startswith("close:") and ours.dtype == torch.float32:
            tol = float(rule.split(":")[1])
        # The bounds are for values in [0, 1]; a fill of 255 on a float image scales the blend's
        # rounding differences with it (torch's CPU grid_sample computes its weights from
        # coordinates in another order than its CUDA kernel, which we follow).
        tol *= max(1.0, float(theirs.abs().max()))
        assert max_abs <= tol, f"{what}: max abs diff {max_abs} > {tol}"
    else:
        assert max_abs <= 1, f"{what}: max abs diff {max_abs} > 1"
        assert identical >= 0.99, f"{what}: only {identical:.4%} identical (>= 99% required)"
