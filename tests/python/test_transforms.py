"""Transform classes: structure handling (numpy, runs everywhere) and, with torch, the same
random parameters and results as torchvision.transforms.v2 under the same torch seed."""

import numpy as np
import pytest

from conftest import HAVE_TORCH, needs_torchvision

import streamvision.transforms.v2 as T


def test_structures_and_passthrough():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (3, 8, 10), dtype=np.uint8)
    b = rng.integers(0, 256, (3, 8, 10), dtype=np.uint8)
    # torchvision's rule: the first plain tensor/array is the image, later ones (labels) pass through
    out = T.RandomHorizontalFlip(p=1.0)({"image": a, "other": b, "label": 3, "name": "x"})
    np.testing.assert_array_equal(out["image"], a[..., ::-1])
    assert out["other"] is b
    assert out["label"] == 3 and out["name"] == "x"
    x, y = T.RandomVerticalFlip(p=1.0)(a, b)
    np.testing.assert_array_equal(x, a[..., ::-1, :])
    assert y is b
    assert T.RandomVerticalFlip(p=0.0)(a) is a


def test_compose_and_validation():
    a = np.random.default_rng(1).random((3, 40, 50), dtype=np.float32)
    out = T.Compose([T.CenterCrop(20), T.Pad(2), T.Normalize([0.5] * 3, [0.25] * 3)])(a)
    assert out.shape == (3, 24, 24)
    with pytest.raises(ValueError):
        T.RandomHorizontalFlip(p=1.5)
    with pytest.raises(ValueError):
        T.GaussianBlur(4)
    with pytest.raises(ValueError):
        T.RandomCrop(64)(a)


@needs_torchvision
@pytest.mark.parametrize("name", ["flip", "crop", "resized_crop", "rotation", "affine", "perspective", "jitter",
                                  "blur", "erasing", "grayscale", "pipeline"])
def test_same_parameters_as_torchvision(name):
    import torch
    import torchvision.transforms.v2 as TT

    def both(make):
        return make(T), make(TT)

    cases = {
        "flip": lambda M: M.RandomHorizontalFlip(),
        "crop": lambda M: M.RandomCrop(24, padding=4, padding_mode="reflect"),
        "resized_crop": lambda M: M.RandomResizedCrop(20, antialias=True),
        "rotation": lambda M: M.RandomRotation(30),
        "affine": lambda M: M.RandomAffine(20, translate=(0.1, 0.2), scale=(0.8, 1.2), shear=(-5, 5, -3, 3)),
        "perspective": lambda M: M.RandomPerspective(p=1.0),
        "jitter": lambda M: M.ColorJitter(0.4, 0.4, 0.4, 0.1),
        "blur": lambda M: M.GaussianBlur(5),
        "erasing": lambda M: M.RandomErasing(p=1.0),
        "grayscale": lambda M: M.RandomGrayscale(p=0.5),
        "pipeline": lambda M: M.Compose([M.RandomResizedCrop(24), M.RandomHorizontalFlip(), M.ToDtype(torch.float32, scale=True),
                                         M.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.3])]),
    }
    ours, theirs = both(cases[name])
    x = torch.rand(2, 3, 40, 48, generator=torch.Generator().manual_seed(0))
    for seed in range(5):
        torch.manual_seed(seed)
        a = ours(x)
        torch.manual_seed(seed)
        b = theirs(x)
        assert a.shape == b.shape, f"seed {seed}"
        # perspective: torch's CPU grid is a float32 matmul, ours follows its CUDA grid (an ulp
        # of a coordinate apart), see test_torchvision_geometry.test_perspective
        tol = 3e-5 if name == "perspective" else 1e-5
        assert (a - b).abs().max() <= tol, f"seed {seed}: {(a - b).abs().max()}"


@needs_torchvision
def test_tv_tensors_never_silently_wrong():
    """Images and videos keep their tv_tensor type and match torchvision; labels pass through;
    boxes and masks move with geometric transforms as torchvision moves them and pass through
    photometric ones; tv_tensor types we do not know, and PIL images, raise.
    (Every op and kind against torchvision: test_tv_tensors.py.)"""
    import PIL.Image
    import torch
    import torchvision.transforms.v2 as TT
    from torchvision import tv_tensors

    img = tv_tensors.Image(torch.randint(0, 256, (3, 48, 64), dtype=torch.uint8))
    video = tv_tensors.Video(torch.randint(0, 256, (2, 3, 48, 64), dtype=torch.uint8))
    boxes = tv_tensors.BoundingBoxes([[10, 20, 30, 40]], format="XYXY", canvas_size=(48, 64))
    mask = tv_tensors.Mask(torch.zeros(48, 64, dtype=torch.uint8))
    label = torch.tensor(3)

    out = T.RandomHorizontalFlip(1.0)({"image": img, "video": video, "label": label, "plain": img.as_subclass(torch.Tensor)})
    want = TT.RandomHorizontalFlip(1.0)({"image": img, "video": video, "label": label, "plain": img.as_subclass(torch.Tensor)})
    for key in ("image", "video"):
        assert type(out[key]) is type(want[key]) and torch.equal(out[key], want[key]), key
    assert out["label"] is label and out["plain"] is not None and torch.equal(out["plain"], want["plain"])

    plain, lab = T.RandomVerticalFlip(1.0)(img.as_subclass(torch.Tensor), label)
    assert torch.equal(plain, img.flip(-2)) and lab is label

    for make in [lambda M: M.RandomHorizontalFlip(1.0), lambda M: M.Resize(20), lambda M: M.RandomResizedCrop(16),
                 lambda M: M.RandomRotation(10), lambda M: M.Pad(2)]:
        torch.manual_seed(0)
        o_img, o_boxes, o_mask = make(T)((img, boxes, mask))
        torch.manual_seed(0)
        w_img, w_boxes, w_mask = make(TT)((img, boxes, mask))
        assert type(o_boxes) is tv_tensors.BoundingBoxes and o_boxes.canvas_size == w_boxes.canvas_size
        assert torch.allclose(o_boxes, w_boxes) and type(o_mask) is tv_tensors.Mask and torch.equal(o_mask, w_mask)
    photometric = [(T.ColorJitter(0.5, 0.5, 0.5), TT.ColorJitter(0.5, 0.5, 0.5)),
                   (T.RandomInvert(1.0), TT.RandomInvert(1.0)),
                   (T.ToDtype(torch.float32, scale=True), TT.ToDtype(torch.float32, scale=True))]
    for ours, theirs in photometric:
        torch.manual_seed(0)
        o_img, o_boxes, o_mask = ours((img, boxes, mask))
        torch.manual_seed(0)
        w_img, w_boxes, w_mask = theirs((img, boxes, mask))
        assert type(o_img) is tv_tensors.Image and (o_img.double() - w_img.double()).abs().max() <= 1
        assert o_boxes is boxes and torch.equal(w_boxes, boxes) and o_mask is mask and torch.equal(w_mask, mask)

    class Heatmap(tv_tensors.TVTensor):  # a tv_tensor type of the user's: a geometric op cannot know how it moves
        pass

    with pytest.raises(TypeError, match="Heatmap is a tv_tensor type streamvision's transforms do not know"):
        T.RandomHorizontalFlip(1.0)((img, torch.zeros(48, 64).as_subclass(Heatmap)))
    with pytest.raises(TypeError, match="PIL images are not supported"):
        T.RandomHorizontalFlip(1.0)(PIL.Image.new("RGB", (8, 8)))
