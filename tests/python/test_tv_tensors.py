"""tv_tensors through streamvision.transforms.v2 against torchvision 0.26 (issue 11).

Functionals: every geometric op on every tv_tensor kind, random inputs of several shapes, dtypes,
box formats and clamping modes, equal to torchvision's functional on the same input: boxes and
keypoints allclose with tight tolerances (they agree bit for bit on the CPU today), masks exact
(the warps as the image conformance tests compare nearest warps: an ulp of a grid coordinate may
pick the other neighbour at a rare pixel), images and videos by the conformance rules; types and
metadata (format, canvas_size, clamping_mode) kept as torchvision keeps them. The box/keypoint
functionals (convert, clamp, sanitize) likewise. Transform classes: the same sample (Image,
BoundingBoxes, Mask, KeyPoints, labels) through ours and torchvision's under the same
torch.manual_seed gives the same result. Bad inputs raise what torchvision raises, with our
message. CUDA variants skip without a GPU.
"""

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")

import torchvision.transforms.v2 as TT  # noqa: E402
import torchvision.transforms.v2.functional as TF  # noqa: E402
from torchvision import tv_tensors  # noqa: E402

import streamvision.transforms.v2 as T  # noqa: E402
import streamvision.transforms.v2.functional as F  # noqa: E402
from conftest import needs_caching_allocator, needs_cuda  # noqa: E402
from conformance import compare  # noqa: E402

H, W = 30, 44
FORMATS = ["XYXY", "XYWH", "CXCYWH", "XYWHR", "CXCYWHR", "XYXYXYXY"]
ROTATED = {"XYWHR", "CXCYWHR", "XYXYXYXY"}


@pytest.fixture(autouse=True, scope="module")
def _one_cpu_thread():
    """Box and keypoint tensors are tiny: on a loaded 2-core machine each of torch's OpenMP
    parallel regions waits milliseconds for its second thread (both libraries alike)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# ---- inputs --------------------------------------------------------------------------------------
def make_boxes(fmt, n, dtype, mode="soft", seed=0, inside=False, canvas=(H, W), device="cpu"):
    """n random boxes in `fmt`: some reach outside the canvas unless `inside` (then every corner,
    and a rotated box's centre, lies within [0, W-1] x [0, H-1])."""
    g = torch.Generator().manual_seed(seed)
    h, w = canvas
    if fmt in ROTATED:
        lo, hi = (0.25, 0.75) if inside else (-0.1, 1.1)
        c = torch.rand(n, 2, generator=g, dtype=torch.float64) * (hi - lo) + lo
        cx, cy = c[:, 0] * (w - 1), c[:, 1] * (h - 1)
        size = torch.rand(n, 2, generator=g, dtype=torch.float64) * 0.5 + 0.05
        r = torch.rand(n, generator=g, dtype=torch.float64) * 360 - 180
        b = torch.stack([cx, cy, size[:, 0] * w, size[:, 1] * h, r], -1)
        b = TF.convert_bounding_box_format(b, old_format="CXCYWHR", new_format=fmt)
    else:
        p = torch.rand(n, 4, generator=g, dtype=torch.float64)
        if not inside:
            p = p * 1.3 - 0.15
        x = p[:, 0::2].sort(dim=1).values * (w - 1)
        y = p[:, 1::2].sort(dim=1).values * (h - 1)
        b = torch.stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1]], -1)
        if not dtype.is_floating_point:
            b = b.floor() if inside else b.round()
        b = TF.convert_bounding_box_format(b, old_format="XYXY", new_format=fmt)
    return tv_tensors.BoundingBoxes(b.to(dtype), format=fmt, canvas_size=canvas, clamping_mode=mode, device=device)


def make_keypoints(shape, dtype, seed=0, canvas=(H, W), device="cpu"):
    g = torch.Generator().manual_seed(seed)
    k = torch.rand(shape, generator=g, dtype=torch.float64) * torch.tensor([canvas[1] - 1, canvas[0] - 1])
    return tv_tensors.KeyPoints(k.to(dtype), canvas_size=canvas, device=device)


def make_mask(shape, dtype, seed=0, device="cpu"):
    g = torch.Generator().manual_seed(seed)
    m = torch.randint(0, 2 if dtype == torch.bool else 7, shape, generator=g)
    return tv_tensors.Mask(m.to(dtype), device=device)


def make_image(shape, dtype, seed=0, cls=tv_tensors.Image, device="cpu"):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(shape, generator=g)
    x = (x * 256).floor().clamp(max=255).to(dtype) if dtype == torch.uint8 else x.to(dtype)
    return cls(x, device=device)


def _displacement(canvas, seed=3):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(1, canvas[0], canvas[1], 2, generator=g) - 0.5) * 0.2


