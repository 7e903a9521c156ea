"""PyTorch as an optional dependency, decided once, when streamvision is imported.

streamvision works without torch (numpy arrays, streamvision.Tensor, any DLPack exporter). When
torch is installed, the transform classes are torch.nn.Modules and the functionals are registered
as torch.library custom ops for torch.compile; both need torch at class-definition and
registration time, so the choice cannot wait for the first torch tensor. ``torch`` here is the
module, or None when it is not installed. A torch that is installed but fails to import raises,
rather than silently turning streamvision into its torch-less variant.
"""


def _import_torch():
    try:
        import torch
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        return None
    return torch


torch = _import_torch()
