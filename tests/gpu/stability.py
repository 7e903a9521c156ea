#!/usr/bin/env python3
"""Long-run stability of streamvision on the GPU (issue 15 part 4). Two phases:

1. **Random calls**: `--calls` op calls (default 10^6) over random ops, dtypes (every dtype;
   dtypes an op has no kernel for count as refused, any other error fails the run) and shapes
   (1x1 to 4K, batch 1-64, 1/3/4 channels, contiguous, channels_last and sliced layouts), in
   `--threads` threads (default 4), each on its own torch stream. At every checkpoint the threads
   meet at a barrier, their streams are synchronised and memory is measured: bytes allocated in
   torch's caching allocator and streamvision's own pool, then, after emptying both caches, the
   bytes they still reserve and the device's used bytes (cudaMemGetInfo, through
   torch.cuda.mem_get_info). After warm-up (the first quarter) these must stay flat. (Without the
   emptying, a cache grows with random shapes until it holds the largest working set: +15 GB over
   10^6 calls on the H200, every byte of it free and reusable, which is not a leak.) Every `--sample-every`-th call of a
   deterministic op keeps its input and output (copies, small tensors only); after the run each is
   recomputed single-threaded on the default stream and must be equal bit for bit.
2. **Stream stress** (`--stress-iters`, default 20000): streams created and dropped while ops are
   in flight on them (torch streams and streamvision streams given as `stream=`), inputs freed as
   soon as the op returns, `torch.cuda.empty_cache()` in between; outputs of a sample are checked
   against a recomputation, and memory must come back to where it started.

Prints memory per checkpoint and a final verdict line ("STABILITY: PASS" / "STABILITY: FAIL ...");
the exit status is 0 only on PASS. `--device cpu` runs the same logic on CPU tensors (no streams,
no device memory) for testing this script without a GPU:

    python tests/gpu/stability.py                          # the full run on the GPU (about 1 min on an H200)
    python tests/gpu/stability.py --device cpu --calls 400 --max-side 64 --stress-iters 50
"""

import argparse
import math
import random
import sys
import threading
import time
import traceback

import torch

import streamvision as sv
import streamvision.transforms.v2.functional as F

UnsupportedDTypeError = getattr(sv, "UnsupportedDTypeError", None) or getattr(sv._C, "UnsupportedDTypeError", TypeError)

IMAGE_DTYPES = [torch.uint8, torch.uint16, torch.float16, torch.bfloat16, torch.float32, torch.float64]
OTHER_DTYPES = [torch.bool, torch.int8, torch.int16, torch.int32, torch.int64]
MODES = [F.InterpolationMode.NEAREST, F.InterpolationMode.NEAREST_EXACT, F.InterpolationMode.BILINEAR,
         F.InterpolationMode.BICUBIC]
GRID_MODES = [F.InterpolationMode.NEAREST, F.InterpolationMode.BILINEAR]


def _max_value(x):
    return 1.0 if x.dtype.is_floating_point else float(torch.iinfo(x.dtype).max) if x.dtype != torch.bool else 1.0


def _hw(x):
    return x.shape[-2], x.shape[-1]