# ---- functional cases: id -> f(functional module, input) ------------------------------------------
START = [[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]]
END = [[3, 2], [W - 4, 1], [W - 2, H - 3], [1, H - 5]]
OPS = {
    "horizontal_flip": lambda M, x: M.horizontal_flip(x),
    "vertical_flip": lambda M, x: M.vertical_flip(x),
    "resize_short": lambda M, x: M.resize(x, [21]),
    "resize_hw": lambda M, x: M.resize(x, [17, 53], interpolation=M.InterpolationMode.BILINEAR),
    "resize_max_size": lambda M, x: M.resize(x, [40], max_size=50),
    "resize_none": lambda M, x: M.resize(x, None, max_size=35),
    "resize_same": lambda M, x: M.resize(x, [H, W]),
    "crop": lambda M, x: M.crop(x, 3, 5, 20, 25),
    "crop_outside": lambda M, x: M.crop(x, -4, 30, 40, 20),
    "center_crop": lambda M, x: M.center_crop(x, [19, 27]),
    "center_crop_larger": lambda M, x: M.center_crop(x, [35, 51]),
    "resized_crop": lambda M, x: M.resized_crop(x, 2, 7, 21, 30, [26, 19]),
    "pad_int": lambda M, x: M.pad(x, 3),
    "pad_2": lambda M, x: M.pad(x, [2, 5], fill=1),
    "pad_4": lambda M, x: M.pad(x, [1, 2, 3, 4]),
    "rotate": lambda M, x: M.rotate(x, 27.0),
    "rotate_90": lambda M, x: M.rotate(x, 90.0),
    "rotate_expand": lambda M, x: M.rotate(x, -33.5, expand=True, fill=2),
    "rotate_expand_90": lambda M, x: M.rotate(x, 270.0, expand=True),
    "rotate_center": lambda M, x: M.rotate(x, 61.0, center=[10.0, 7.0], expand=True),
    "affine": lambda M, x: M.affine(x, 15.0, [4, -3], 1.15, [6.0, -4.0]),
    "affine_center": lambda M, x: M.affine(x, -40.0, [0, 2], 0.8, 10.0, center=[30, 5], fill=3),
    "perspective": lambda M, x: M.perspective(x, START, END),
    "perspective_coefficients": lambda M, x: M.perspective(
        x, None, None, coefficients=[1.05, 0.02, -2.0, 0.01, 0.97, 1.5, 0.0005, -0.0003]),
    "elastic": lambda M, x: M.elastic(x, _displacement(M.get_size(x))),
}
WARPS = {"rotate", "rotate_90", "rotate_expand", "rotate_expand_90", "rotate_center", "affine", "affine_center",
         "perspective", "perspective_coefficients", "elastic"}


def _both(op, x):
    """(ours, torchvision's) for OPS[op] on x; an exception instead of a result where one raises."""
    out = []
    for M in (F, TF):
        try:
            out.append(OPS[op](M, x))
        except Exception as e:  # noqa: BLE001 - compared below
            out.append(e)
    return out


def assert_same_metadata(ours, theirs):
    assert type(ours) is type(theirs), (type(ours), type(theirs))
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, (ours.shape, theirs.shape, ours.dtype,
                                                                        theirs.dtype)
    assert ours.device == theirs.device
    if isinstance(theirs, tv_tensors.BoundingBoxes):
        assert ours.format == theirs.format and ours.clamping_mode == theirs.clamping_mode
    if isinstance(theirs, (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints)):
        assert tuple(ours.canvas_size) == tuple(theirs.canvas_size), (ours.canvas_size, theirs.canvas_size)


def assert_points_close(ours, theirs):
    """Boxes and keypoints: metadata equal, coordinates within float rounding (they are equal bit
    for bit on the CPU today; the tolerance is for other BLAS/devices)."""
    assert_same_metadata(ours, theirs)
    a, b = ours.as_subclass(torch.Tensor).cpu(), theirs.as_subclass(torch.Tensor).cpu()
    if a.is_floating_point():
        tol = dict(rtol=1e-9, atol=1e-9) if a.dtype == torch.float64 else dict(rtol=1e-5, atol=1e-4)
        torch.testing.assert_close(a, b, equal_nan=True, **tol)
    else:
        assert (a - b).abs().max() <= 1 if a.numel() else True  # an ulp before truncation


def assert_mask_equal(ours, theirs, warp):
    assert_same_metadata(ours, theirs)
    a, b = ours.as_subclass(torch.Tensor).cpu(), theirs.as_subclass(torch.Tensor).cpu()
    differ = (a != b).sum().item()
    if warp:  # nearest warps: compare as the image conformance tests do (at most 1 % of values)
        assert differ <= 0.01 * a.numel(), f"{differ} of {a.numel()} mask values differ"
    else:
        assert differ == 0, f"{differ} of {a.numel()} mask values differ"


def _check_same_outcome(ours, theirs):
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), f"torchvision raised {theirs!r}, we returned/raised {ours!r}"
        return False
    assert not isinstance(ours, Exception), f"we raised {ours!r}, torchvision did not"
    return True


# ---- functionals: boxes -------------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("op", list(OPS))
def test_boxes_match_torchvision(op, fmt):
    dtypes = [torch.float32, torch.float64] + ([] if fmt in ROTATED else [torch.int64])
    for dtype in dtypes:
        for mode in ("soft", "hard", None):
            for n, seed in ((7, 1), (1, 2), (0, 3)):
                boxes = make_boxes(fmt, n, dtype, mode, seed, inside=op == "elastic")
                ours, theirs = _both(op, boxes)
                if _check_same_outcome(ours, theirs):
                    assert_points_close(ours, theirs)


def test_elastic_boxes_on_the_far_edge():
    """torchvision 0.26 indexes one past its displacement grid for a corner on the right or bottom
    edge (IndexError); ours looks such a corner up at the last pixel, i.e. as a corner one pixel in."""
    edge = tv_tensors.BoundingBoxes([[3.0, 4.0, W, H], [0.0, 0.0, 10.0, 12.0]], format="XYXY", canvas_size=(H, W))
    inner = tv_tensors.BoundingBoxes([[3.0, 4.0, W - 1, H - 1], [0.0, 0.0, 10.0, 12.0]], format="XYXY",
                                     canvas_size=(H, W))
    d = _displacement((H, W))
    try:
        want = TF.elastic(edge, d)  # torchvision 0.29 looks the corner up at the last pixel too
    except IndexError:  # torchvision 0.26
        want = TF.elastic(inner, d)
    assert_points_close(F.elastic(edge, d), want)


