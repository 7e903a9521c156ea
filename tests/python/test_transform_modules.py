"""The transform classes are torch.nn.Modules when torch is installed (as torchvision's are), and
plain objects with the same calling convention and repr when it is not."""

import subprocess
import sys
import textwrap

import pytest

from conftest import HAVE_TORCH, needs_torch, needs_torchvision

import streamvision.transforms.v2 as T


def all_transforms():
    """One instance of every transform class, with the classes' own constructor arguments."""
    return [
        T.Compose([T.CenterCrop(8)]), T.RandomApply([T.RandomInvert()], p=0.3), T.RandomChoice([T.RandomInvert(), T.Pad(1)]),
        T.RandomOrder([T.RandomInvert(), T.RandomEqualize()]), T.RandomHorizontalFlip(), T.RandomVerticalFlip(), T.Resize(20),
        T.CenterCrop(8), T.RandomCrop(8), T.RandomResizedCrop(8), T.FiveCrop(4), T.TenCrop(4), T.Pad(2), T.RandomRotation(10),
        T.RandomAffine(10), T.RandomPerspective(), T.ElasticTransform(), T.ColorJitter(0.2), T.Grayscale(), T.RandomGrayscale(),
        T.GaussianBlur(3), T.GaussianNoise(), T.RandomInvert(), T.RandomPosterize(4), T.RandomSolarize(128),
        T.RandomAutocontrast(), T.RandomEqualize(), T.RandomAdjustSharpness(2), T.RandomErasing(), T.ToDtype("float32"),
        T.Normalize([0.5], [0.5]),
    ]


def test_every_transform_class_is_covered():
    classes = {type(t).__name__ for t in all_transforms()} | {"Transform", "Lambda"}
    assert classes == set(T._transforms.__all__)


@needs_torch
def test_transforms_are_modules_without_parameters():
    import torch

    for t in all_transforms() + [T.Lambda(lambda x: x)]:
        assert isinstance(t, torch.nn.Module), type(t).__name__
        assert list(t.parameters()) == [] and list(t.buffers()) == [] and t.state_dict() == {}, type(t).__name__
        assert t.to("cpu") is t and t.to(torch.float64) is t
        assert t.eval() is t and t.training is False


@needs_torch
def test_forward_is_call_and_hooks_run():
    import torch

    x = torch.arange(2 * 4 * 4, dtype=torch.float32).reshape(2, 4, 4)
    flip = T.RandomHorizontalFlip(p=1.0)
    seen = []
    flip.register_forward_hook(lambda module, args, out: seen.append(out))
    out = flip(x)
    assert torch.equal(out, x.flip(-1)) and len(seen) == 1 and seen[0] is out
    assert torch.equal(flip.forward(x), out)
    seq = torch.nn.Sequential(T.CenterCrop(2), T.RandomVerticalFlip(p=1.0))
    assert torch.equal(seq(x), x[:, 1:3, 1:3].flip(-2))


@needs_torch
def test_subclass_contract_unchanged():
    """A transform written as before (make_params, transform(inpt, params), no super().__init__())
    is a working Module."""
    import torch

    class AddDrawn(T.Transform):
        _passes_through_tv_tensors = True

        def __init__(self, scale):
            self.scale = scale

        def make_params(self, images):
            return {"value": float(torch.rand(1)) * self.scale}

        def transform(self, inpt, params):
            return inpt + params["value"]

    t = AddDrawn(2.0)
    x = torch.zeros(3, 2, 2)
    torch.manual_seed(0)
    out, label = t(x, 7)
    torch.manual_seed(0)
    assert torch.equal(out, x + float(torch.rand(1)) * 2.0) and label == 7
    assert repr(t) == "AddDrawn(scale=2.0)"


@needs_torchvision
def test_repr_is_torchvisions():
    import torch
    import torchvision
    import torchvision.transforms.v2 as TT

    if not torchvision.__version__.startswith("0.26"):
        pytest.skip("the reprs are torchvision 0.26's (later releases changed some)")

    def build(M):
        return M.Compose([M.Resize(20), M.RandomHorizontalFlip(), M.RandomApply([M.RandomInvert()], p=0.3),
                          M.Normalize([0.5, 0.4], [0.2, 0.3]), M.ToDtype(torch.float32, scale=True),
                          M.RandomChoice([M.RandomInvert(), M.RandomEqualize()])])

    assert repr(build(T)) == repr(build(TT))


def test_repr_without_children():
    assert repr(T.RandomHorizontalFlip(p=0.25)) == "RandomHorizontalFlip(p=0.25)"
    assert repr(T.Compose([T.CenterCrop(8), T.Pad(1)])) == "Compose(\n      CenterCrop(size=[8, 8])\n      Pad(padding=1, fill=0, padding_mode=constant)\n)"


NO_TORCH = textwrap.dedent("""
    import importlib.abc, pickle, sys

    class NoTorch(importlib.abc.MetaPathFinder):
        # torch is "not installed": its import fails as for a missing package
        def find_spec(self, name, path, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, NoTorch())
    import numpy as np
    import streamvision
    import streamvision.transforms.v2 as T
    import streamvision.transforms.v2.functional as F
    assert "torch" not in sys.modules

    from streamvision.transforms.v2.functional import _kernels
    assert _kernels.horizontal_flip is streamvision._C.horizontal_flip  # no wrapper without torch
    assert [c.__name__ for c in T.Transform.__mro__] == ["Transform", "_PlainModule", "object"]
    x = np.arange(3 * 6 * 8, dtype=np.float32).reshape(3, 6, 8) / 144
    compose = T.Compose([T.RandomHorizontalFlip(p=1.0), T.CenterCrop(4), T.Normalize([0.5] * 3, [0.25] * 3)])
    want = (x[:, 1:5, 2:6][..., ::-1] - 0.5) / 0.25
    np.testing.assert_allclose(compose(x), want, rtol=1e-6)
    np.testing.assert_allclose(compose.forward(x), want, rtol=1e-6)
    np.testing.assert_allclose(pickle.loads(pickle.dumps(compose))(x), want, rtol=1e-6)
    out, label = T.RandomVerticalFlip(p=1.0)(x, 3)
    assert label == 3 and np.array_equal(out, x[:, ::-1])
    T.RandomResizedCrop(4)(x)  # random parameters from Python's random
    print(repr(compose))
    print(repr(T.RandomHorizontalFlip(p=0.5)))
""")


def test_without_torch():
    out = subprocess.run([sys.executable, "-c", NO_TORCH], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == [
        "Compose(",
        "      RandomHorizontalFlip(p=1.0)",
        "      CenterCrop(size=[4, 4])",
        "      Normalize(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25], inplace=False)",
        ")",
        "RandomHorizontalFlip(p=0.5)",
    ]


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed")
def test_same_repr_with_and_without_torch():
    compose = T.Compose([T.RandomHorizontalFlip(p=1.0), T.CenterCrop(4), T.Normalize([0.5] * 3, [0.25] * 3)])
    out = subprocess.run([sys.executable, "-c", NO_TORCH], capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines()[:5] == repr(compose).splitlines()
