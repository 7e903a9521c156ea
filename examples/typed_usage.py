"""A small, fully typed use of streamvision: functionals, transform classes and streams.

scripts/test checks it with ``mypy --strict examples/typed_usage.py`` (with the package installed)
and runs it; it works on the CPU and, where there is one, on the GPU.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import numpy.typing as npt
import torch

import streamvision as sv
import streamvision.transforms.v2 as T
import streamvision.transforms.v2.functional as F

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def preprocess(batch: torch.Tensor, stream: Optional[sv.Stream] = None) -> torch.Tensor:
    """uint8 [N, 3, H, W] -> the normalized float32 [N, 3, 224, 224] model input."""
    x = F.resize(batch, [256], antialias=True, stream=stream)
    x = F.center_crop(x, [224, 224], stream=stream)
    x = F.to_dtype(x, torch.float32, scale=True, stream=stream)
    return F.normalize(x, MEAN, STD, stream=stream)


def augment() -> T.Compose:
    return T.Compose([
        T.RandomResizedCrop(224, antialias=True),
        T.RandomHorizontalFlip(p=0.5),
        T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1),
        T.ToDtype(torch.float32, scale=True),
        T.Normalize(MEAN, STD),
    ])


def flip_numpy(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    return F.horizontal_flip(image)  # numpy in, numpy out


def main() -> None:
    device = "cuda" if torch.cuda.is_available() and sv.cuda_is_available() else "cpu"
    batch = torch.randint(0, 256, (2, 3, 300, 400), dtype=torch.uint8, device=device)
    if device == "cuda":
        with sv.Stream() as stream:  # every op below runs on this stream
            out = preprocess(batch)
        stream.synchronize()
        done = sv.Event()
        done.record(stream)
        done.synchronize()
    else:
        out = preprocess(batch)
    assert out.shape == (2, 3, 224, 224) and out.dtype == torch.float32

    sample: torch.Tensor = augment()(batch[0])
    assert sample.shape == (3, 224, 224)

    channels, height, width = F.get_dimensions(batch)
    flipped = flip_numpy(np.zeros((channels, height, width), dtype=np.uint8))
    assert flipped.shape == (3, 300, 400)
    print("typed_usage: ok on", device)


if __name__ == "__main__":
    main()