# ---- functionals: keypoints, masks, images, videos -------------------------------------------------------
@pytest.mark.parametrize("op", list(OPS))
def test_keypoints_match_torchvision(op):
    for dtype in (torch.float32, torch.float64, torch.int64):
        for shape in ((9, 2), (3, 4, 2), (0, 2)):
            ours, theirs = _both(op, make_keypoints(shape, dtype, seed=len(shape)))
            if _check_same_outcome(ours, theirs):
                assert_points_close(ours, theirs)


@pytest.mark.parametrize("op", list(OPS))
def test_masks_match_torchvision(op):
    """Every mask dtype (the sampling kernels lack int and bool: those go through float32 as in
    torchvision), [H, W], [N, H, W] and batched masks; NEAREST whatever was asked for."""
    for dtype in (torch.uint8, torch.bool, torch.int64, torch.int32, torch.float32):
        for shape in ((H, W), (3, H, W), (2, 1, H, W)):
            ours, theirs = _both(op, make_mask(shape, dtype, seed=len(shape)))
            if _check_same_outcome(ours, theirs):
                assert_mask_equal(ours, theirs, op in WARPS)


@pytest.mark.parametrize("op", list(OPS))
def test_images_and_videos_match_torchvision(op):
    """Images, videos ([T, C, H, W] and batched) and plain tensors through the image kernels."""
    cases = [(tv_tensors.Image, (3, H, W)), (tv_tensors.Image, (2, 1, H, W)), (tv_tensors.Video, (4, 3, H, W)),
             (tv_tensors.Video, (2, 2, 3, H, W)), (torch.Tensor, (3, H, W))]
    for dtype in (torch.uint8, torch.float32):
        for cls, shape in cases:
            x = make_image(shape, dtype, seed=len(shape), cls=tv_tensors.Image)
            x = x.as_subclass(torch.Tensor) if cls is torch.Tensor else cls(x)
            ours, theirs = _both(op, x)
            if _check_same_outcome(ours, theirs):
                assert type(ours) is type(theirs)
                compare(op, ours.as_subclass(torch.Tensor), theirs.as_subclass(torch.Tensor), "close:3e-5",
                        f"{op} {cls.__name__} {dtype} {shape}", "cpu")


@pytest.mark.parametrize("op", ["five_crop", "ten_crop"])
def test_five_and_ten_crop(op):
    """Images and videos: tuples of crops of their type; masks, boxes and keypoints raise TypeError
    in torchvision's functional and ours."""
    for x in (make_image((3, H, W), torch.uint8), make_image((2, 3, H, W), torch.float32, cls=tv_tensors.Video)):
        ours, theirs = getattr(F, op)(x, [11, 17]), getattr(TF, op)(x, [11, 17])
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert type(a) is type(b) and torch.equal(a, b)
    for x in (make_mask((H, W), torch.uint8), make_boxes("XYXY", 3, torch.float32), make_keypoints((4, 2), torch.float32)):
        with pytest.raises(TypeError):
            getattr(TF, op)(x, [11, 17])
        with pytest.raises(TypeError, match=f"{op}: argument 'inpt'"):
            getattr(F, op)(x, [11, 17])


# ---- box and keypoint functionals ---------------------------------------------------------------------------
@pytest.mark.parametrize("old", FORMATS)
def test_convert_bounding_box_format(old):
    for new in [f for f in FORMATS if (f in ROTATED) == (old in ROTATED)]:
        for dtype in [torch.float32, torch.float64] + ([] if old in ROTATED else [torch.int64, torch.int32]):
            boxes = make_boxes(old, 6, dtype, seed=4)
            assert_points_close(F.convert_bounding_box_format(boxes, new_format=new),
                                TF.convert_bounding_box_format(boxes, new_format=new))
            plain = boxes.as_subclass(torch.Tensor)
            ours = F.convert_bounding_box_format(plain, old_format=old, new_format=tv_tensors.BoundingBoxFormat[new])
            assert type(ours) is torch.Tensor
            assert_points_close(ours, TF.convert_bounding_box_format(plain, old_format=old, new_format=new))
            mine, theirs = plain.clone(), plain.clone()
            a = F.convert_bounding_box_format(mine, old_format=old, new_format=new, inplace=True)
            b = TF.convert_bounding_box_format(theirs, old_format=old, new_format=new, inplace=True)
            assert_points_close(a, b)
            if a.shape == plain.shape:  # inplace writes the input where the widths agree
                assert a.data_ptr() == mine.data_ptr() and torch.equal(mine, a)
            else:  # torchvision leaves an intermediate format in its input there; we leave the input alone
                assert torch.equal(mine, plain)


@pytest.mark.parametrize("fmt", FORMATS)
def test_clamp_bounding_boxes(fmt):
    for dtype in [torch.float32, torch.float64] + ([] if fmt in ROTATED else [torch.int64]):
        for own_mode in ("soft", "hard", None):
            boxes = make_boxes(fmt, 9, dtype, own_mode, seed=5)
            for mode in ("auto", "soft", "hard", None):
                assert_points_close(F.clamp_bounding_boxes(boxes, clamping_mode=mode),
                                    TF.clamp_bounding_boxes(boxes, clamping_mode=mode))
                if mode != "auto":
                    plain = boxes.as_subclass(torch.Tensor)
                    assert_points_close(F.clamp_bounding_boxes(plain, fmt, (H, W), mode),
                                        TF.clamp_bounding_boxes(plain, fmt, (H, W), mode))


