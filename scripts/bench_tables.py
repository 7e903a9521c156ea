#!/usr/bin/env python3
"""Turns the benchmark JSON files of scripts/gpu-check (bench_tv.json from
bench/bench_torchvision.py, bench_cpp.json from streamvision_bench) into the markdown tables of
bench/RESULTS.md.

    scripts/bench_tables.py OUT/bench_tv.json OUT/bench_cpp.json
"""

import json
import sys


def side_by_side(path):
    d = json.load(open(path))
    cv = any(c.get("cv_ms") is not None or c.get("cv_error") for c in d["cases"])
    print(f"device-to-device copy in this run: {d['copy_gbs']:.0f} GB/s (read + write)\n")
    if cv:
        print("| op | input | streamvision ms | torchvision ms | CV-CUDA ms | vs torchvision | vs CV-CUDA | "
              "streamvision GB/s | of copy | torchvision of copy | CV-CUDA of copy |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    else:
        print("| op | input | streamvision ms | torchvision ms | speedup | streamvision GB/s | of copy | torchvision of copy |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
    for c in d["cases"]:
        head = f"| {c['op']} | {c['input']} | {c['ours_ms']:.3f} | {c['tv_ms']:.3f} | "
        tail = f"{c['ours_gbs']:.0f} | {100 * c['ours_of_copy']:.0f}% | {100 * c['tv_of_copy']:.0f}% |"
        if not cv:
            print(head + f"{c['speedup']:.1f}x | " + tail)
        elif c.get("cv_ms") is None:
            print(head + f"failed | {c['speedup']:.1f}x | - | " + tail + " - |")
        else:
            print(head + f"{c['cv_ms']:.3f} | {c['speedup']:.1f}x | {c['speedup_cv']:.2f}x | " + tail +
                  f" {100 * c['cv_of_copy']:.0f}% |")
    print("\n| per-call host time, 3x224x224 CUDA tensor | µs |")
    print("|---|---:|")
    names = {"ours_us": "streamvision", "tv_us": "torchvision", "cv_us": "CV-CUDA"}
    for name, v in d["overhead"].items():
        if "us" in v:
            print(f"| {name} | {v['us']:.2f} |")
        for key, lib in names.items():
            if key in v:
                print(f"| {name}: {lib} | {v[key]:.2f} |")
    if d.get("pipeline"):
        libs = {"ours": "streamvision", "tv": "torchvision", "cv": "CV-CUDA"}
        print("\n| per-sample pipeline, one 3x1080x1920 uint8 image (resize 256, center_crop 224, flip, to_dtype, "
              "normalize) | µs per call, wall clock |")
        print("|---|---:|")
        for name, us in d["pipeline"].items():
            kind, _, lib = name.partition(": ")
            print(f"| {kind}: {libs.get(lib, lib)} | {us:.1f} |")


def cpp(path):
    d = json.load(open(path))
    print(f"device-to-device copy (cudaMemcpyAsync, 2 GiB) in this run: {d['copy_gbs']:.0f} GB/s (read + write)\n")
    print("| group | op | input | ms | GB/s | of copy |")
    print("|---|---|---|---:|---:|---:|")
    for c in d["cases"]:
        print(f"| {c['group']} | {c['op']} | {c['input']} | {c['ms']:.3f} | {c['gbs']:.0f} | {100 * c['of_copy']:.0f}% |")


if __name__ == "__main__":
    side_by_side(sys.argv[1])
    if len(sys.argv) > 2:
        print()
        cpp(sys.argv[2])