# Each op: (name, deterministic, make_call(rng, x, caps) -> call(x)), and below which images it
# takes (FITS). Parameters are drawn on the host once per call, inside the op's domain; the call
# closes over them so that a sampled call can be recomputed exactly.
def _resize(r, x, cap):
    h, w = _hw(x)
    planes = x.numel() // max(h * w, 1)
    oh, ow = _side(r, cap.max_side), _side(r, cap.max_side)
    while planes * oh * ow > cap.max_numel and (oh > 1 or ow > 1):
        oh, ow = max(1, oh // 2), max(1, ow // 2)
    mode, aa = r.choice(MODES), r.random() < 0.5
    return lambda t: F.resize(t, [oh, ow], interpolation=mode, antialias=aa)


def _crop(r, x, cap):
    h, w = _hw(x)
    top, left = r.randint(-4, h), r.randint(-4, w)
    ch, cw = r.randint(1, h + 4), r.randint(1, w + 4)
    return lambda t: F.crop(t, top, left, ch, cw)


def _affine(r, x, cap):
    angle, tx, ty = r.uniform(-180, 180), r.uniform(-10, 10), r.uniform(-10, 10)
    scale, shear = r.uniform(0.5, 2), [r.uniform(-20, 20), r.uniform(-20, 20)]
    mode, fill = r.choice(GRID_MODES), r.choice([None, 0.0, 1.0])
    return lambda t: F.affine(t, angle, [tx, ty], scale, shear, interpolation=mode, fill=fill)


def _perspective(r, x, cap):
    h, w = _hw(x)
    W, H = max(w - 1, 8), max(h - 1, 8)  # a frame that is never degenerate, even for 1x1 images
    start = [[0, 0], [W, 0], [W, H], [0, H]]
    end = [[px + r.randint(-1, 1) * (W // 8), py + r.randint(-1, 1) * (H // 8)] for px, py in start]
    mode = r.choice(GRID_MODES)
    return lambda t: F.perspective(t, start, end, interpolation=mode)


def _elastic(r, x, cap):
    h, w = _hw(x)
    # Made on the image's device (on the current stream): a host field of a 4K image would cost
    # more than the op. The call keeps this tensor, so a sampled call recomputes exactly.
    disp = (torch.rand(1, h, w, 2, device=x.device) - 0.5) * 0.1
    mode = r.choice(GRID_MODES)
    return lambda t: F.elastic(t, disp, interpolation=mode)


def _erase(r, x, cap):
    h, w = _hw(x)
    i, j = r.randint(0, h - 1), r.randint(0, w - 1)
    eh, ew = r.randint(1, h - i), r.randint(1, w - j)
    value = torch.zeros((), dtype=x.dtype, device=x.device)
    return lambda t: F.erase(t, i, j, eh, ew, value)


def _normalize(r, x, cap):
    c = x.shape[-3]
    mean, std = [r.uniform(0, 1) for _ in range(c)], [r.uniform(0.1, 1) for _ in range(c)]
    return lambda t: F.normalize(t, mean, std)


def _to_dtype(r, x, cap):
    d, scale = r.choice(IMAGE_DTYPES + OTHER_DTYPES), r.random() < 0.5
    if (x.dtype.is_floating_point and d in (torch.int32, torch.int64)) or torch.bool in (x.dtype, d):
        scale = False  # torchvision refuses these scaled conversions (unsafe, or bool has no value bits)
    return lambda t: F.to_dtype(t, d, scale=scale)


OPS = [
    ("horizontal_flip", True, lambda r, x, cap: F.horizontal_flip),
    ("vertical_flip", True, lambda r, x, cap: F.vertical_flip),
    ("resize", True, _resize),
    ("crop", True, _crop),
    ("center_crop", True, lambda r, x, cap: (lambda s: lambda t: F.center_crop(t, s))([r.randint(1, x.shape[-2] + 3), r.randint(1, x.shape[-1] + 3)])),
    ("pad", True, lambda r, x, cap: (lambda p, m: lambda t: F.pad(t, p, padding_mode=m))(
        [r.randint(0, 3) for _ in range(4)], r.choice(["constant", "edge"]))),
    ("rotate", True, lambda r, x, cap: (lambda a, e: lambda t: F.rotate(t, a, expand=e))(
        r.choice([90.0, 180.0, r.uniform(-180, 180)]), r.random() < 0.3)),
    ("affine", True, _affine),
    ("perspective", True, _perspective),
    ("elastic", True, _elastic),
    ("rgb_to_grayscale", True, lambda r, x, cap: F.rgb_to_grayscale),
    ("adjust_brightness", True, lambda r, x, cap: (lambda f: lambda t: F.adjust_brightness(t, f))(r.uniform(0, 2))),
    ("adjust_contrast", True, lambda r, x, cap: (lambda f: lambda t: F.adjust_contrast(t, f))(r.uniform(0, 2))),
    ("adjust_saturation", True, lambda r, x, cap: (lambda f: lambda t: F.adjust_saturation(t, f))(r.uniform(0, 2))),
    ("adjust_hue", True, lambda r, x, cap: (lambda f: lambda t: F.adjust_hue(t, f))(r.uniform(-0.5, 0.5))),
    ("adjust_gamma", True, lambda r, x, cap: (lambda f: lambda t: F.adjust_gamma(t, f))(r.uniform(0.2, 3))),
    ("adjust_sharpness", True, lambda r, x, cap: (lambda f: lambda t: F.adjust_sharpness(t, f))(r.uniform(0, 3))),
    ("invert", True, lambda r, x, cap: F.invert),
    ("posterize", True, lambda r, x, cap: (lambda b: lambda t: F.posterize(t, b))(r.randint(1, 8))),
    ("solarize", True, lambda r, x, cap: (lambda v: lambda t: F.solarize(t, v))(r.uniform(0, _max_value(x)))),
    ("autocontrast", True, lambda r, x, cap: F.autocontrast),
    ("equalize", True, lambda r, x, cap: F.equalize),
    ("permute_channels", True, lambda r, x, cap: (lambda p: lambda t: F.permute_channels(t, p))(
        r.sample(range(x.shape[-3]), x.shape[-3]))),
    ("gaussian_blur", True, lambda r, x, cap: (lambda k, s: lambda t: F.gaussian_blur(t, k, s))(
        [r.choice([k for k in (1, 3, 5, 7) if k // 2 < min(_hw(x))])] * 2, [r.uniform(0.2, 3)])),
    ("gaussian_noise", False, lambda r, x, cap: (lambda s: lambda t: F.gaussian_noise(t, sigma=s))(r.uniform(0, 0.2))),
    ("erase", True, _erase),
    ("normalize", True, _normalize),
    ("to_dtype", True, _to_dtype),
]


def _color(x):
    return x.shape[-3] in (1, 3)


def _float(x):
    return x.dtype.is_floating_point


# Which images an op takes (torchvision's rules; other dtypes are refused by dtype, which is fine).
FITS = {
    **{name: _color for name in ("rgb_to_grayscale", "adjust_brightness", "adjust_contrast", "adjust_saturation",
                                 "adjust_hue", "adjust_gamma", "adjust_sharpness", "autocontrast", "equalize",
                                 "invert", "posterize", "solarize")},
    "normalize": _float,
    "gaussian_noise": _float,
    "elastic": lambda x: True,
}


def pick_op(r, x):
    while True:
        op = OPS[r.randrange(len(OPS))]
        if FITS.get(op[0], lambda x: True)(x):
            return op


class Caps:
    def __init__(self, max_side, max_numel, max_batch):
        self.max_side, self.max_numel, self.max_batch = max_side, max_numel, max_batch


def _side(r, max_side):
    """Log-uniform in [1, max_side]: 1x1 and 4K both come up."""
    return max(1, min(max_side, int(round(math.exp(r.uniform(0, math.log(max_side)))))))


def random_image(r, device, cap):
    """A random image: dtype, 1/3/4 channels, batch 1-64, 1x1..4K, a layout; at most max_numel elements."""
    dtype = r.choice(IMAGE_DTYPES) if r.random() < 0.85 else r.choice(OTHER_DTYPES)
    c = r.choice([3, 3, 3, 1, 4])
    h, w = _side(r, cap.max_side), _side(r, cap.max_side)
    n = max(1, min(cap.max_batch, int(math.exp(r.uniform(0, math.log(cap.max_batch))))))
    while n * c * h * w > cap.max_numel:
        if n > 1:
            n //= 2
        else:
            h, w = max(1, h // 2), max(1, w // 2)
    shape = (n, c, h, w) if r.random() < 0.8 else (c, h, w)
    if dtype.is_floating_point:
        x = torch.rand(shape, device=device).to(dtype)
    elif dtype == torch.bool:
        x = torch.rand(shape, device=device) < 0.5
    else:
        hi = 256 if dtype in (torch.uint8, torch.int16, torch.int32, torch.int64) else 128
        hi = 65536 if dtype == torch.uint16 else hi
        x = torch.randint(0, hi, shape, device=device, dtype=torch.int64).to(dtype) if dtype != torch.uint16 else \
            torch.randint(0, 65536, shape, device=device, dtype=torch.int32).to(torch.uint16)
    layout = r.random()
    if layout < 0.25 and x.dim() == 4:
        x = x.contiguous(memory_format=torch.channels_last)
    elif layout < 0.35 and h > 2 and w > 2:
        x = x[..., 1:, : w - 1]  # a sliced view with an offset
    return x


class Run:
    """Shared state of the random-call phase."""

    def __init__(self, args):
        self.args = args
        self.errors, self.refused, self.calls = [], 0, 0
        self.samples = []  # (name, call, input copy, output copy)
        self.lock = threading.Lock()
        self.checkpoints = []
        self.pools = {}  # thread index -> its live input images


def worker(run, index, barrier, calls, checkpoint_every, cap):
    args = run.args
    r = random.Random(args.seed * 1000 + index)
    cuda = args.device == "cuda"
    stream = torch.cuda.Stream() if cuda else None
    pool_size = 16
    try:
        with torch.cuda.stream(stream) if cuda else _null():
            pool = [random_image(r, args.device, cap) for _ in range(pool_size)]
            run.pools[index] = pool
            for n in range(calls):
                if n and n % checkpoint_every == 0:
                    if cuda:
                        stream.synchronize()
                    barrier.wait()  # thread 0 measures
                    barrier.wait()
                if r.random() < 1 / 64:  # new shapes keep coming
                    pool[r.randrange(pool_size)] = random_image(r, args.device, cap)
                x = pool[r.randrange(pool_size)]
                name, deterministic, make = pick_op(r, x)
                try:
                    call = make(r, x, cap)
                    out = call(x)
                except UnsupportedDTypeError:
                    with run.lock:
                        run.refused += 1
                    continue
                except (ValueError, TypeError, RuntimeError, NotImplementedError) as e:
                    # Parameters are drawn inside each op's domain: any error is a failure.
                    with run.lock:
                        run.errors.append(f"{name} on {tuple(x.shape)} {x.dtype}: {type(e).__name__}: {e}")
                    continue
                sample = deterministic and n % args.sample_every == index % args.sample_every and \
                    x.numel() <= 1 << 20 and len(run.samples) < args.max_samples
                outs = out if isinstance(out, (list, tuple)) else [out]
                if sample and sum(o.numel() for o in outs) <= 1 << 22:
                    with run.lock:
                        run.samples.append((name, call, x.clone(), [o.clone() for o in outs], args.device))
                del out, outs
            if cuda:
                stream.synchronize()
    except Exception:  # noqa: BLE001 - reported in the verdict
        with run.lock:
            run.errors.append(f"thread {index}: {traceback.format_exc()}")
        barrier.abort()


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def memory(device, trim=False):
    """Device memory in torch's caching allocator and streamvision's own pool (ops on a stream of
    our own allocate there). With `trim`, both caches are emptied first: what is reserved then
    is what live memory pins, so growth means a leak, not a cache meeting new sizes (random
    shapes up to 4K x 64 grow a cache to its peak working set, then it stays)."""
    if device != "cuda":
        return {"allocated": 0, "reserved": 0, "device_used": 0, "cached": 0}
    cached = torch.cuda.memory_reserved() + sv.memory_reserved()
    if trim:
        torch.cuda.empty_cache()
        sv.empty_cache()
    free, total = torch.cuda.mem_get_info()
    return {"allocated": torch.cuda.memory_allocated() + sv.memory_allocated(),
            "reserved": torch.cuda.memory_reserved() + sv.memory_reserved(), "device_used": total - free,
            "cached": cached}


def mib(b):
    return f"{b / 2**20:9.1f}"


def random_calls(args, cap):
    run = Run(args)
    per_thread = args.calls // args.threads
    n_checkpoints = max(args.checkpoints, 1)
    checkpoint_every = max(per_thread // (n_checkpoints + 1), 1)
    barrier = threading.Barrier(args.threads + 1)
    threads = [threading.Thread(target=worker, args=(run, i, barrier, per_thread, checkpoint_every, cap))
               for i in range(args.threads)]
    start = time.time()
    for t in threads:
        t.start()
    print(f"{'checkpoint':>10} {'calls':>9} {'seconds':>8} {'allocated MiB':>14} {'cached MiB':>11} {'reserved MiB':>13} "
          f"{'device used MiB':>16}\n   (allocated: torch's and streamvision's pool, beyond the workers' live input images; "
          "cached: both caches at the checkpoint; reserved and device used: after emptying both)")
    done = 0
    while True:
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            break
        done += 1
        if args.device == "cuda":
            torch.cuda.synchronize()
        park_samples(run)  # on the host, so that kept samples do not count as device memory
        m = memory(args.device, trim=True)
        # The workers' input images are live by design and change size as they are replaced:
        # what must stay flat is what is allocated beyond them (outputs, scratch, leaks).
        storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
                    for pool in run.pools.values() for t in pool}
        if args.device == "cuda":
            m["allocated"] -= sum(storages.values())
            m["reserved"] -= sum(storages.values())
        run.checkpoints.append(m)
        print(f"{done:>10} {done * checkpoint_every * args.threads:>9} {time.time() - start:>8.1f} "
              f"{mib(m['allocated']):>14} {mib(m['cached']):>11} {mib(m['reserved']):>13} {mib(m['device_used']):>16}",
              flush=True)
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            break
        if done * checkpoint_every + checkpoint_every >= per_thread:
            break
    for t in threads:
        t.join()
    elapsed = time.time() - start
    total = per_thread * args.threads
    print(f"random calls: {total} in {elapsed:.1f} s ({total / max(elapsed, 1e-9):.0f} calls/s), "
          f"{run.refused} refused for their dtype, {len(run.errors)} errors, {len(run.samples)} sampled")
    return run


def park_samples(run):
    """Moves the kept samples to the host (called while the workers wait at a checkpoint)."""
    with run.lock:
        run.samples = [(name, call, x.cpu(), [o.cpu() for o in outs], device)
                       for name, call, x, outs, device in run.samples]


def check_samples(run, device):
    """Recomputes every sampled call single-threaded on the default stream."""
    bad = []
    if device == "cuda":
        torch.cuda.synchronize()
    park_samples(run)
    for name, call, x, outs, _ in run.samples:
        again = call(x.to(device))
        again = again if isinstance(again, (list, tuple)) else [again]
        again = [b.cpu() for b in again]
        for a, b in zip(outs, again):
            if a.shape != b.shape or a.dtype != b.dtype or not _bit_equal(a, b):
                bad.append(f"{name} on {tuple(x.shape)} {x.dtype}: differs from its single-thread recomputation")
    return bad


def _bit_equal(a, b):
    if a.dtype == torch.bool:
        return torch.equal(a, b)
    return torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


def flat(checkpoints, warmup_fraction, key, slack_bytes, slack_ratio):
    """True when `key` after warm-up never exceeds its value at the end of warm-up by more than the slack."""
    if len(checkpoints) < 2:
        return True, 0
    base = checkpoints[max(int(len(checkpoints) * warmup_fraction) - 1, 0)][key]
    peak = max(c[key] for c in checkpoints[int(len(checkpoints) * warmup_fraction):] or [checkpoints[-1]])
    return peak <= base * (1 + slack_ratio) + slack_bytes, peak - base


def stream_stress(args, cap):
    """Streams created and dropped with ops in flight; inputs freed as soon as ops return."""
    if args.stress_iters <= 0:
        return [], None, None
    r = random.Random(args.seed + 7)
    cuda = args.device == "cuda"
    errors, checks = [], []
    if cuda:
        torch.cuda.synchronize()
    before = memory(args.device, trim=True)
    small = Caps(min(cap.max_side, 512), min(cap.max_numel, 1 << 20), 8)
    start = time.time()
    for i in range(args.stress_iters):
        try:
            x = random_image(r, args.device, small)
            while x.dtype not in IMAGE_DTYPES:
                x = random_image(r, args.device, small)
            name, deterministic, make = pick_op(r, x)
            call = make(r, x, small)
            keep = deterministic and i % 97 == 0
            reference_input = x.clone() if keep else None
            if cuda and r.random() < 0.5:
                s = torch.cuda.Stream()  # torch's stream, current for the op
                with torch.cuda.stream(s):
                    out = call(x)
                    out2 = F.horizontal_flip(out) if not isinstance(out, (list, tuple)) else None
            elif cuda:
                s = sv.Stream()  # a streamvision stream of our own, which wins over torch's
                with s:
                    out = call(x)
                out2 = None
            else:
                s = None
                out = call(x)
                out2 = None
            del x  # the input is freed while the op may still run
            if keep:
                checks.append((name, call, reference_input, out, s))
            del s, out2  # and the stream too, with its work in flight
            if i % 50 == 0 and cuda:
                torch.cuda.empty_cache()
                sv.empty_cache()
        except UnsupportedDTypeError:
            continue
        except Exception as e:  # noqa: BLE001
            errors.append(f"stress {i} ({name}): {type(e).__name__}: {e}")
    if cuda:
        torch.cuda.synchronize()
    for name, call, x, out, _ in checks:
        again = call(x)
        outs = out if isinstance(out, (list, tuple)) else [out]
        again = again if isinstance(again, (list, tuple)) else [again]
        if not all(_bit_equal(a, b) for a, b in zip(outs, again)):
            errors.append(f"stress {name}: result differs from its recomputation")
    checks.clear()
    if cuda:
        torch.cuda.synchronize()
    after = memory(args.device, trim=True)
    print(f"stream stress: {args.stress_iters} iterations in {time.time() - start:.1f} s, {len(errors)} errors; "
          f"allocated {mib(before['allocated']).strip()} -> {mib(after['allocated']).strip()} MiB, "
          f"device used {mib(before['device_used']).strip()} -> {mib(after['device_used']).strip()} MiB")
    return errors, before, after


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--checkpoints", type=int, default=20)
    p.add_argument("--sample-every", type=int, default=1000)
    p.add_argument("--max-samples", type=int, default=2000)
    p.add_argument("--stress-iters", type=int, default=20000)
    p.add_argument("--max-side", type=int, default=4096, help="largest H or W (4096: 4K)")
    p.add_argument("--max-numel", type=int, default=1 << 25, help="largest element count of one image")
    p.add_argument("--max-batch", type=int, default=64)
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    p.add_argument("--seed", type=int, default=15)
    args = p.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print("STABILITY: SKIPPED (no CUDA device; --device cpu tests the script's logic)")
        return 0
    cap = Caps(args.max_side, args.max_numel, args.max_batch)
    torch.manual_seed(args.seed)

    run = random_calls(args, cap)
    problems = list(run.errors[:20])
    if len(run.errors) > 20:
        problems.append(f"... and {len(run.errors) - 20} more errors")
    problems += check_samples(run, args.device)
    if args.device == "cuda":
        for key, slack in (("allocated", 64 << 20), ("reserved", 512 << 20), ("device_used", 1 << 30)):
            ok, growth = flat(run.checkpoints, 0.25, key, slack, 0.10)
            print(f"{key}: growth after warm-up {growth / 2**20:.1f} MiB ({'flat' if ok else 'GROWING'})")
            if not ok:
                problems.append(f"{key} grows after warm-up by {growth / 2**20:.1f} MiB")
    run.samples.clear()

    stress_errors, before, after = stream_stress(args, cap)
    problems += stress_errors[:20]
    if args.device == "cuda" and before is not None:
        if after["allocated"] > before["allocated"] + (16 << 20):
            problems.append(f"stream stress leaves {(after['allocated'] - before['allocated']) / 2**20:.1f} MiB allocated")
        if after["device_used"] > before["device_used"] + (256 << 20):
            problems.append(f"stream stress leaves {(after['device_used'] - before['device_used']) / 2**20:.1f} MiB of "
                            "device memory in use after emptying both caches")

    if problems:
        print("STABILITY: FAIL\n  " + "\n  ".join(problems))
        return 1
    print("STABILITY: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