def test_clamp_keypoints_and_get_size():
    for dtype in (torch.float32, torch.int64):
        k = make_keypoints((5, 3, 2), dtype) * 2 - 10
        k = tv_tensors.wrap(k, like=make_keypoints((1, 2), dtype))
        assert_points_close(F.clamp_keypoints(k), TF.clamp_keypoints(k))
        plain = k.as_subclass(torch.Tensor)
        assert_points_close(F.clamp_keypoints(plain, (H, W)), TF.clamp_keypoints(plain, canvas_size=(H, W)))
    for x in (make_boxes("XYWHR", 2, torch.float32), make_keypoints((3, 2), torch.float32), make_mask((H, W), torch.bool),
              make_mask((2, 5, H, W), torch.uint8), make_image((3, H, W), torch.uint8)):
        assert F.get_size(x) == TF.get_size(x) == [H, W]


@pytest.mark.parametrize("fmt", FORMATS)
def test_sanitize_bounding_boxes(fmt):
    for dtype in [torch.float32, torch.float64] + ([] if fmt in ROTATED else [torch.int64]):
        boxes = make_boxes(fmt, 12, dtype, None, seed=6)
        for min_size, min_area in ((1.0, 1.0), (4.0, 30.0)):
            ours, valid = F.sanitize_bounding_boxes(boxes, min_size=min_size, min_area=min_area)
            theirs, their_valid = TF.sanitize_bounding_boxes(boxes, min_size=min_size, min_area=min_area)
            assert torch.equal(valid, their_valid) and 0 < valid.sum() < len(valid) or min_size > 1
            assert_points_close(ours, theirs)
            plain = boxes.as_subclass(torch.Tensor)
            ours, valid = F.sanitize_bounding_boxes(plain, fmt, (H, W), min_size, min_area)
            theirs, their_valid = TF.sanitize_bounding_boxes(plain, fmt, (H, W), min_size, min_area)
            assert torch.equal(valid, their_valid) and type(ours) is torch.Tensor
            assert_points_close(ours, theirs)


def test_bad_inputs_raise_clear_errors():
    boxes = make_boxes("XYXY", 3, torch.float32)
    rotated = make_boxes("CXCYWHR", 3, torch.float32)
    plain = boxes.as_subclass(torch.Tensor)
    kp, mask = make_keypoints((4, 2), torch.float32), make_mask((H, W), torch.uint8)
    cases = [  # (call on a functional module, exception type, text of our message)
        (lambda M: M.convert_bounding_box_format(plain, new_format="XYWH"), ValueError, "old_format"),
        (lambda M: M.convert_bounding_box_format(boxes, old_format="XYXY", new_format="XYWH"), ValueError, "old_format"),
        (lambda M: M.convert_bounding_box_format(boxes, new_format="CXCYWHR"), ValueError, "Cannot convert between"),
        (lambda M: M.convert_bounding_box_format(mask, new_format="XYWH"), TypeError, "expected a torch.Tensor or"),
        (lambda M: M.clamp_bounding_boxes(plain), ValueError, "have to be passed"),
        (lambda M: M.clamp_bounding_boxes(boxes, format="XYXY"), ValueError, "must not be passed"),
        (lambda M: M.clamp_bounding_boxes(boxes, clamping_mode="loose"), ValueError, "clamping_mode"),
        (lambda M: M.clamp_bounding_boxes(kp), TypeError, "expected a torch.Tensor or"),
        (lambda M: M.clamp_keypoints(kp, canvas_size=(H, W)), ValueError, "must not be passed"),
        (lambda M: M.clamp_keypoints(kp.as_subclass(torch.Tensor)), ValueError, "canvas_size"),
        (lambda M: M.sanitize_bounding_boxes(plain), ValueError, "format and canvas_size cannot be None"),
        (lambda M: M.sanitize_bounding_boxes(boxes, format="XYXY"), ValueError, "must be None"),
        (lambda M: M.pad(boxes, 2, padding_mode="reflect"), ValueError, "not supported with bounding boxes"),
        (lambda M: M.pad(kp, 2, padding_mode="edge"), ValueError, "not supported with KeyPoints"),
        (lambda M: M.pad(boxes, [1, 2, 3]), ValueError, "1, 2, or 4 element"),
        (lambda M: M.pad(mask, 2, fill=[1, 2]), ValueError, "Non-scalar fill value is not supported"),
        (lambda M: M.elastic(boxes, torch.zeros(1, H, W + 1, 2)), ValueError, "displacement shape should be"),
        (lambda M: M.elastic(kp, [[0.0]]), TypeError, "displacement should be a Tensor"),
        (lambda M: M.affine(rotated, "10", [0, 0], 1.0, 0.0), TypeError, "angle should be int or float"),
        (lambda M: M.affine(boxes, 10.0, [0, 0, 1], 1.0, 0.0), ValueError, "translate should be a sequence of length 2"),
        (lambda M: M.affine(kp, 10.0, [0, 0], 0.0, 0.0), ValueError, "scale should be positive"),
        (lambda M: M.perspective(boxes, None, None), ValueError, "must have non `None` values"),
        (lambda M: M.perspective(kp, START, END, coefficients=[0.0] * 8), ValueError, "defined concurrently"),
        (lambda M: M.perspective(boxes, None, None, coefficients=[0.0] * 8), RuntimeError, "Denominator is zero"),
        (lambda M: M.resize(boxes, [10, 12], max_size=20), ValueError, "max_size should only be passed"),
        (lambda M: M.resize(kp, [10], max_size=8), ValueError, "must be strictly greater"),
    ]
    for call, kind, text in cases:
        with pytest.raises(kind):
            call(TF)
        with pytest.raises(kind, match=text):
            call(F)

    class Heatmap(tv_tensors.TVTensor):
        pass

    with pytest.raises(TypeError, match="resize: argument 'inpt': expected a tensor or array, .* got .*Heatmap"):
        F.resize(torch.zeros(1, H, W).as_subclass(Heatmap), [10])


