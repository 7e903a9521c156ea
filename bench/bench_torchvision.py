"""Side-by-side benchmark of streamvision, torchvision and, where it is installed, CV-CUDA's
torchvision-style functionals (cvcuda.tv, 0.19+) on the same GPU, same run.

For each case: median time over 20 timed runs after warm-up (CUDA events), effective bandwidth
(the fewest bytes any implementation must read + write, over the time), its share of the
device-to-device copy bandwidth measured in this run, and the speedup over torchvision and over
CV-CUDA. Also the per-call host overhead from Python on a 3x224x224 image, and the wall clock of a
per-sample pipeline on one 1080p image (functionals of each library, and the Compose of
torchvision's transform modules and of ours). CV-CUDA is timed
when `import cvcuda.tv` works (pip install cvcuda-cu13; it runs on torch's current stream, as
streamvision does); its failures are reported per case.

    python3 bench/bench_torchvision.py [--json FILE] [--filter SUBSTRING]
"""

import argparse
import json
import statistics
import time

import torch
import torchvision.transforms.v2.functional as TF

import streamvision.transforms.v2.functional as F

from timing import copy_bandwidth, median_ms  # noqa: E402  (bench/ is the script folder)


def per_call_us(fns, calls=400, reps=15, warmup=100, gpu_included=False):
    """Time per call of each function in `fns` (name -> fn), median over batches of `calls`. The
    functions take turns batch by batch, so that a drift of the host's speed during the run (its
    clock, other processes) moves them all alike. Host time (the default): batches small enough
    never to fill the GPU's launch queue, so the host never waits for the GPU inside the timed
    region. gpu_included: wall clock, each batch ending with a synchronize inside the timed region."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    times = {name: [] for name in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            if gpu_included:
                torch.cuda.synchronize()
            times[name].append((time.perf_counter() - t0) / calls * 1e6)
            torch.cuda.synchronize()
    return {name: statistics.median(t) for name, t in times.items()}


def cases(device="cuda", shape=(64, 3, 1080, 1920)):
    """(group, name, input description, op(m), bytes): op calls the functional module m
    (streamvision, torchvision or cvcuda.tv, which share torchvision's signatures). Crops are
    timed as each library returns them (a view for streamvision and torchvision)."""
    g = torch.Generator(device=device).manual_seed(0)
    n = shape[0] * shape[1] * shape[2] * shape[3]
    u8 = torch.randint(0, 256, shape, dtype=torch.uint8, device=device, generator=g)
    f32 = u8.float() / 255
    u8_cl = u8.contiguous(memory_format=torch.channels_last)
    f32_cl = f32.contiguous(memory_format=torch.channels_last)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    s = "x".join(map(str, shape))
    out = []
    for tag, x8, x32 in [("", u8, f32), (" channels_last", u8_cl, f32_cl)]:
        out += [
            ("core", "horizontal_flip", f"{s} uint8{tag}", lambda m, x=x8: m.horizontal_flip(x), 2 * n),
            ("core", "vertical_flip", f"{s} uint8{tag}", lambda m, x=x8: m.vertical_flip(x), 2 * n),
            ("core", "horizontal_flip", f"{s} float32{tag}", lambda m, x=x32: m.horizontal_flip(x), 8 * n),
            ("core", "to_dtype u8->f32 scale", f"{s} uint8{tag}", lambda m, x=x8: m.to_dtype(x, torch.float32, scale=True),
             5 * n),
            ("core", "normalize", f"{s} float32{tag}", lambda m, x=x32: m.normalize(x, mean, std), 8 * n),
        ]
    out += geometry_cases(u8, f32, s, shape) + color_cases(u8, f32, s, n)
    return out


def geometry_cases(u8, f32, s, shape):
    from torchvision.transforms import InterpolationMode as IM

    out = []
    n = u8.numel()
    h, w = shape[2], shape[3]
    n224 = shape[0] * shape[1] * 224 * 224
    ch, cw = h * 8 // 9, w * 5 // 6  # 960x1600 of 1080x1920
    crop_n = shape[0] * shape[1] * ch * cw
    pad_n = shape[0] * shape[1] * (h + 8) * (w + 8)
    for dt, x, size in [("uint8", u8, 1), ("float32", f32, 4)]:
        for mode, aa, label in [(IM.BILINEAR, True, "bilinear antialias"), (IM.BICUBIC, True, "bicubic antialias"),
                                (IM.BILINEAR, False, "bilinear"), (IM.BICUBIC, False, "bicubic"), (IM.NEAREST, False, "nearest")]:
            out.append(("geometry", f"resize 224 {label}", f"{s} {dt}",
                        lambda m, x=x, i=mode, a=aa: m.resize(x, [224, 224], interpolation=i, antialias=a), size * (n + n224)))
        half_n = shape[0] * shape[1] * (h // 2) * (w // 2)
        out.append(("geometry", f"resize {h // 2}x{w // 2} bilinear antialias", f"{s} {dt}",
                    lambda m, x=x: m.resize(x, [h // 2, w // 2], interpolation=IM.BILINEAR, antialias=True),
                    size * (n + half_n)))
        out += [
            ("geometry", f"crop {ch}x{cw}", f"{s} {dt}", lambda m, x=x: m.crop(x, h * 100 // 1080, w * 200 // 1920, ch, cw), size * 2 * crop_n),
            ("geometry", f"center_crop {ch}x{cw}", f"{s} {dt}", lambda m, x=x: m.center_crop(x, [ch, cw]), size * 2 * crop_n),
            ("geometry", "pad 4 constant", f"{s} {dt}", lambda m, x=x: m.pad(x, 4), size * (n + pad_n)),
            ("geometry", "pad 4 reflect", f"{s} {dt}", lambda m, x=x: m.pad(x, 4, padding_mode="reflect"), size * (n + pad_n)),
        ]
    start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
    end = [[60, 40], [w - 101, 20], [w - 31, h - 61], [15, h - 21]]
    for name, op in [
        ("rotate 30 bilinear fill", lambda m: m.rotate(u8, 30.0, interpolation=IM.BILINEAR, fill=[0, 128, 255])),
        ("affine bilinear fill", lambda m: m.affine(u8, 20.0, [30, -20], 1.2, [5.0, 3.0], interpolation=IM.BILINEAR, fill=7)),
        ("perspective bilinear fill", lambda m: m.perspective(u8, start, end, interpolation=IM.BILINEAR, fill=7)),
    ]:
        out.append(("geometry", name, f"{s} uint8", op, 2 * n))
    return out


def color_cases(u8, f32, s, n):
    out = []
    for dt, x, size in [("uint8", u8, 1), ("float32", f32, 4)]:
        for name, op in [
            ("adjust_brightness 1.3", lambda m, x=x: m.adjust_brightness(x, 1.3)),
            ("adjust_saturation 0.6", lambda m, x=x: m.adjust_saturation(x, 0.6)),
            ("invert", lambda m, x=x: m.invert(x)),
            ("solarize", lambda m, x=x: m.solarize(x, 0.5 if x.is_floating_point() else 128)),
            ("adjust_gamma 0.8", lambda m, x=x: m.adjust_gamma(x, 0.8)),
            ("adjust_hue 0.1", lambda m, x=x: m.adjust_hue(x, 0.1)),
            ("adjust_contrast 0.7", lambda m, x=x: m.adjust_contrast(x, 0.7)),
            ("adjust_sharpness 1.5", lambda m, x=x: m.adjust_sharpness(x, 1.5)),
            ("autocontrast", lambda m, x=x: m.autocontrast(x)),
            ("equalize", lambda m, x=x: m.equalize(x)),
            ("gaussian_blur 23 sigma 5", lambda m, x=x: m.gaussian_blur(x, [23, 23], [5.0])),
        ]:
            out.append(("color", name, f"{s} {dt}", op, size * 2 * n))
        out.append(("color", "rgb_to_grayscale", f"{s} {dt}", lambda m, x=x: m.rgb_to_grayscale(x), size * (n + n // 3)))
    out.append(("color", "posterize 3", f"{s} uint8", lambda m: m.posterize(u8, 3), 2 * n))
    return out


def sample_pipelines(libs, mean, std, device="cuda"):
    """Issue 13's per-sample pipeline on one 3x1080x1920 uint8 image, as a chain of functionals
    per library (name -> fn), and as each library's transform modules (torchvision's and ours)."""
    import torchvision.transforms.v2 as TT

    import streamvision.transforms.v2 as ST

    image = torch.randint(0, 256, (3, 1080, 1920), dtype=torch.uint8, device=device)

    def chain(m):
        x = m.resize(image, [256], antialias=True)
        x = m.center_crop(x, [224])
        x = m.horizontal_flip(x)
        x = m.to_dtype(x, torch.float32, scale=True)
        return m.normalize(x, mean, std)

    def modules(T):
        return T.Compose([T.Resize(256, antialias=True), T.CenterCrop(224), T.RandomHorizontalFlip(p=1.0),
                          T.ToDtype(torch.float32, scale=True), T.Normalize(mean, std)])

    fns = {f"functionals: {lib}": (lambda m=m: chain(m)) for lib, m in libs}
    for lib, T in (("ours", ST), ("tv", TT)):
        composed = modules(T)
        fns[f"Compose: {lib}"] = lambda c=composed: c(image)
    usable = {}
    for name, fn in fns.items():
        try:
            fn()
            usable[name] = fn
        except Exception as e:  # noqa: BLE001 - reported; the others go on
            print(f"  {name}: failed: {type(e).__name__}: {e}"[:240])
    return usable


def cvcuda_tv():
    """CV-CUDA's torchvision-style functionals (cvcuda.tv, 0.19+: torch tensors in and out, on
    torch's current stream), or None where CV-CUDA is not installed."""
    try:
        import cvcuda.tv
    except ImportError:
        return None
    return cvcuda.tv


