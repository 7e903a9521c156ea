#!/usr/bin/env python3
"""Summarises the records of the torchvision conformance tests (SV_CONFORMANCE_JSON lines) as a
markdown table: per op, dtype and device, the largest max-abs difference and the smallest share
of identical values over all cases."""

import collections
import json
import sys


def main(path):
    worst = collections.OrderedDict()
    for line in open(path):
        r = json.loads(line)
        key = (r["op"], r["dtype"], r["device"])
        w = worst.setdefault(key, dict(max_abs=0.0, identical=1.0, cases=0))
        w["max_abs"] = max(w["max_abs"], r["max_abs"])
        w["identical"] = min(w["identical"], r["identical"])
        w["cases"] += 1
    print("| op | dtype | device | comparisons | max abs diff | min identical |")
    print("|---|---|---|---:|---:|---:|")
    for (op, dtype, device), w in sorted(worst.items()):
        print(f"| {op} | {dtype} | {device} | {w['cases']} | {w['max_abs']:.3g} | {100 * w['identical']:.2f}% |")


if __name__ == "__main__":
    main(sys.argv[1])