# ---- transform classes ----------------------------------------------------------------------------------------
def detection_sample(seed, fmt="XYXY", n=6, canvas=(H, W), box_mode="soft", inside=False, device="cpu"):
    g = torch.Generator().manual_seed(seed)
    return {
        "image": make_image((3, *canvas), torch.uint8, seed, device=device),
        "boxes": make_boxes(fmt, n, torch.float32, box_mode, seed, inside=inside, canvas=canvas, device=device),
        "masks": make_mask((n, *canvas), torch.uint8, seed, device=device),
        "keypoints": make_keypoints((n, 3, 2), torch.float32, seed, canvas=canvas, device=device),
        "labels": torch.randint(0, 10, (n,), generator=g).to(device),
        "name": "sample",
    }


def assert_samples_match(ours, theirs, warp=False):
    assert ours.keys() == theirs.keys()
    for key in theirs:
        a, b = ours[key], theirs[key]
        if isinstance(b, tv_tensors.Mask):
            assert_mask_equal(a, b, warp)
        elif isinstance(b, (tv_tensors.BoundingBoxes, tv_tensors.KeyPoints)):
            assert_points_close(a, b)
        elif isinstance(b, torch.Tensor):
            assert type(a) is type(b), key
            compare(key, a.as_subclass(torch.Tensor), b.as_subclass(torch.Tensor), "close", key, str(a.device))
        else:
            assert a == b, key


FILL = {tv_tensors.Image: (127, 60, 9), tv_tensors.Mask: 3, "others": 0}
TRANSFORMS = {
    "RandomHorizontalFlip": lambda M: M.RandomHorizontalFlip(),
    "RandomVerticalFlip": lambda M: M.RandomVerticalFlip(p=0.7),
    "Resize": lambda M: M.Resize(23),
    "Resize_max_size": lambda M: M.Resize(None, max_size=50),
    "CenterCrop": lambda M: M.CenterCrop([24, 50]),
    "RandomCrop": lambda M: M.RandomCrop([26, 40], padding=[2, 3], fill=FILL),
    "RandomCrop_pad_if_needed": lambda M: M.RandomCrop([H, 50], pad_if_needed=True, fill=FILL),
    "RandomResizedCrop": lambda M: M.RandomResizedCrop([20, 24]),
    "Pad": lambda M: M.Pad([1, 2, 3, 4], fill=FILL),
    "RandomRotation": lambda M: M.RandomRotation(45, fill=FILL),
    "RandomRotation_expand": lambda M: M.RandomRotation(180, expand=True, fill={tv_tensors.Image: 127}),
    "RandomRotation_center": lambda M: M.RandomRotation((-30, 60), center=[5, 8], interpolation=M.InterpolationMode.BILINEAR),
    "RandomAffine": lambda M: M.RandomAffine(25, translate=(0.1, 0.2), scale=(0.7, 1.3), shear=(-8, 8, -4, 4),
                                             fill=FILL),
    "RandomPerspective": lambda M: M.RandomPerspective(0.6, p=0.8, fill=FILL),
    "ElasticTransform": lambda M: M.ElasticTransform(alpha=(30.0, 20.0), sigma=(3.0, 4.0), fill=FILL),
    "RandomZoomOut": lambda M: M.RandomZoomOut(fill=FILL, side_range=(1.0, 2.5), p=0.8),
    "RandomIoUCrop": lambda M: M.RandomIoUCrop(),
    "ClampBoundingBoxes": lambda M: M.ClampBoundingBoxes(),
    "ClampBoundingBoxes_hard": lambda M: M.ClampBoundingBoxes("hard"),
    "ClampKeyPoints": lambda M: M.ClampKeyPoints(),
    "ConvertBoundingBoxFormat": lambda M: M.ConvertBoundingBoxFormat("CXCYWH"),
}
TRANSFORM_WARPS = {"RandomRotation", "RandomRotation_expand", "RandomRotation_center", "RandomAffine",
                   "RandomPerspective", "ElasticTransform"}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_classes_match_torchvision(name):
    """Image, boxes (each format), masks, keypoints, labels and a string through ours and
    torchvision's class under the same torch.manual_seed."""
    formats = ["XYXY"] if name == "RandomIoUCrop" else (["CXCYWH"] if "Convert" in name else FORMATS)
    for fmt in formats:
        for seed in range(6):
            sample = detection_sample(seed, fmt, inside=name == "ElasticTransform")
            out = []
            for M in (T, TT):
                torch.manual_seed(seed)
                out.append(TRANSFORMS[name](M)(sample))
            assert_samples_match(*out, warp=name in TRANSFORM_WARPS)


def test_transforms_keep_tv_tensor_types_for_subclasses():
    """The contract for transforms written on top of ours: transform() is called once per target
    leaf with its tv_tensor type; a plain result gets the leaf's type back."""
    seen = []

    class Record(T.Transform):
        def transform(self, inpt, params):
            seen.append(type(inpt).__name__)
            return inpt.as_subclass(torch.Tensor) + 0

    sample = detection_sample(0)
    out = Record()(sample)
    assert seen == ["Image", "BoundingBoxes", "Mask", "KeyPoints"]
    for key in ("image", "boxes", "masks", "keypoints"):
        assert type(out[key]) is type(sample[key])
    assert out["labels"] is sample["labels"] and out["boxes"].canvas_size == sample["boxes"].canvas_size