def time_case(op, m):
    """Median ms of op(m), or the exception's text."""
    try:
        return median_ms(lambda: op(m))
    except Exception as e:  # noqa: BLE001 - reported in the table; the other libraries go on
        return f"{type(e).__name__}: {e}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--json")
    parser.add_argument("--filter", default="")
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    cv = cvcuda_tv()
    libs = [("ours", F), ("tv", TF)] + ([("cv", cv)] if cv is not None else [])
    copy_gbs = copy_bandwidth()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    import torchvision

    cv_version = "not installed" if cv is None else getattr(__import__("cvcuda"), "__version__", "?")
    print(f"torchvision {torchvision.__version__}, CV-CUDA {cv_version}")
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s (read + write)\n")
    header = f"{'op':28} {'input':38} {'ours ms':>9} {'tv ms':>9} {'vs tv':>7}"
    if cv is not None:
        header += f" {'cv ms':>9} {'vs cv':>7}"
    header += f" {'ours GB/s':>10} {'of copy':>8} {'tv of copy':>10}" + (f" {'cv of copy':>10}" if cv is not None else "")
    print(header)
    rows = []
    torch.cuda.empty_cache()
    for group, name, desc, op, nbytes in cases():
        if args.filter and args.filter not in name and args.filter not in group:
            continue
        ms = {lib: time_case(op, m) for lib, m in libs}
        failed = {lib: v for lib, v in ms.items() if isinstance(v, str)}
        if "ours" in failed or "tv" in failed:
            print(f"{name:28} {desc:38} failed: {failed}"[:240], flush=True)
            continue
        row = dict(group=group, op=name, input=desc, ours_ms=ms["ours"], tv_ms=ms["tv"], speedup=ms["tv"] / ms["ours"],
                   ours_gbs=nbytes / ms["ours"] / 1e6, ours_of_copy=nbytes / ms["ours"] / 1e6 / copy_gbs,
                   tv_of_copy=nbytes / ms["tv"] / 1e6 / copy_gbs, cv_ms=None, speedup_cv=None, cv_of_copy=None, cv_error=None)
        line = f"{name:28} {desc:38} {ms['ours']:9.4f} {ms['tv']:9.4f} {row['speedup']:6.1f}x"
        if cv is not None:
            if "cv" in failed:
                row["cv_error"] = failed["cv"]
                line += f" {'failed':>9} {'':>7}"
            else:
                row.update(cv_ms=ms["cv"], speedup_cv=ms["cv"] / ms["ours"], cv_of_copy=nbytes / ms["cv"] / 1e6 / copy_gbs)
                line += f" {ms['cv']:9.4f} {row['speedup_cv']:6.2f}x"
        line += f" {row['ours_gbs']:10.0f} {100 * row['ours_of_copy']:7.1f}% {100 * row['tv_of_copy']:9.1f}%"
        if cv is not None:
            line += f" {100 * row['cv_of_copy']:9.1f}%" if row["cv_of_copy"] is not None else f" {'-':>10}"
        rows.append(row)
        print(line, flush=True)
        if row["cv_error"]:
            print(f"    CV-CUDA: {row['cv_error']}"[:240], flush=True)

    print("\nper-call host overhead from Python, 3x224x224 CUDA tensors (µs per call)")
    small_u8 = torch.randint(0, 256, (3, 224, 224), dtype=torch.uint8, device="cuda")
    small_f32 = small_u8.float() / 255
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    import streamvision as sv

    small_sv = sv.as_tensor(small_u8)  # no torch on the call path: our allocator, our stream
    compared = [
        ("horizontal_flip uint8", lambda m: m.horizontal_flip(small_u8)),
        ("normalize float32", lambda m: m.normalize(small_f32, mean, std)),
    ]
    # Where the time goes: pieces of a call measured alone.
    pieces = [
        ("as_tensor (import only)", lambda: sv.as_tensor(small_u8)),
        ("horizontal_flip streamvision.Tensor", lambda: F.horizontal_flip(small_sv)),
        # F.* is _kernels' wrapper (the torch.compile switch) around the _C function
        ("horizontal_flip _C (no wrapper)", lambda: sv._C.horizontal_flip(small_u8)),
        ("to_dtype same dtype (no kernel)", lambda: F.to_dtype(small_u8, torch.uint8)),
        ("torch.empty_like", lambda: torch.empty_like(small_u8)),
        ("torch.flip", lambda: torch.flip(small_u8, [-1])),
    ]
    fns = {(name, lib): (lambda op=op, m=m: op(m)) for name, op in compared for lib, m in libs}
    fns.update({(name, None): fn for name, fn in pieces})
    us = per_call_us(fns)
    overhead = {}
    for name, _ in compared:
        overhead[name] = {f"{lib}_us": us[name, lib] for lib, _ in libs}
        print(f"  {name:24} ours {us[name, 'ours']:6.2f}  torchvision {us[name, 'tv']:6.2f}"
              + (f"  CV-CUDA {us[name, 'cv']:6.2f}" if (name, "cv") in us else ""))
    for name, _ in pieces:
        overhead[name] = dict(us=us[name, None])
        print(f"  {name:32} {us[name, None]:6.2f}")

    print("\nper-sample pipeline, one 3x1080x1920 uint8 CUDA image: resize 256 (antialias), center_crop 224,")
    print("horizontal_flip, to_dtype float32 scale, normalize (µs per call, wall clock, GPU work included)")
    pipeline = per_call_us(sample_pipelines(libs, mean, std), calls=50, warmup=20, gpu_included=True)
    for name, v in pipeline.items():
        print(f"  {name:24} {v:8.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(), copy_gbs=copy_gbs, cases=rows, overhead=overhead,
                           pipeline=pipeline), f, indent=1)


if __name__ == "__main__":
    main()
