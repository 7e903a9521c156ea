"""Throughput of the `streamvision run` program over a folder of JPEGs: the whole job (read,
decode, pipeline, encode and write), on the GPU and on the CPU, with the program's own stage
times. The JPEGs are made here (ImageNet-like: 500x375 and 375x500, quality 90) so the run needs
no dataset.

    python bench/bench_cli.py [--program build/gpu/tools/streamvision] [--images 2048] [--json FILE]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import torch
from torchvision.io import encode_jpeg

PIPELINE = "random_resized_crop=224,hflip,to_dtype=float32,normalize=imagenet"


def make_jpegs(folder, n):
    g = torch.Generator().manual_seed(0)
    for i in range(n):
        h, w = (375, 500) if i % 3 else (500, 375)
        # Smooth content with noise on top, so that the files are of a photo's size, not a flat one's.
        base = torch.nn.functional.interpolate(torch.rand(1, 3, h // 16, w // 16, generator=g), size=(h, w),
                                               mode="bilinear", align_corners=False)[0]
        img = (base * 200 + torch.rand(3, h, w, generator=g) * 55).to(torch.uint8)
        with open(os.path.join(folder, f"img_{i:05d}.jpg"), "wb") as f:
            f.write(encode_jpeg(img, quality=90).numpy().tobytes())


def run(program, device, inputs, out, batch, shard):
    cmd = [program, "run", "--device", device, "--pipeline", PIPELINE, "--batch", str(batch), "--seed", "1"]
    if shard:
        cmd += ["--shard-size", str(shard)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd + [inputs, out], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    m = re.search(r"(\d+) processed.*?([\d.]+) images/s", p.stdout)
    stages = re.search(r"stage time.*", p.stdout)
    startup = re.search(r"start-up: first batch out after ([\d.]+) s.*after it ([\d.]+) images/s", p.stdout)
    return {"device": device, "batch": batch, "shard_size": shard, "processed": int(m.group(1)),
            "images_per_s": float(m.group(2)), "process_wall_s": wall, "stages": stages.group(0) if stages else "",
            "first_batch_s": float(startup.group(1)) if startup else None,
            "steady_images_per_s": float(startup.group(2)) if startup else None,
            "startup_line": startup.group(0) if startup else ""}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--program", default="build/gpu/tools/streamvision")
    ap.add_argument("--images", type=int, default=2048)
    ap.add_argument("--json")
    args = ap.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        inputs = os.path.join(tmp, "in")
        os.makedirs(inputs)
        make_jpegs(inputs, args.images)
        mb = sum(os.path.getsize(os.path.join(inputs, f)) for f in os.listdir(inputs)) / 1e6
        print(f"{args.images} JPEGs, {mb:.1f} MB, pipeline {PIPELINE}")
        cases = [("cpu", 64, 0), ("cuda", 64, 0), ("cuda", 64, 256), ("cuda", 256, 256)]
        if not torch.cuda.is_available():
            cases = cases[:1]
        for device, batch, shard in cases:
            for attempt in range(2):  # the first run warms the page cache and the device
                out = os.path.join(tmp, f"out_{device}_{batch}_{shard}_{attempt}")
                r = run(args.program, device, inputs, out, batch, shard)
            results.append(r)
            print(f"  {device:5s} batch {batch:4d} shard {shard:4d}: {r['images_per_s']:9.1f} images/s  "
                  f"({r['process_wall_s']:.2f} s with process start)\n      {r['startup_line']}\n      {r['stages']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
                       "images": args.images, "pipeline": PIPELINE, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
