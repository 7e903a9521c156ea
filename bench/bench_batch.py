"""Batch augmentation benchmark (per-sample parameters, variable-size batches, fusion) on one GPU.

Cases, each side by side in one run (images/s; median of timed runs after warm-up, CUDA events):

* ImageNet-style training batch: 256 uint8 images of random sizes 300-600 x 300-600 (a list),
  RandomResizedCrop(224, antialias) + RandomHorizontalFlip + ToDtype(float32) + Normalize:
  torchvision as a per-image loop, streamvision as a per-image loop, streamvision per-sample
  (fused batch kernel), streamvision with one shared parameter set (fused);
* the same with ColorJitter(0.4, 0.4, 0.4) after the flip;
* a uniform batch 64x3x1080x1920 uint8 -> Resize([256, 455]) + CenterCrop(224) + flip + ToDtype
  + Normalize: torchvision, streamvision unfused, streamvision fused.

Also the effective bandwidth (bytes of the input read once plus the output written once, over the
time) against the device-to-device copy bandwidth of the same run.

    python3 bench/bench_batch.py [--json FILE] [--breakdown]

--breakdown also splits each streamvision case into the host's time to queue one call (wall
clock, no synchronisation) and the GPU time of its kernels (torch.profiler, summed per kernel
name): the event-timed median is the larger of the two when the GPU waits on the host.
"""

import argparse
import collections
import json
import statistics
import time

import torch

