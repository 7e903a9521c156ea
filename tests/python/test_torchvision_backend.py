"""streamvision.torchvision: torchvision's own functionals and transforms run streamvision's
kernels while enabled, give torchvision's results and types, fall back to torchvision's kernels
for what streamvision does not cover, and disable() restores torchvision exactly. (The whole of
torchvision's transforms-v2 test-suite runs with the backend in scripts/test and gpu-check.)"""

import pytest

from conftest import HAVE_CUDA, HAVE_TORCH, needs_torchvision

pytestmark = needs_torchvision

if HAVE_TORCH:
    import torch
    import torchvision.transforms.v2 as TT
    import torchvision.transforms.v2.functional as TF
    from torchvision import tv_tensors
    from torchvision.transforms.v2.functional import _utils

    import streamvision.torchvision as backend

DEVICES = ["cpu"] + (["cuda"] if HAVE_CUDA else [])


def snapshot():
    registry = {f: dict(r) for f, r in _utils._KERNEL_REGISTRY.items()}
    attrs = {n: getattr(TF, n) for n in dir(TF) if n.endswith("_image")}
    return registry, attrs


def test_enable_disable_restores_torchvision_exactly():
    before = snapshot()
    backend.enable(devices=("cpu", "cuda"))
    assert backend.is_enabled()
    routed = backend.kernels()
    assert (TF.resize, torch.Tensor) in routed and (TF.adjust_hue, tv_tensors.Image) in routed
    assert TF.resize_image is not before[1]["resize_image"]
    backend.disable()
    assert not backend.is_enabled() and backend.kernels() == {}
    assert snapshot() == before


def test_enabled_context_restores_previous_state():
    with backend.enabled(("cpu",)):
        assert backend.enabled_devices() == ("cpu",)
        with backend.enabled(("cpu", "cuda")):
            assert backend.enabled_devices() == ("cpu", "cuda")
        assert backend.enabled_devices() == ("cpu",)
    assert not backend.is_enabled()


def test_bad_device_type_raises():
    with pytest.raises(ValueError, match="device type"):
        backend.enable(devices=("tpu",))


@pytest.mark.parametrize("device", DEVICES)
def test_routed_calls_run_streamvision_and_match_torchvision(device, monkeypatch):
    import streamvision._C as C

    calls = []
    real = C.adjust_hue
    img = tv_tensors.Image(torch.randint(0, 256, (2, 3, 20, 24), dtype=torch.uint8, device=device))
    want = TF.adjust_hue(img, 0.1)
    with backend.enabled((device,)):
        monkeypatch.setattr(C, "adjust_hue", lambda *a, **k: calls.append(1) or real(*a, **k))
        backend.enable((device,))  # the routers look the kernel up when built
        got = TF.adjust_hue(img, 0.1)
    assert calls, "streamvision's kernel was not called"
    assert type(got) is tv_tensors.Image
    assert (got.int() - want.int()).abs().max() <= 1


@pytest.mark.parametrize("device", DEVICES)
def test_unsupported_inputs_fall_back_to_torchvision(device):
    mask = tv_tensors.Mask(torch.randint(0, 5, (1, 12, 14), dtype=torch.int64, device=device))
    boxes = tv_tensors.BoundingBoxes([[1, 2, 8, 9]], format="XYXY", canvas_size=(12, 14), device=device)
    want_mask, want_boxes = TF.resize(mask, [6, 7]), TF.horizontal_flip(boxes)
    with backend.enabled((device,)):
        got_mask, got_boxes = TF.resize(mask, [6, 7]), TF.horizontal_flip(boxes)
    assert type(got_mask) is tv_tensors.Mask and torch.equal(got_mask, want_mask)
    assert type(got_boxes) is tv_tensors.BoundingBoxes and torch.equal(got_boxes, want_boxes)


@pytest.mark.parametrize("device", DEVICES)
def test_pipeline_with_every_tv_tensor_kind(device):
    torch.manual_seed(0)
    img = tv_tensors.Image(torch.randint(0, 256, (3, 40, 50), dtype=torch.uint8, device=device))
    video = tv_tensors.Video(torch.randint(0, 256, (4, 3, 40, 50), dtype=torch.uint8, device=device))
    mask = tv_tensors.Mask(torch.randint(0, 3, (40, 50), dtype=torch.uint8, device=device))
    boxes = tv_tensors.BoundingBoxes([[5, 6, 30, 35]], format="XYXY", canvas_size=(40, 50), device=device)
    pipeline = TT.Compose([TT.RandomHorizontalFlip(1.0), TT.Resize((32, 36)), TT.CenterCrop(28),
                           TT.ColorJitter(0.3, 0.3, 0.3, 0.05)])
    torch.manual_seed(1)
    want = pipeline({"image": img, "video": video, "mask": mask, "boxes": boxes, "label": 3})
    with backend.enabled((device,)):
        torch.manual_seed(1)
        got = pipeline({"image": img, "video": video, "mask": mask, "boxes": boxes, "label": 3})
    for key in want:
        assert type(got[key]) is type(want[key]), key
        if key == "label":
            assert got[key] == 3
        elif key == "mask" or key == "boxes":
            assert torch.equal(got[key], want[key]), key
        else:
            assert (got[key].int() - want[key].int()).abs().max() <= 2, key


def test_torchscript_compiles_torchvisions_kernel():
    with backend.enabled(("cpu",)):
        scripted = torch.jit.script(TF.horizontal_flip_image)
        x = torch.rand(3, 4, 5)
        assert torch.equal(scripted(x), x.flip(-1))
