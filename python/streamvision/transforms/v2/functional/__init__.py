"""Functional ops with torchvision.transforms.v2.functional's names, parameters and defaults,
plus a keyword-only ``stream=``. Each accepts torch tensors (returning torch tensors on the
same stream semantics as torch ops), numpy arrays, streamvision.Tensor and any DLPack / CUDA
Array Interface / buffer exporter."""

from streamvision._C import (
    horizontal_flip,
    normalize,
    to_channels_last,
    to_contiguous,
    to_dtype,
    vertical_flip,
)

__all__ = [
    "horizontal_flip",
    "normalize",
    "to_channels_last",
    "to_contiguous",
    "to_dtype",
    "vertical_flip",
]