def test_sanitize_bounding_boxes_transform():
    """labels_getter: default (a "labels" key, a "*label*" key, a (image, target) tuple), a
    callable returning several tensors, None; per-instance masks follow, semantic masks do not."""
    s = detection_sample(7, n=8, box_mode=None)
    s["boxes"] = tv_tensors.wrap(s["boxes"] * 1.4 - 5, like=s["boxes"])  # some outside, some tiny
    s["semantic"] = make_mask((H, W), torch.uint8, 1)
    variants = [
        (lambda M: M.SanitizeBoundingBoxes(), lambda x: x),
        (lambda M: M.SanitizeBoundingBoxes(min_size=3, min_area=20), lambda x: x),
        (lambda M: M.SanitizeBoundingBoxes(), lambda x: {("class_label" if k == "labels" else k): v for k, v in x.items()}),
        (lambda M: M.SanitizeBoundingBoxes(labels_getter=lambda x: (x["labels"], x["keypoints"])), lambda x: x),
        (lambda M: M.SanitizeBoundingBoxes(labels_getter=None), lambda x: x),
    ]
    for make, reshape in variants:
        sample = reshape(s)
        ours, theirs = make(T)(sample), make(TT)(sample)
        assert_samples_match(ours, theirs)
    image, target = s["image"], {k: v for k, v in s.items() if k != "image"}
    (oi, ot), (ti, tt) = T.SanitizeBoundingBoxes()(image, target), TT.SanitizeBoundingBoxes()(image, target)
    assert oi is image and ti is image
    assert_samples_match(ot, tt)
    assert len(ot["boxes"]) < len(s["boxes"]) and torch.equal(ot["semantic"], s["semantic"])
    for bad in (dict(min_size=0.5), dict(min_area=0), dict(labels_getter="labels")):
        with pytest.raises(ValueError):
            TT.SanitizeBoundingBoxes(**bad)
        with pytest.raises(ValueError, match="SanitizeBoundingBoxes: argument"):
            T.SanitizeBoundingBoxes(**bad)
    no_labels = {k: v for k, v in s.items() if k != "labels"}
    with pytest.raises(ValueError, match="could not find the labels"):
        T.SanitizeBoundingBoxes()(no_labels)
    with pytest.raises(ValueError, match="No bounding boxes were found"):
        T.SanitizeBoundingBoxes(labels_getter=None)({"image": image})


def test_five_and_ten_crop_transforms():
    """Images become tuples of crops; boxes and masks raise TypeError as in torchvision; keypoints
    pass through with torchvision's warning."""
    sample = detection_sample(0)
    for make in (lambda M: M.FiveCrop(12), lambda M: M.TenCrop([12, 20], vertical_flip=True)):
        img_kp = {"image": sample["image"], "keypoints": sample["keypoints"]}
        with pytest.warns(UserWarning, match="passing through inputs of type tv_tensors.KeyPoints"):
            ours = make(T)(img_kp)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = make(TT)(img_kp)
        assert ours["keypoints"] is sample["keypoints"]
        assert all(type(a) is tv_tensors.Image and torch.equal(a, b) for a, b in zip(ours["image"], theirs["image"]))
        for key in ("boxes", "masks"):
            with pytest.raises(TypeError):
                make(TT)({"image": sample["image"], key: sample[key]})
            with pytest.raises(TypeError, match="BoundingBoxes'es and Mask's are not supported"):
                make(T)({"image": sample["image"], key: sample[key]})


def test_transform_errors():
    sample = detection_sample(0)
    with pytest.raises(TypeError, match="RandomIoUCrop\\(\\) requires input sample to contain"):
        T.RandomIoUCrop()({"image": sample["image"]})
    with pytest.raises(ValueError, match="Found multiple HxW dimensions"):
        T.RandomCrop(10)({"image": sample["image"], "masks": make_mask((5, H + 1, W), torch.uint8)})
    with pytest.raises(ValueError, match="Invalid side range"):
        T.RandomZoomOut(side_range=(0.5, 2.0))
    with pytest.raises(TypeError, match="inappropriate fill arg"):
        T.Pad(2, fill="white")


def test_detection_pipeline_matches_torchvision():
    """The issue's done-when check: torchvision's detection augmentation (SSD-style) on a uint8
    Image, boxes, per-instance masks and labels, through ours and torchvision's, same seeds.
    RandomPhotometricDistort joins the pipeline where streamvision has it (written in parallel)."""

    def pipeline(M):
        photometric = [M.RandomPhotometricDistort(p=1)] if hasattr(T, "RandomPhotometricDistort") else []
        return M.Compose(photometric + [
            M.RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104), "others": 0}),
            M.RandomIoUCrop(),
            M.RandomHorizontalFlip(p=1),
            M.SanitizeBoundingBoxes(),
        ])

    ours, theirs = pipeline(T), pipeline(TT)
    cropped = 0
    for seed in range(30):
        sample = detection_sample(seed, n=5, canvas=(40, 56))
        sample = {k: sample[k] for k in ("image", "boxes", "masks", "labels")}
        torch.manual_seed(seed)
        a = ours(sample)
        torch.manual_seed(seed)
        b = theirs(sample)
        assert_samples_match(a, b)
        cropped += a["image"].shape[-2:] != sample["image"].shape[-2:]
    assert cropped > 10  # the random choices did change the samples


