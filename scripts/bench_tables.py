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
    print(f"device-to-device copy in this run: {d['copy_gbs']:.0f} GB/s (read + write)\n")
    print("| op | input | streamvision ms | torchvision ms | speedup | streamvision GB/s | of copy | torchvision of copy |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for c in d["cases"]:
        print(f"| {c['op']} | {c['input']} | {c['ours_ms']:.3f} | {c['tv_ms']:.3f} | {c['speedup']:.1f}x | "
              f"{c['ours_gbs']:.0f} | {100 * c['ours_of_copy']:.0f}% | {100 * c['tv_of_copy']:.0f}% |")
    print("\n| per-call host time, 3x224x224 CUDA tensor | µs |")
    print("|---|---:|")
    for name, v in d["overhead"].items():
        if "ours_us" in v:
            print(f"| {name}: streamvision | {v['ours_us']:.2f} |")
            print(f"| {name}: torchvision | {v['tv_us']:.2f} |")
        else:
            print(f"| {name} | {v['us']:.2f} |")


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
