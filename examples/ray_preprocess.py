"""Scale-out preprocessing with Ray Data and streamvision: JPEG files -> model inputs.

Ray Data reads the image files, `map_batches` runs streamvision's decode and augmentation in a pool
of actors (one GPU per actor where there are GPUs, CPU actors otherwise) and the results are
written as Parquet (columns `path` and `image`, float32 [3, 224, 224]):

    python examples/ray_preprocess.py INPUT_DIR OUTPUT_DIR [--seed 0] [--device auto|cpu|cuda]
    python examples/ray_preprocess.py --make-sample 64 INPUT_DIR   # writes 64 JPEGs to try it on

The pipeline per image: decode (RGB) -> RandomResizedCrop(224) -> RandomHorizontalFlip ->
ToDtype(float32, scale) -> Normalize(ImageNet). Each image's random parameters come from its own
seed (the run's seed and the file name), so the output does not depend on how Ray splits the data
into batches or which actor gets them: `preprocess_files` below, run in one process, gives the same
arrays (tests/python/test_ray.py checks this on a local cluster).
"""

import argparse
import hashlib
import os
import sys

import numpy as np
import torch

import streamvision.io as svio
from streamvision._nvjpeg import gpu_decoder_available  # decode_jpeg(device="cuda") works here
import streamvision.transforms.v2 as T

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
SIZE = 224


def image_seed(seed, path):
    """A per-image seed from the run's seed and the file's name (not its folder: the same
    dataset copied elsewhere gives the same results)."""
    digest = hashlib.sha256(f"{seed}:{os.path.basename(path)}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


class Preprocessor:
    """Decode + augment a batch of encoded images on one device. One per Ray actor (its
    constructor runs once in the actor), or one in a plain process."""

    def __init__(self, seed=0, device="cpu"):
        self.seed = seed
        self.device = device
        self.augment = T.Compose([T.RandomResizedCrop(SIZE, antialias=True), T.RandomHorizontalFlip()])
        self.to_input = T.Compose([T.ToDtype(torch.float32, scale=True), T.Normalize(MEAN, STD)])

    def __call__(self, batch):
        """`batch`: Ray's numpy batch of read_binary_files(include_paths=True), columns `bytes`
        (encoded files) and `path`. Returns columns `path` and `image`."""
        data = [torch.frombuffer(bytearray(b), dtype=torch.uint8) for b in batch["bytes"]]
        images = svio.decode_jpeg(data, mode=svio.ImageReadMode.RGB, device=self.device)
        out = []
        for path, image in zip(batch["path"], images):
            torch.manual_seed(image_seed(self.seed, path))  # the transforms draw from torch's generator
            out.append(self.augment(image))
        inputs = self.to_input(torch.stack(out))
        return {"path": np.asarray(batch["path"]), "image": inputs.cpu().numpy()}


def preprocess_files(paths, seed=0, device="cpu"):
    """The same pipeline in this process: {path: float32 [3, 224, 224]}."""
    encoded = [np.fromfile(p, dtype=np.uint8).tobytes() for p in paths]
    result = Preprocessor(seed, device)({"bytes": encoded, "path": list(paths)})
    return dict(zip(result["path"].tolist(), result["image"]))


def resolve_device(device):
    if device == "auto":
        return "cuda" if torch.cuda.is_available() and gpu_decoder_available() else "cpu"
    return device


def run(input_dir, output_dir, seed=0, device="auto", batch_size=32, actors=None):
    """Reads every JPEG under `input_dir` with Ray Data, preprocesses it in actors and writes
    Parquet files to `output_dir`. Needs ray.init() (or connects to / starts a local cluster)."""
    import ray

    device = resolve_device(device)
    if actors is None:
        resources = ray.cluster_resources()
        # CPU actors hold a CPU each for their lifetime: leave one to Ray Data's read and write tasks.
        actors = max(1, int(resources.get("GPU", 0))) if device == "cuda" else max(1, int(resources.get("CPU", 1)) - 1)
    ds = ray.data.read_binary_files(input_dir, include_paths=True, file_extensions=["jpg", "jpeg"])
    ds = ds.map_batches(
        Preprocessor,
        fn_constructor_kwargs={"seed": seed, "device": device},
        batch_size=batch_size,
        batch_format="numpy",
        concurrency=actors,
        num_gpus=1 if device == "cuda" else 0,  # a GPU per actor
        num_cpus=1,
    )
    ds.write_parquet(output_dir)
    return device


def make_sample(count, folder, seed=0):
    """Writes `count` JPEGs of varied sizes (crops of the bundled photo) to `folder`."""
    from PIL import Image

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    photo = Image.open(os.path.join(root, "assets", "sample.png")).convert("RGB")
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    for i in range(count):
        w, h = int(rng.integers(64, photo.width)), int(rng.integers(64, photo.height))
        x, y = int(rng.integers(0, photo.width - w + 1)), int(rng.integers(0, photo.height - h + 1))
        photo.crop((x, y, x + w, y + h)).save(os.path.join(folder, f"img{i:05d}.jpg"), quality=90)


def main(argv=None):
    parser = argparse.ArgumentParser(description="JPEG files -> model inputs with Ray Data and streamvision")
    parser.add_argument("input_dir")
    parser.add_argument("output_dir", nargs="?")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--make-sample", type=int, metavar="N", help="write N sample JPEGs to INPUT_DIR and stop")
    args = parser.parse_args(argv)
    if args.make_sample:
        make_sample(args.make_sample, args.input_dir, args.seed)
        return 0
    if not args.output_dir:
        parser.error("OUTPUT_DIR is required")
    import ray

    ray.init()
    device = run(args.input_dir, args.output_dir, args.seed, args.device, args.batch_size)
    print(f"wrote {args.output_dir} (decoded and augmented on {device})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