def test_detection_pipeline_through_the_torchvision_backend_matches_torchvision():
    """The same pipeline written with torchvision's classes, run with streamvision's kernels
    behind torchvision (streamvision.torchvision.enable on the CPU): torchvision's results."""
    import streamvision.torchvision as backend

    def pipeline():
        return TT.Compose([TT.RandomPhotometricDistort(p=1),
                           TT.RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104), "others": 0}),
                           TT.RandomIoUCrop(), TT.RandomHorizontalFlip(p=1), TT.SanitizeBoundingBoxes()])

    routed = 0
    for seed in range(20):
        sample = detection_sample(seed, n=5, canvas=(40, 56))
        sample = {k: sample[k] for k in ("image", "boxes", "masks", "labels")}
        torch.manual_seed(seed)
        b = pipeline()(sample)
        with backend.enabled(devices=("cpu",)):
            routed = len(backend.kernels())
            torch.manual_seed(seed)
            a = pipeline()(sample)
        assert_samples_match(a, b)
    assert routed > 0 and not backend.is_enabled()


@pytest.mark.parametrize("fmt", FORMATS)
def test_box_and_keypoint_math_stays_on_the_device(fmt):
    """Every geometric op on boxes and keypoints runs on "meta" tensors (shapes, no data): so it
    reads no value back to the host (.item(), bool(), nonzero and masks fail there), takes no
    data-dependent shape and mixes in no host tensor (a device mismatch there) - what makes it
    sync-free and CUDA-graph capturable on a GPU. The parameters' device path (fill kernels) runs too."""
    boxes = make_boxes(fmt, 5, torch.float32, "hard").to("meta")  # hard: the longest clamping path
    inputs = [boxes] + ([make_keypoints((2, 3, 2), torch.float32).to("meta")] if fmt == "XYXY" else [])
    for x in inputs:
        for op in ("horizontal_flip", "vertical_flip", "resize_hw", "resized_crop", "crop_outside", "center_crop",
                   "pad_4", "rotate_expand", "affine_center", "perspective", "elastic"):  # each code path once
            out = F.elastic(x, _displacement((H, W)).to("meta")) if op == "elastic" else OPS[op](F, x)
            assert type(out) is type(x) and out.device.type == "meta", op
    assert F.convert_bounding_box_format(boxes, new_format=fmt).device.type == "meta"
    assert F.clamp_bounding_boxes(boxes, clamping_mode="soft").device.type == "meta"


def test_device_constants_equal_torch_tensor():
    """Box parameters reach a GPU through fill kernels (no host-to-device copy); the values must be
    torch.tensor's, rounding included. The fill path, run here on the CPU:"""
    from streamvision.transforms.v2.functional import _points

    values = [[0.1, -2.5e-8, 1.0 / 3.0], [123456.789, 3.0, -0.0]]
    for dtype in (torch.float32, torch.float64, torch.float16):
        assert torch.equal(_points.filled(values, dtype, "cpu"), torch.tensor(values, dtype=dtype))
        assert torch.equal(_points.filled(values[0], dtype, "cpu"), torch.tensor(values[0], dtype=dtype))


# ---- CUDA ----------------------------------------------------------------------------------------------------------
@needs_cuda
@pytest.mark.parametrize("op", ["horizontal_flip", "resize_short", "crop_outside", "pad_4", "rotate_expand", "affine",
                                "perspective", "elastic"])
def test_cuda_matches_torchvision_cpu(op):
    """Boxes (every format), keypoints and masks on the GPU: torchvision's results (computed on the
    CPU), on the input's device, without a host sync."""
    displacement = _displacement((H, W)).to("cuda")  # moved before the no-sync section

    def ours_on_gpu(x):
        return F.elastic(x, displacement) if op == "elastic" else OPS[op](F, x)

    for fmt in FORMATS:
        boxes = make_boxes(fmt, 7, torch.float32, "soft", 1, inside=op == "elastic")
        on_gpu = boxes.to("cuda")
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            ours = ours_on_gpu(on_gpu)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        theirs = OPS[op](TF, boxes)
        assert ours.device.type == "cuda"
        assert_points_close(ours.to("cpu"), theirs)  # .to keeps a tv_tensor's type and metadata
    kp = make_keypoints((5, 2), torch.float32)
    assert_points_close(ours_on_gpu(kp.to("cuda")).to("cpu"), OPS[op](TF, kp))
    mask = make_mask((3, H, W), torch.int64)
    assert_mask_equal(ours_on_gpu(mask.to("cuda")).to("cpu"), OPS[op](TF, mask), op in WARPS)


@needs_cuda
@needs_caching_allocator
def test_cuda_box_ops_capture_in_a_cuda_graph():
    boxes = make_boxes("CXCYWHR", 7, torch.float32, "hard", 1, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        F.affine(boxes, 20.0, [2, 3], 1.1, [5.0, 1.0])  # warm up outside the capture
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = F.affine(boxes, 20.0, [2, 3], 1.1, [5.0, 1.0])
    graph.replay()
    torch.cuda.synchronize()
    assert_points_close(out.to("cpu"), TF.affine(boxes.to("cpu"), 20.0, [2, 3], 1.1, [5.0, 1.0]))


@needs_cuda
@pytest.mark.allows_host_sync  # RandomIoUCrop's trials and SanitizeBoundingBoxes read the boxes (as torchvision's)
def test_cuda_detection_pipeline():
    sample = detection_sample(3, n=5, canvas=(40, 56))
    on_gpu = {k: (v.to("cuda") if isinstance(v, torch.Tensor) else v) for k, v in sample.items()}
    pipeline = [T.RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104), "others": 0}), T.RandomIoUCrop(),
                T.RandomHorizontalFlip(p=1), T.SanitizeBoundingBoxes()]
    torch.manual_seed(0)
    a = T.Compose(pipeline)(on_gpu)
    torch.manual_seed(0)
    b = TT.Compose([TT.RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104), "others": 0}), TT.RandomIoUCrop(),
                    TT.RandomHorizontalFlip(p=1), TT.SanitizeBoundingBoxes()])(sample)
    assert all(v.device.type == "cuda" for v in a.values() if isinstance(v, torch.Tensor))
    assert_samples_match({k: v.to("cpu") if isinstance(v, torch.Tensor) else v for k, v in a.items()}, b)


