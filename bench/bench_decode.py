"""JPEG decode benchmarks (issue 14), side by side with torchvision in the same run.

  1. GPU decode: images/s of streamvision.io.decode_jpeg(batch, device="cuda") and
     torchvision.io.decode_jpeg(batch, device="cuda") on the same 256 ImageNet-sized JPEGs
     (500x375, quality 90, 4:2:0, made with PIL at run time from crops of the bundled photo);
     with the largest difference from the CPU decode of the same files.
  2. End to end: JPEG bytes -> decoded list -> per-sample RandomResizedCrop(224) + RandomHorizontalFlip
     + ToDtype(float32, scale) + Normalize (each image its own parameters, one fused batch kernel),
     images/s, and its ratio to decode alone (target >= 80 %).
  3. CPU decode per core: one thread, one image at a time, streamvision against torchvision.

  python bench/bench_decode.py [--batch 256] [--iters 10] [--json FILE]

Times are wall-clock over --iters full batches after two warm-up batches, with
torch.cuda.synchronize() before starting and after the last batch (so every GPU stage is inside);
the median of 3 such runs is reported. Each GPU measurement alternates streamvision and
torchvision so that clocks and caches treat them alike.
"""

import argparse
import io
import json
import os
import statistics
import time

import numpy as np
import torch
from PIL import Image

import streamvision.io as svio
from streamvision._nvjpeg import gpu_decoder_available
import streamvision.transforms.v2 as T

try:
    import torchvision
    import torchvision.io as tvio
except ImportError:  # the side-by-side columns need it
    torchvision = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def make_jpegs(count, width=500, height=375, quality=90, seed=0):
    """`count` JPEGs of photo content: random crops of the bundled sample, scaled to width x height."""
    photo = Image.open(os.path.join(ROOT, "assets", "sample.png")).convert("RGB")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        scale = rng.uniform(0.3, 1.0)
        w, h = max(16, int(photo.width * scale)), max(16, int(photo.height * scale))
        x, y = int(rng.integers(0, photo.width - w + 1)), int(rng.integers(0, photo.height - h + 1))
        tile = photo.crop((x, y, x + w, y + h)).resize((width, height), Image.BICUBIC)
        if rng.random() < 0.5:
            tile = tile.transpose(Image.FLIP_LEFT_RIGHT)
        buffer = io.BytesIO()
        tile.save(buffer, "JPEG", quality=quality)
        out.append(torch.frombuffer(bytearray(buffer.getvalue()), dtype=torch.uint8))
    return out


def rate(fn, images, iters, sync):
    """Images per second of `fn()` (which processes `images` images), median of 3 runs."""
    for _ in range(2):
        fn()
    rates = []
    for _ in range(3):
        sync()
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        sync()
        rates.append(images * iters / (time.perf_counter() - start))
    return statistics.median(rates)


def gpu_decode(data, iters, results):
    sync = torch.cuda.synchronize
    sv = lambda: svio.decode_jpeg(data, mode=svio.ImageReadMode.RGB, device="cuda")  # noqa: E731
    rows = {"streamvision": [], "torchvision": []}
    for _ in range(2):  # alternate the two, twice
        rows["streamvision"].append(rate(sv, len(data), iters, sync))
        if torchvision is not None:
            tv = lambda: tvio.decode_jpeg(data, mode=tvio.ImageReadMode.RGB, device="cuda")  # noqa: E731
            rows["torchvision"].append(rate(tv, len(data), iters, sync))
    results["gpu_decode_images_per_s"] = {k: max(v) for k, v in rows.items() if v}
    cpu = svio.decode_jpeg(data, mode=svio.ImageReadMode.RGB)
    gpu = sv()
    diffs = [(g.cpu().int() - c.int()).abs() for g, c in zip(gpu, cpu)]
    results["gpu_vs_cpu_max_abs_diff"] = int(max(d.max() for d in diffs))
    results["gpu_vs_cpu_worst_mean_abs_diff"] = float(max(d.float().mean() for d in diffs))


