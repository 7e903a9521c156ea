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

from timing import copy_bandwidth, median_ms  # noqa: E402  (bench/ is the script folder)


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
    out += geometry_cases(u8, f32, s, n) + color_cases(u8, f32, s, n)
    return out


def geometry_cases(u8, f32, s, n):
    from torchvision.transforms import InterpolationMode as IM

    out = []
    n224 = 64 * 3 * 224 * 224
    for dt, x, size in [("uint8", u8, 1), ("float32", f32, 4)]:
        for mode, aa, label in [(IM.BILINEAR, True, "bilinear antialias"), (IM.BICUBIC, True, "bicubic antialias"),
                                (IM.BILINEAR, False, "bilinear"), (IM.BICUBIC, False, "bicubic"), (IM.NEAREST, False, "nearest")]:
            out.append(("geometry", f"resize 224 {label}", f"{s} {dt}",
                        lambda x=x, m=mode, a=aa: F.resize(x, [224, 224], interpolation=m, antialias=a),
                        lambda x=x, m=mode, a=aa: TF.resize(x, [224, 224], interpolation=m, antialias=a), size * (n + n224)))
        crop_n = 64 * 3 * 960 * 1600
        pad_n = 64 * 3 * 1088 * 1928
        out += [
            ("geometry", "crop 960x1600", f"{s} {dt}", lambda x=x: F.crop(x, 100, 200, 960, 1600),
             lambda x=x: TF.crop(x, 100, 200, 960, 1600).contiguous(), size * 2 * crop_n),
            ("geometry", "center_crop 960x1600", f"{s} {dt}", lambda x=x: F.center_crop(x, [960, 1600]),
             lambda x=x: TF.center_crop(x, [960, 1600]).contiguous(), size * 2 * crop_n),
            ("geometry", "pad 4 constant", f"{s} {dt}", lambda x=x: F.pad(x, 4), lambda x=x: TF.pad(x, 4), size * (n + pad_n)),
            ("geometry", "pad 4 reflect", f"{s} {dt}", lambda x=x: F.pad(x, 4, padding_mode="reflect"),
             lambda x=x: TF.pad(x, 4, padding_mode="reflect"), size * (n + pad_n)),
        ]
    w, h = 1920, 1080
    start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
    end = [[60, 40], [w - 101, 20], [w - 31, h - 61], [15, h - 21]]
    for name, ours, theirs in [
        ("rotate 30 bilinear fill", lambda: F.rotate(u8, 30.0, interpolation=IM.BILINEAR, fill=[0, 128, 255]),
         lambda: TF.rotate(u8, 30.0, interpolation=IM.BILINEAR, fill=[0, 128, 255])),
        ("affine bilinear fill", lambda: F.affine(u8, 20.0, [30, -20], 1.2, [5.0, 3.0], interpolation=IM.BILINEAR, fill=7),
         lambda: TF.affine(u8, 20.0, [30, -20], 1.2, [5.0, 3.0], interpolation=IM.BILINEAR, fill=7)),
        ("perspective bilinear fill", lambda: F.perspective(u8, start, end, interpolation=IM.BILINEAR, fill=7),
         lambda: TF.perspective(u8, start, end, interpolation=IM.BILINEAR, fill=7)),
    ]:
        out.append(("geometry", name, f"{s} uint8", ours, theirs, 2 * n))
    return out


def color_cases(u8, f32, s, n):
    out = []
    for dt, x, size in [("uint8", u8, 1), ("float32", f32, 4)]:
        for name, ours, theirs in [
            ("adjust_brightness 1.3", lambda x=x: F.adjust_brightness(x, 1.3), lambda x=x: TF.adjust_brightness(x, 1.3)),
            ("adjust_saturation 0.6", lambda x=x: F.adjust_saturation(x, 0.6), lambda x=x: TF.adjust_saturation(x, 0.6)),
            ("invert", lambda x=x: F.invert(x), lambda x=x: TF.invert(x)),
            ("solarize", lambda x=x: F.solarize(x, 0.5 if x.is_floating_point() else 128),
             lambda x=x: TF.solarize(x, 0.5 if x.is_floating_point() else 128)),
            ("adjust_gamma 0.8", lambda x=x: F.adjust_gamma(x, 0.8), lambda x=x: TF.adjust_gamma(x, 0.8)),
            ("adjust_hue 0.1", lambda x=x: F.adjust_hue(x, 0.1), lambda x=x: TF.adjust_hue(x, 0.1)),
            ("adjust_contrast 0.7", lambda x=x: F.adjust_contrast(x, 0.7), lambda x=x: TF.adjust_contrast(x, 0.7)),
            ("adjust_sharpness 1.5", lambda x=x: F.adjust_sharpness(x, 1.5), lambda x=x: TF.adjust_sharpness(x, 1.5)),
            ("autocontrast", lambda x=x: F.autocontrast(x), lambda x=x: TF.autocontrast(x)),
            ("equalize", lambda x=x: F.equalize(x), lambda x=x: TF.equalize(x)),
            ("gaussian_blur 23 sigma 5", lambda x=x: F.gaussian_blur(x, [23, 23], [5.0]),
             lambda x=x: TF.gaussian_blur(x, [23, 23], [5.0])),
        ]:
            out.append(("color", name, f"{s} {dt}", ours, theirs, size * 2 * n))
        out.append(("color", "rgb_to_grayscale", f"{s} {dt}", lambda x=x: F.rgb_to_grayscale(x),
                    lambda x=x: TF.rgb_to_grayscale(x), size * (n + n // 3)))
    out.append(("color", "posterize 3", f"{s} uint8", lambda: F.posterize(u8, 3), lambda: TF.posterize(u8, 3), 2 * n))
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
    torch.cuda.empty_cache()
    for group, name, desc, ours, theirs, nbytes in cases():
        if args.filter and args.filter not in name and args.filter not in group:
            continue
        try:
            ms_ours = median_ms(ours)
        except Exception as e:  # noqa: BLE001 - report and go on with the other cases
            print(f"{name:28} {desc:38} ours failed: {e!r}"[:200], flush=True)
            continue
        try:
            ms_tv = median_ms(theirs)
        except Exception as e:  # noqa: BLE001
            print(f"{name:28} {desc:38} {ms_ours:9.4f}  torchvision failed: {e!r}"[:200], flush=True)
            continue
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

    small_sv = sv.as_tensor(small_u8)  # no torch on the call path: our allocator, our stream
    for name, fn in [
        ("as_tensor (import only)", lambda: sv.as_tensor(small_u8)),
        ("horizontal_flip streamvision.Tensor", lambda: F.horizontal_flip(small_sv)),
        # F.* is _kernels' wrapper (the torch.compile switch) around the _C function
        ("horizontal_flip _C (no wrapper)", lambda: sv._C.horizontal_flip(small_u8)),
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
