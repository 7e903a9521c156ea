"""Type conversions and the whitening transform (torchvision's ToImage, ToPureTensor,
LinearTransformation). None of them is an image kernel: they exist so that pipelines written for
torchvision (PIL or numpy in, ToImage first, ToPureTensor last) run unchanged. Each takes the
leaves torchvision's class takes, by the same rules, and needs torch (ToPureTensor only touches
tv_tensors, which exist only with torch)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

from ._transforms import (Transform, _is_pil, _is_pure_torch, _leaves, _map_selected, _require_torch, _selected,
                          _torch, _tv_tensors)

__all__ = ["LinearTransformation", "ToImage", "ToPureTensor"]


def _is_ndarray(x):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray)


class ToImage(Transform):
    """torch tensors (the first plain one, as torchvision picks), numpy arrays (HWC or HW) and PIL
    images to tv_tensors.Image (CHW, values unchanged). Without torchvision installed the result
    is a plain CHW torch tensor, which streamvision's transforms treat as the image."""

    def __init__(self) -> None:
        _require_torch("ToImage")

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        flags = _selected(_leaves(sample, []), lambda x: _is_pure_torch(x) or _is_ndarray(x) or _is_pil(x),
                          pure=_is_pure_torch)
        return _map_selected(sample, flags, lambda x: self.transform(x, {}))

    def transform(self, inpt, params):
        torch = _require_torch("ToImage")
        if _is_ndarray(inpt):
            import numpy as np

            tensor = torch.from_numpy(np.atleast_3d(inpt)).permute((2, 0, 1)).contiguous()
        elif _is_pil(inpt):
            import numpy as np

            width, height = inpt.size
            tensor = torch.as_tensor(np.array(inpt, copy=True)).view(height, width, len(inpt.getbands()))
            tensor = tensor.permute((2, 0, 1))
        elif isinstance(inpt, torch.Tensor):
            tensor = inpt
        else:
            raise TypeError(f"Input can either be a pure Tensor, a numpy array, or a PIL image, but got {type(inpt)} "
                            "instead.")
        try:
            from torchvision import tv_tensors
        except ImportError:
            if tensor.ndim < 2:
                raise ValueError(f"An image needs at least 2 dimensions, got {tensor.ndim}") from None
            return tensor.unsqueeze(0) if tensor.ndim == 2 else tensor
        return tv_tensors.Image(tensor)


class ToPureTensor(Transform):
    """Every tv_tensor of the sample to a plain torch.Tensor (same data, metadata dropped)."""

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        tv = _tv_tensors()
        if tv is None:  # no tv_tensor can exist before torchvision is imported
            return sample
        return _map_selected(sample, [isinstance(x, tv.TVTensor) for x in _leaves(sample, [])],
                             lambda x: self.transform(x, {}))

    def transform(self, inpt, params):
        return inpt.as_subclass(_torch().Tensor)


class LinearTransformation(Transform):
    """``(image flattened over C, H, W - mean_vector) @ transformation_matrix``, e.g. ZCA whitening. A torch matrix
    product (numpy images go through torch.from_numpy and come back as numpy).

    Args:
        transformation_matrix: ``[D, D]`` with ``D = C * H * W``.
        mean_vector: ``[D]``.
    """

    _passes_through_tv_tensors = True

    def __init__(self, transformation_matrix: torch.Tensor, mean_vector: torch.Tensor) -> None:
        _require_torch("LinearTransformation")
        m, v = transformation_matrix, mean_vector
        if m.size(0) != m.size(1):
            raise ValueError(f"transformation_matrix should be square. Got {tuple(m.size())} rectangular matrix.")
        if v.size(0) != m.size(0):
            raise ValueError(f"mean_vector should have the same length {v.size(0)} as any one of the dimensions of the "
                             f"transformation_matrix [{tuple(m.size())}]")
        if m.device != v.device:
            raise ValueError(f"Input tensors should be on the same device. Got {m.device} and {v.device}")
        if m.dtype != v.dtype:
            raise ValueError(f"Input tensors should have the same dtype. Got {m.dtype} and {v.dtype}")
        self.transformation_matrix, self.mean_vector = m, v

    def transform(self, inpt, params):
        torch = _require_torch("LinearTransformation")
        numpy_input = not isinstance(inpt, torch.Tensor)
        image = torch.from_numpy(inpt) if numpy_input else inpt
        shape = image.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != {self.transformation_matrix.shape[0]}")
        if image.device.type != self.mean_vector.device.type:
            raise ValueError("Input tensor should be on the same device as transformation matrix and mean vector. "
                             f"Got {image.device} vs {self.mean_vector.device}")
        flat = image.reshape(-1, n) - self.mean_vector
        out = torch.mm(flat, self.transformation_matrix.to(flat.dtype)).reshape(shape)
        return out.numpy() if numpy_input else out