import streamvision.transforms.v2 as T
from timing import copy_bandwidth, median_ms

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def imagenet_list(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        h, w = (int(v) for v in torch.randint(300, 601, (2,), generator=g))
        out.append(torch.randint(0, 256, (3, h, w), dtype=torch.uint8, generator=g).cuda())
    return out


def pipelines(tv, jitter):
    """(torchvision per-image, streamvision per-image, streamvision per-sample, streamvision shared)."""
    def steps(mod, **k):
        s = [mod.RandomResizedCrop(224, antialias=True, **k), mod.RandomHorizontalFlip(**k)]
        if jitter:
            s.append(mod.ColorJitter(0.4, 0.4, 0.4, **k))
        return s + [mod.ToDtype(torch.float32, scale=True), mod.Normalize(MEAN, STD)]

    tv_one = tv.Compose(steps(tv)) if tv is not None else None
    sv_one = T.Compose(steps(T))
    sv_ps = T.Compose(steps(T, per_sample=True))
    sv_shared = T.Compose(steps(T), fuse=True)
    return tv_one, sv_one, sv_ps, sv_shared


def host_us(fn, runs=20):
    """Median wall time to queue one call (the GPU keeps up or lags; nothing waits for it)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    return statistics.median(times) * 1e6


def kernels_us(fn, runs=5):
    """GPU time per call of each kernel (and copy) the call launches, by name, largest first."""
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    per = collections.Counter()
    for e in prof.events():
        if e.device_type.name == "CUDA":
            per[e.name[:70]] += e.device_time / runs
    return per.most_common()


def breakdown(label, fn):
    host = host_us(fn)
    ks = kernels_us(fn)
    gpu = sum(us for _, us in ks)
    print(f"    {label}: host {host:8.1f} us to queue a call, GPU {gpu:8.1f} us in {len(ks)} kernels/copies")
    for name, us in ks[:8]:
        print(f"        {us:8.1f} us  {name}")
    return {"host_us": host, "gpu_us": gpu, "kernels": ks[:8]}


def host_parts(xs, sv_ps):
    """The per-sample list pipeline's host time, step by step (median wall time per call, no
    synchronisation): what the fused call is made of."""
    from streamvision.transforms.v2 import _per_sample
    import streamvision.transforms.v2.functional as F

    rrc, flip = sv_ps.transforms[0], sv_ps.transforms[1]
    batch = _per_sample.Batch(xs, "RandomResizedCrop")
    boxes = _per_sample.boxes_of(rrc.sample_params(batch))
    hflip = flip.sample_params(batch)["applied"]
    plain = list(xs)
    steps = {
        "Batch(list): checks and sizes": lambda: _per_sample.Batch(xs, "RandomResizedCrop"),
        "RandomResizedCrop.sample_params": lambda: rrc.sample_params(batch),
        "RandomHorizontalFlip.sample_params": lambda: flip.sample_params(batch),
        "F.resized_crop_batch(list of 256)": lambda: F.resized_crop_batch(plain, boxes, [224, 224], hflip=hflip,
                                                                          dtype=torch.float32, mean=MEAN, std=STD),
        "the whole Compose call": lambda: sv_ps(xs),
    }
    if len(sv_ps.transforms) > 4:  # ColorJitter after the flip
        jitter = sv_ps.transforms[2]
        steps["ColorJitter.sample_params"] = lambda: jitter.sample_params(batch)
    out = {}
    for name, fn in steps.items():
        out[name] = host_us(fn)
        print(f"      host {out[name]:8.1f} us  {name}")
    out["profile"] = python_profile(lambda: sv_ps(xs))
    return out


def python_profile(fn, calls=20, top=14):
    """Where the host time of a call goes, by Python function (cProfile's own time per call)."""
    import cProfile
    import pstats

    fn()
    torch.cuda.synchronize()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    rows = []
    stats = pstats.Stats(prof).stats
    for (path, line, name), (_, ncalls, tottime, cumtime, _) in sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]:
        where = f"{path.rsplit('/', 1)[-1]}:{line}({name})"
        rows.append({"function": where, "calls": ncalls / calls, "own_us": tottime / calls * 1e6,
                     "cum_us": cumtime / calls * 1e6})
        print(f"        {tottime / calls * 1e6:8.1f} us own {cumtime / calls * 1e6:8.1f} us cum "
              f"{ncalls / calls:7.1f} calls  {where}")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--breakdown", action="store_true", help="host and kernel time of each streamvision case")
    args = ap.parse_args()
    try:
        import torchvision.transforms.v2 as tv
    except ImportError:
        tv = None
    props = torch.cuda.get_device_properties(0)
    copy = copy_bandwidth()
    print(f"{props.name}, copy bandwidth {copy:.0f} GB/s (read + write)")
    results = []

    xs = imagenet_list()
    in_bytes = sum(x.numel() for x in xs)
    out_bytes = len(xs) * 3 * 224 * 224 * 4
    for jitter in (False, True):
        tv_one, sv_one, sv_ps, sv_shared = pipelines(tv, jitter)
        name = "rrc224+flip" + ("+jitter" if jitter else "") + "+to_dtype+normalize, 256 images 300-600"
        cases = {}
        if tv_one is not None:
            cases["torchvision per-image loop"] = lambda: [tv_one(x) for x in xs]
        cases["streamvision per-image loop"] = lambda: [sv_one(x) for x in xs]
        cases["streamvision per-sample batch"] = lambda: sv_ps(xs)
        uniform = torch.stack([x[:, :300, :300] for x in xs])  # a shared draw needs one size
        cases["streamvision shared params (256x3x300x300)"] = lambda: sv_shared(uniform)
        cases["streamvision per-sample (256x3x300x300)"] = lambda: sv_ps(uniform)
        print(f"\n{name}")
        for label, fn in cases.items():
            ms = median_ms(fn)
            ips = len(xs) / ms * 1e3
            nbytes = (in_bytes if "300-600" in name and "300x300" not in label else uniform.numel()) + out_bytes
            bw = nbytes / ms / 1e6
            print(f"  {label:48s} {ms:9.3f} ms  {ips:12,.0f} images/s  {bw:7.0f} GB/s ({100 * bw / copy:4.1f}% of copy)")
            results.append({"case": name, "impl": label, "ms": ms, "images_per_s": ips, "pct_copy": 100 * bw / copy})
            if args.breakdown and "streamvision" in label and "loop" not in label:
                results[-1]["breakdown"] = breakdown(label, fn)
                if label == "streamvision per-sample batch":
                    results[-1]["host_parts"] = host_parts(xs, sv_ps)

    x = torch.randint(0, 256, (64, 3, 1080, 1920), dtype=torch.uint8, device="cuda")
    steps = lambda mod: [mod.Resize([256, 455], antialias=True), mod.CenterCrop(224), mod.RandomHorizontalFlip(),  # noqa: E731
                         mod.ToDtype(torch.float32, scale=True), mod.Normalize(MEAN, STD)]
    name = "64x3x1080x1920 resize[256,455]+center_crop224+flip+to_dtype+normalize"
    cases = {}
    if tv is not None:
        tvc = tv.Compose(steps(tv))
        cases["torchvision"] = lambda: tvc(x)
    svu = T.Compose(steps(T), fuse=False)
    svf = T.Compose(steps(T), fuse=True)
    cases["streamvision unfused"] = lambda: svu(x)
    cases["streamvision fused"] = lambda: svf(x)
    print(f"\n{name}")
    for label, fn in cases.items():
        ms = median_ms(fn)
        bw = (x.numel() + 64 * 3 * 224 * 224 * 4) / ms / 1e6
        print(f"  {label:48s} {ms:9.3f} ms  {64 / ms * 1e3:12,.0f} images/s  {bw:7.0f} GB/s ({100 * bw / copy:4.1f}% of copy)")
        results.append({"case": name, "impl": label, "ms": ms, "images_per_s": 64 / ms * 1e3, "pct_copy": 100 * bw / copy})
        if args.breakdown and "streamvision" in label:
            results[-1]["breakdown"] = breakdown(label, fn)
            if label == "streamvision fused":
                results[-1]["profile"] = python_profile(fn)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": props.name, "copy_gb_s": copy, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