PHOTOMETRIC = [
    ("adjust_brightness", (1.3,)), ("adjust_contrast", (0.7,)), ("adjust_saturation", (0.6,)), ("adjust_hue", (0.1,)),
    ("adjust_gamma", (0.8,)), ("adjust_sharpness", (1.5,)), ("autocontrast", ()), ("equalize", ()), ("invert", ()),
    ("posterize", (3,)), ("solarize", (100,)), ("gaussian_blur", ([3, 3],)), ("rgb_to_grayscale", ()),
    ("permute_channels", ([2, 0, 1],)), ("to_dtype", (torch.float32, True)),
]


@pytest.mark.parametrize("name,args", PHOTOMETRIC, ids=[p[0] for p in PHOTOMETRIC])
def test_photometric_functionals_dispatch_on_tv_tensors_as_torchvision(name, args):
    """Image and Video keep their type and get torchvision's values; masks and boxes are refused
    with a TypeError where torchvision refuses them (to_dtype converts them, as torchvision's)."""
    g = torch.Generator().manual_seed(0)
    samples = [tv_tensors.Image(torch.randint(0, 256, (3, 9, 10), generator=g, dtype=torch.uint8)),
               tv_tensors.Video(torch.randint(0, 256, (2, 3, 9, 10), generator=g, dtype=torch.uint8)),
               tv_tensors.Mask(torch.randint(0, 3, (9, 10), generator=g, dtype=torch.uint8)),
               tv_tensors.BoundingBoxes([[1, 2, 5, 6]], format="XYXY", canvas_size=(9, 10))]
    for x in samples:
        try:
            want = getattr(TF, name)(x, *args)
        except TypeError:
            with pytest.raises(TypeError, match=f"F.{name} supports inputs of type"):
                getattr(F, name)(x, *args)
            continue
        got = getattr(F, name)(x, *args)
        assert type(got) is type(want), (name, type(x).__name__)
        torch.testing.assert_close(got.as_subclass(torch.Tensor).float(), want.as_subclass(torch.Tensor).float(),
                                   rtol=0, atol=1.0)


def test_to_dtype_default_and_named_dtypes_on_tv_tensors_as_torchvision():
    """to_dtype's default dtype (float32) and a dtype given by name reach masks and boxes as
    torchvision's cast (no scaling); Images are scaled by the kernel."""
    g = torch.Generator().manual_seed(1)
    mask = tv_tensors.Mask(torch.randint(0, 3, (9, 10), generator=g, dtype=torch.uint8))
    boxes = tv_tensors.BoundingBoxes([[1, 2, 5, 6]], format="XYXY", canvas_size=(9, 10))
    image = tv_tensors.Image(torch.randint(0, 256, (3, 9, 10), generator=g, dtype=torch.uint8))
    for x in (mask, boxes, image):
        for got, want in ((F.to_dtype(x), TF.to_dtype(x)), (F.to_dtype(x, "float32", scale=True),
                                                             TF.to_dtype(x, torch.float32, scale=True))):
            assert type(got) is type(want) and got.dtype == want.dtype == torch.float32
            torch.testing.assert_close(got.as_subclass(torch.Tensor), want.as_subclass(torch.Tensor), rtol=0,
                                       atol=1e-6)


def test_functionals_forward_keyword_arguments_and_tensor_subclasses():
    """The functionals are generated with explicit parameters: arguments given by keyword reach the
    kernel as given by position, and a torch.Tensor subclass that is no tv_tensor is a plain input
    (its result is the same values), before and after a tv_tensor of the same op."""
    g = torch.Generator().manual_seed(2)
    x = torch.randint(0, 256, (3, 9, 10), generator=g, dtype=torch.uint8)
    xf = x.float() / 255
    mean, std = [0.4, 0.5, 0.6], [0.2, 0.3, 0.25]
    torch.testing.assert_close(F.normalize(xf, std=std, mean=mean), TF.normalize(xf, mean, std))
    torch.testing.assert_close(F.adjust_gamma(x, gain=1.2, gamma=0.8), TF.adjust_gamma(x, 0.8, 1.2), rtol=0, atol=1)
    torch.testing.assert_close(F.resize(x, size=[5, 7], antialias=True), TF.resize(x, [5, 7], antialias=True))

    class Sub(torch.Tensor):
        pass

    for inpt in (x.as_subclass(Sub), tv_tensors.Image(x), x.as_subclass(Sub)):
        for name, args in (("horizontal_flip", ()), ("invert", ()), ("crop", (1, 2, 5, 6))):
            got, want = getattr(F, name)(inpt, *args), getattr(TF, name)(x, *args)
            assert torch.equal(got.as_subclass(torch.Tensor), want), (name, type(inpt).__name__)
            if isinstance(inpt, tv_tensors.Image):
                assert type(got) is tv_tensors.Image