def end_to_end(data, iters, results):
    """Decode, then the augmentation per sample, then one batch normalised: a training input."""
    # The per-sample pipeline on the decoded list: one batch kernel for crop, flip, ToDtype and
    # Normalize (transforms.v2 per_sample=True; Compose fuses it).
    pipeline = T.Compose([T.RandomResizedCrop(224, antialias=True, per_sample=True),
                          T.RandomHorizontalFlip(per_sample=True),
                          T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)])

    def run():
        images = svio.decode_jpeg(data, mode=svio.ImageReadMode.RGB, device="cuda")
        return pipeline(images)

    def decode():
        return svio.decode_jpeg(data, mode=svio.ImageReadMode.RGB, device="cuda")

    batch = run()
    assert batch.shape == (len(data), 3, 224, 224) and batch.dtype == torch.float32
    # Decode alone and decode + augmentation alternate, twice, and the ratio is taken between
    # them: on the H200 (8c15867) this run's end to end came out at 61 % of a decode rate timed
    # earlier in the process, while a fresh process timed 7.79 ms for the decode and 8.37 ms for
    # both (93 %): drift between phases, or state left by torchvision's decoder, not the pipeline.
    e2e, alone = [], []
    for _ in range(2):
        alone.append(rate(decode, len(data), iters, torch.cuda.synchronize))
        e2e.append(rate(run, len(data), iters, torch.cuda.synchronize))
    results["end_to_end_images_per_s"] = max(e2e)
    results["decode_alone_beside_end_to_end_images_per_s"] = max(alone)
    results["end_to_end_over_decode"] = max(e2e) / max(alone)


def cpu_decode_per_core(data, results):
    torch.set_num_threads(1)
    sample = data[:64]
    rows = {"streamvision": rate(lambda: [svio.decode_jpeg(d) for d in sample], len(sample), 3, lambda: None)}
    if torchvision is not None:
        rows["torchvision"] = rate(lambda: [tvio.decode_jpeg(d) for d in sample], len(sample), 3, lambda: None)
    results["cpu_decode_images_per_s_per_core"] = rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()

    data = make_jpegs(args.batch)
    results = {
        "batch": args.batch,
        "mean_jpeg_bytes": int(sum(d.numel() for d in data) / len(data)),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__ if torchvision is not None else None,
    }
    if torch.cuda.is_available() and gpu_decoder_available():
        results["gpu"] = torch.cuda.get_device_name()
        gpu_decode(data, args.iters, results)
        end_to_end(data, args.iters, results)
    else:
        print("no GPU or no nvJPEG decoder: GPU rows skipped")
    cpu_decode_per_core(data, results)

    print(json.dumps(results, indent=2))
    if "gpu_decode_images_per_s" in results:
        g = results["gpu_decode_images_per_s"]
        tv = g.get("torchvision")
        print(f"\nGPU decode, {args.batch} JPEGs 500x375 q90: streamvision {g['streamvision']:.0f} images/s"
              + (f", torchvision {tv:.0f} images/s ({g['streamvision'] / tv:.2f}x)" if tv else ""))
        print(f"end to end: {results['end_to_end_images_per_s']:.0f} images/s, "
              f"{100 * results['end_to_end_over_decode']:.0f} % of decode alone timed beside it (target >= 80 %)")
        print(f"GPU vs CPU decode: max abs difference {results['gpu_vs_cpu_max_abs_diff']}, "
              f"worst per-image mean {results['gpu_vs_cpu_worst_mean_abs_diff']:.3f} (torchvision's bound: mean < 2)")
    c = results["cpu_decode_images_per_s_per_core"]
    print(f"CPU decode, one core: streamvision {c['streamvision']:.0f} images/s"
          + (f", torchvision {c['torchvision']:.0f} images/s" if "torchvision" in c else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
