"""Side-by-side CPU benchmark of streamvision and torchvision (issue 13 part 5).

Runs anywhere (CI machines included) and asserts nothing about time. For each op, dtype
(uint8, float32) and input (a 1080p image, contiguous CHW and HWC-strided as decoders give it;
a 64x3x224x224 batch) it prints the median of repeated runs of streamvision and torchvision on
the CPU, with one thread and with all threads, as a markdown table with the ratio
(torchvision's time / streamvision's: above 1, streamvision is faster). Each library and thread
setting runs in its own process: streamvision reads STREAMVISION_NUM_THREADS once, torch gets
torch.set_num_threads, and torch's OpenMP threads, which spin for a while after each torch op,
do not take the cores while streamvision is timed.

    python bench/bench_cpu.py [--threads 1,all] [--filter SUBSTRING] [--repeats N] [--rounds N] [--interleave] [--quick]

With --interleave both libraries run in one process, call by call, and torch's OpenMP threads
sleep between ops instead of spinning: on a shared VM whose speed drifts, the steadier comparison.

Both libraries' processes keep freed blocks in the heap (glibc's MALLOC_MMAP_THRESHOLD_ and
MALLOC_TRIM_THRESHOLD_ at 1 GiB), so that the table times the ops rather than the page faults of
fresh memory: glibc maps every block above 32 MiB (a 64x3x224x224 float32 output is 38.5 MB)
afresh and returns it on free, and each call then faults in 9,400 pages, 14-22 ms on the
development VM, for either library alike, or not, depending on what the process freed before
(bench/RESULTS.md, twenty-seventh session). --fresh-pages keeps glibc's defaults.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def cases(torch, TF, F, quick):
    """(name, input name, dtype name, make_input, op(module, x)) for every measured case."""
    def hd(dtype, hwc):
        g = torch.Generator().manual_seed(0)
        x = torch.randint(0, 256, (1080, 1920, 3) if hwc else (3, 1080, 1920), dtype=torch.uint8, generator=g)
        if hwc:
            x = x.permute(2, 0, 1)  # a decoder's HWC buffer seen as CHW: channels_last strides
        return x if dtype == torch.uint8 else x.to(dtype) / 255

    def batch(dtype):
        g = torch.Generator().manual_seed(1)
        x = torch.randint(0, 256, (16 if quick else 64, 3, 224, 224), dtype=torch.uint8, generator=g)
        return x if dtype == torch.uint8 else x.to(dtype) / 255

    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]

    def pipeline(m, x):
        y = m.resize(x, [256], antialias=True)
        y = m.center_crop(y, [224])
        y = m.horizontal_flip(y)
        y = m.to_dtype(y, torch.float32, scale=True)
        return m.normalize(y, mean, std)

    def train_pipeline(m, x):  # a training sample's transforms (RandomResizedCrop's op with fixed parameters)
        h, w = x.shape[-2:]
        y = m.resized_crop(x, h // 10, w // 10, 4 * h // 5, 4 * w // 5, [224, 224], antialias=True)
        y = m.horizontal_flip(y)
        y = m.to_dtype(y, torch.float32, scale=True)
        return m.normalize(y, mean, std)

    ops = [
        ("resize [256] antialias", lambda m, x: m.resize(x, [256], antialias=True)),
        ("resize [224, 224] bilinear no-AA", lambda m, x: m.resize(x, [224, 224], antialias=False)),
        ("crop 200x200", lambda m, x: m.crop(x, 10, 20, 200, 200)),
        ("horizontal_flip", lambda m, x: m.horizontal_flip(x)),
        ("vertical_flip", lambda m, x: m.vertical_flip(x)),
        ("to_dtype float32 scale", lambda m, x: m.to_dtype(x, torch.float32, scale=True)),
        ("normalize", lambda m, x: m.normalize(x if x.is_floating_point() else x.float(), mean, std)),
        ("adjust_brightness 1.3", lambda m, x: m.adjust_brightness(x, 1.3)),
        ("adjust_contrast 1.3", lambda m, x: m.adjust_contrast(x, 1.3)),
        ("adjust_saturation 1.3", lambda m, x: m.adjust_saturation(x, 1.3)),
        ("adjust_hue 0.1", lambda m, x: m.adjust_hue(x, 0.1)),
        ("rgb_to_grayscale", lambda m, x: m.rgb_to_grayscale(x)),
        ("rotate 30 bilinear", lambda m, x: m.rotate(x, 30.0, interpolation=TF.InterpolationMode.BILINEAR)),
        ("rotate 90 expand", lambda m, x: m.rotate(x, 90.0, expand=True)),
        ("affine", lambda m, x: m.affine(x, angle=10.0, translate=[5, 5], scale=1.1, shear=[5.0, 0.0])),
        ("gaussian_blur 5", lambda m, x: m.gaussian_blur(x, [5, 5])),
        ("adjust_gamma 0.8", lambda m, x: m.adjust_gamma(x, 0.8)),
        ("invert", lambda m, x: m.invert(x)),
        ("posterize 3", lambda m, x: m.posterize(x, 3)),
        ("solarize", lambda m, x: m.solarize(x, 0.5 if x.is_floating_point() else 128)),
        ("autocontrast", lambda m, x: m.autocontrast(x)),
        ("equalize", lambda m, x: m.equalize(x)),
        ("adjust_sharpness 1.5", lambda m, x: m.adjust_sharpness(x, 1.5)),
        ("permute_channels 2,1,0", lambda m, x: m.permute_channels(x, [2, 1, 0])),
        ("pad 4 constant", lambda m, x: m.pad(x, [4], fill=0, padding_mode="constant")),
        ("pad 4 reflect", lambda m, x: m.pad(x, [4], padding_mode="reflect")),
        ("center_crop 224", lambda m, x: m.center_crop(x, [224])),
        ("erase 100x200", lambda m, x: m.erase(x, 10, 20, 100, 200, torch.zeros((), dtype=x.dtype))),
        ("perspective bilinear", lambda m, x: m.perspective(x, [[0, 0], [223, 0], [223, 223], [0, 223]],
                                                            [[5, 3], [215, 8], [220, 210], [2, 218]],
                                                            interpolation=TF.InterpolationMode.BILINEAR)),
        ("pipeline resize+crop+flip+to_dtype+normalize", pipeline),
        ("pipeline resized_crop 224+flip+to_dtype+normalize", train_pipeline),
    ]
    inputs = [("1080p CHW", lambda d: hd(d, False)), ("1080p HWC-strided", lambda d: hd(d, True)),
              ("%dx3x224x224" % (16 if quick else 64), batch)]
    for op_name, op in ops:
        for input_name, make in inputs:
            for dtype in (torch.uint8, torch.float32):
                yield op_name, input_name, str(dtype).replace("torch.", ""), (lambda make=make, dtype=dtype: make(dtype)), op


def median_ms(fn, repeats):
    # Warm-up: first-call costs, the pool's threads started and spinning, the allocator's pages
    # mapped. A few calls and at least 20 ms of them.
    start = time.perf_counter()
    for i in range(50):
        t0 = time.perf_counter()
        fn()
        once = time.perf_counter() - t0
        if i >= 2 and time.perf_counter() - start > 0.02:
            break
    # Sub-millisecond ops swing with the VM's scheduling: up to 200 runs of them (at most 2 s in
    # all), `repeats` runs of slower ones (within 2 s).
    cap = 200 if once < 2e-3 else repeats
    runs = max(3, min(cap, int(2.0 / max(once, 1e-6))))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def median_ms_pair(fns, repeats):
    """median_ms of each function, their calls alternated (a, b, a, b, ...): both see the same
    moments of the host, whose speed drifts by tens of percent over minutes on a shared VM."""
    for fn in fns:
        median_ms(fn, 1)  # warm-up only
    once = max(statistics.median([_time(fn) for _ in range(3)]) for fn in fns)
    cap = 200 if once < 2e-3 else repeats
    runs = max(3, min(cap, int(2.0 / max(len(fns) * once, 1e-6))))
    times = [[] for _ in fns]
    for _ in range(runs):
        for fn, t in zip(fns, times):
            t.append(_time(fn))
    return [statistics.median(t) * 1e3 for t in times]


def _time(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def child(args):
    """Measures every case with the thread count this process was started with; prints TSV."""
    import torch
    import torchvision.transforms.v2.functional as TF

    import streamvision.transforms.v2.functional as F

    torch.set_num_threads(int(os.environ["STREAMVISION_NUM_THREADS"]))
    for op_name, input_name, dtype, make, op in cases(torch, TF, F, args.quick):
        name = f"{op_name} | {input_name} | {dtype}"
        if args.filter and args.filter not in name:
            continue
        x = make()
        libs = {"tv": (TF, "torchvision"), "sv": (F, "streamvision")}
        chosen = ["tv", "sv"] if args.child == "both" else [args.child]
        usable = []
        for lib in chosen:
            module, label = libs[lib]
            try:
                op(module, x)
                usable.append(lib)
            except Exception as e:  # torchvision lacks some dtype/op pairs
                print(f"# {label} {name}: {type(e).__name__}: {e}", file=sys.stderr)
        fns = [lambda m=libs[lib][0]: op(m, x) for lib in usable]
        if len(fns) == 2:
            times = dict(zip(usable, median_ms_pair(fns, args.repeats)))
        else:
            times = {lib: median_ms(fn, args.repeats) for lib, fn in zip(usable, fns)}
        for lib in chosen:
            print(f"{lib}\t{op_name}\t{input_name}\t{dtype}\t{times.get(lib)}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="1,all", help="comma-separated thread counts; 'all' = os.cpu_count()")
    parser.add_argument("--filter", default="", help="only cases whose 'op | input | dtype' contains this")
    parser.add_argument("--repeats", type=int, default=15, help="timed runs per case (fewer for slow cases)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="alternate the two libraries' processes this many times; each case reports the median of its medians")
    parser.add_argument("--quick", action="store_true", help="a 16-image batch instead of 64 (for CI smoke runs)")
    parser.add_argument("--interleave", action="store_true",
                        help="both libraries in one process, their calls alternated (torch's OpenMP threads told "
                             "to sleep between ops, OMP_WAIT_POLICY=PASSIVE); the steadier comparison on a shared VM")
    parser.add_argument("--fresh-pages", action="store_true",
                        help="keep glibc's malloc defaults (blocks above 32 MiB mapped afresh, and faulted in, on every call)")
    parser.add_argument("--child", choices=["sv", "tv", "both"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    import torch
    import torchvision

    import streamvision

    counts = [os.cpu_count() if t == "all" else int(t) for t in args.threads.split(",")]
    rows = {}
    # Each library in a process of its own: torch's OpenMP threads spin for milliseconds after
    # each torch op, and on a small machine they would take the cores streamvision's pool runs
    # on if both were timed in one process.
    # On a shared VM the host's speed drifts over minutes: with --rounds N the processes alternate
    # N times (tv, sv, tv, sv, ...) and each case reports the median of its N medians, so that a
    # burst of neighbours' load, or a quiet moment, in one library's process moves neither side.
    for _ in range(args.rounds):
        for n in counts:
            env = dict(os.environ, STREAMVISION_NUM_THREADS=str(n), OMP_NUM_THREADS=str(n))
            if args.interleave:
                env["OMP_WAIT_POLICY"] = "PASSIVE"
            if not args.fresh_pages:
                for name in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"):
                    env.setdefault(name, str(1 << 30))
            for lib in ("both",) if args.interleave else ("tv", "sv"):
                cmd = [sys.executable, os.path.abspath(__file__), "--child", lib, "--repeats", str(args.repeats)]
                if args.filter:
                    cmd += ["--filter", args.filter]
                if args.quick:
                    cmd.append("--quick")
                out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
                for line in out.splitlines():
                    lib, op_name, input_name, dtype, t = line.split("\t")
                    runs = rows.setdefault((op_name, input_name, dtype), {}).setdefault(n, {}).setdefault(lib, [])
                    if t != "None":
                        runs.append(float(t))
    for by_n in rows.values():
        for by_lib in by_n.values():
            for lib, runs in by_lib.items():
                by_lib[lib] = statistics.median(runs) if runs else None

    def ms(v):
        return "n/a" if v is None else f"{v:.2f}"

    def ratio(sv, tv):
        return "n/a" if sv is None or tv is None else f"{tv / sv:.2f}x"

    print(f"streamvision {streamvision.__version__}, torch {torch.__version__}, torchvision {torchvision.__version__}, "
          f"{os.cpu_count()} CPUs, torch CPU capability {torch.backends.cpu.get_cpu_capability()}")
    rounds = f" (the median of {args.rounds} rounds' medians)" if args.rounds > 1 else ""
    if args.interleave:
        rounds += ", both libraries' calls alternated in one process (OMP_WAIT_POLICY=PASSIVE)"
    if not args.fresh_pages:
        rounds += ", freed blocks kept in the heap (MALLOC_MMAP_THRESHOLD_)"
    print(f"times: median ms{rounds}; ratio = torchvision / streamvision (above 1: streamvision faster)\n")
    header = "| op | input | dtype |" + "".join(f" sv {n}T | tv {n}T | ratio {n}T |" for n in counts)
    print(header)
    print("|" + "---|" * (3 + 3 * len(counts)))
    for (op_name, input_name, dtype), by_n in rows.items():
        cells = ""
        for n in counts:
            sv, tv = by_n.get(n, {}).get("sv"), by_n.get(n, {}).get("tv")
            cells += f" {ms(sv)} | {ms(tv)} | {ratio(sv, tv)} |"
        print(f"| {op_name} | {input_name} | {dtype} |{cells}")


if __name__ == "__main__":
    main()
