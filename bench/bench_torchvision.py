"""Side-by-side benchmark of streamvision and torchvision 0.26 on the same GPU, same run.

For each case: median time over 20 timed runs after warm-up (CUDA events), effective bandwidth
(the fewest bytes any implementation must read + write, over the time), its share of the
device-to-device copy bandwidth measured in this run, and the speedup over torchvision.
Also the per-call host overhead from Python on a 3x224x224 image (issue 3).

    python3 bench/bench_torchvision.py [--json FILE] [--filter SUBSTRING]
"""

import argparse
import json
import statistics
import time

import torch
import torchvision.transforms.v2.functional as TF

import streamvision.transforms.v2.functional as F

WARMUP, RUNS = 5, 20


def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(RUNS)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(RUNS)]
    for a, b in zip(starts, stops):
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in zip(starts, stops))


def copy_bandwidth():
    src = torch.empty(2**31, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    return 2 * src.numel() / ms / 1e6  # GB/s, read + write


def per_call_overhead_us(fn, calls=400, reps=15):
    """Host time per call: batches small enough never to fill the GPU's launch queue, so the
    host never waits for the GPU inside the timed region; median over batches."""
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(times)


def cases():
    """(group, name, input description, ours, torchvision, bytes). Extend here for new ops."""
    g = torch.Generator(device="cuda").manual_seed(0)
    shape = (64, 3, 1080, 1920)
    n = 64 * 3 * 1080 * 1920
    u8 = torch.randint(0, 256, shape, dtype=torch.uint8, device="cuda", generator=g)
    f32 = u8.float() / 255
    u8_cl = u8.contiguous(memory_format=torch.channels_last)
    f32_cl = f32.contiguous(memory_format=torch.channels_last)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    s = "64x3x1080x1920"
    out = []
    for tag, x8, x32 in [("", u8, f32), (" channels_last", u8_cl, f32_cl)]:
        out += [
            ("core", "horizontal_flip", f"{s} uint8{tag}", lambda x=x8: F.horizontal_flip(x), lambda x=x8: TF.horizontal_flip(x), 2 * n),
            ("core", "vertical_flip", f"{s} uint8{tag}", lambda x=x8: F.vertical_flip(x), lambda x=x8: TF.vertical_flip(x), 2 * n),
            ("core", "horizontal_flip", f"{s} float32{tag}", lambda x=x32: F.horizontal_flip(x), lambda x=x32: TF.horizontal_flip(x), 8 * n),
            ("core", "to_dtype u8->f32 scale", f"{s} uint8{tag}",
             lambda x=x8: F.to_dtype(x, torch.float32, scale=True), lambda x=x8: TF.to_dtype(x, torch.float32, scale=True), 5 * n),
            ("core", "normalize", f"{s} float32{tag}",
             lambda x=x32: F.normalize(x, mean, std), lambda x=x32: TF.normalize(x, mean, std), 8 * n),
        ]
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    copy_gbs = copy_bandwidth()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s (read + write)\n")
    header = f"{'op':28} {'input':38} {'ours ms':>9} {'tv ms':>9} {'speedup':>8} {'ours GB/s':>10} {'of copy':>8} {'tv of copy':>10}"
    print(header)
    rows = []
    for group, name, desc, ours, theirs, nbytes in cases():
        if args.filter and args.filter not in name and args.filter not in group:
            continue
        ms_ours, ms_tv = median_ms(ours), median_ms(theirs)
        gbs_ours, gbs_tv = nbytes / ms_ours / 1e6, nbytes / ms_tv / 1e6
        row = dict(group=group, op=name, input=desc, ours_ms=ms_ours, tv_ms=ms_tv, speedup=ms_tv / ms_ours,
                   ours_gbs=gbs_ours, ours_of_copy=gbs_ours / copy_gbs, tv_of_copy=gbs_tv / copy_gbs)
        rows.append(row)
        print(f"{name:28} {desc:38} {ms_ours:9.4f} {ms_tv:9.4f} {ms_tv / ms_ours:7.1f}x {gbs_ours:10.0f} "
              f"{100 * gbs_ours / copy_gbs:7.1f}% {100 * gbs_tv / copy_gbs:9.1f}%", flush=True)

    print("\nper-call host overhead from Python, 3x224x224 CUDA tensors (µs per call)")
    small_u8 = torch.randint(0, 256, (3, 224, 224), dtype=torch.uint8, device="cuda")
    small_f32 = small_u8.float() / 255
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    overhead = {}
    for name, ours, theirs in [
        ("horizontal_flip uint8", lambda: F.horizontal_flip(small_u8), lambda: TF.horizontal_flip(small_u8)),
        ("normalize float32", lambda: F.normalize(small_f32, mean, std), lambda: TF.normalize(small_f32, mean, std)),
    ]:
        us_ours, us_tv = per_call_overhead_us(ours), per_call_overhead_us(theirs)
        overhead[name] = dict(ours_us=us_ours, tv_us=us_tv)
        print(f"  {name:24} ours {us_ours:6.2f}  torchvision {us_tv:6.2f}")
    # Where the time goes: pieces of a call measured alone.
    import streamvision as sv

    for name, fn in [
        ("as_tensor (import only)", lambda: sv.as_tensor(small_u8)),
        ("to_dtype same dtype (no kernel)", lambda: F.to_dtype(small_u8, torch.uint8)),
        ("torch.empty_like", lambda: torch.empty_like(small_u8)),
        ("torch.flip", lambda: torch.flip(small_u8, [-1])),
    ]:
        us = per_call_overhead_us(fn)
        overhead[name] = dict(us=us)
        print(f"  {name:32} {us:6.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), copy_gbs=copy_gbs, cases=rows, overhead=overhead), f, indent=1)


if __name__ == "__main__":
    main()
