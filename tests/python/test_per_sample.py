"""Per-sample mode, variable-size batches, the batch kernel and Compose's fusion.

References: every image of a per-sample result equals the transform's single-image op (the
functional) with that image's parameters; host-drawn parameters equal N single-image calls under
the same seed; fused Compose equals the unfused chain; the device samplers follow torchvision's
distributions (goodness of fit against the host sampler, which is torchvision's code path)."""

import math

import pytest

torch = pytest.importorskip("torch")

import streamvision.transforms.v2 as T  # noqa: E402
import streamvision.transforms.v2.functional as F  # noqa: E402
from streamvision.transforms.v2 import _per_sample  # noqa: E402
from conftest import UNDER_SANITIZER, needs_caching_allocator  # noqa: E402

CUDA = torch.cuda.is_available()
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not CUDA, reason="needs a CUDA device"))]


def images(n=5, c=3, h=40, w=52, dtype=torch.uint8, device="cpu", seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.uint8:
        x = torch.randint(0, 256, (n, c, h, w), dtype=dtype, generator=g)
    else:
        x = torch.rand((n, c, h, w), generator=g).to(dtype)
    return x.to(device)


def image_list(n=4, c=3, dtype=torch.uint8, device="cpu", seed=1):
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(n):
        h, w = 30 + 11 * i, 47 - 5 * i
        x = torch.randint(0, 256, (c, h, w), dtype=torch.uint8, generator=g)
        out.append((x if dtype == torch.uint8 else x.to(dtype) / 255).to(device))
    return out


# Every random transform class, as a factory (fixed arguments that make each draw matter).
RANDOM = {
    "RandomResizedCrop": lambda **k: T.RandomResizedCrop(24, **k),
    "RandomCrop": lambda **k: T.RandomCrop(20, padding=2, **k),
    "RandomHorizontalFlip": lambda **k: T.RandomHorizontalFlip(**k),
    "RandomVerticalFlip": lambda **k: T.RandomVerticalFlip(**k),
    "RandomRotation": lambda **k: T.RandomRotation(30, interpolation=T.InterpolationMode.BILINEAR, **k),
    "RandomAffine": lambda **k: T.RandomAffine(20, translate=(0.1, 0.2), scale=(0.8, 1.2), shear=(5, 10), **k),
    "RandomPerspective": lambda **k: T.RandomPerspective(0.4, p=0.7, **k),
    "ColorJitter": lambda **k: T.ColorJitter(0.4, 0.4, 0.4, 0.1, **k),
    "RandomGrayscale": lambda **k: T.RandomGrayscale(0.5, **k),
    "RandomInvert": lambda **k: T.RandomInvert(**k),
    "RandomPosterize": lambda **k: T.RandomPosterize(3, **k),
    "RandomSolarize": lambda **k: T.RandomSolarize(100, **k),
    "RandomAdjustSharpness": lambda **k: T.RandomAdjustSharpness(2.0, **k),
    "RandomAutocontrast": lambda **k: T.RandomAutocontrast(**k),
    "RandomEqualize": lambda **k: T.RandomEqualize(**k),
    "GaussianBlur": lambda **k: T.GaussianBlur(5, sigma=(0.1, 2.0), **k),
    "RandomErasing": lambda **k: T.RandomErasing(p=0.8, value=7, **k),
    "ElasticTransform": lambda **k: T.ElasticTransform(alpha=20.0, **k),
    "RandomChannelPermutation": lambda **k: T.RandomChannelPermutation(**k),
    "RandomPhotometricDistort": lambda **k: T.RandomPhotometricDistort(p=0.7, **k),
    "RandomZoomOut": lambda **k: T.RandomZoomOut(p=0.7, **k),
    "ScaleJitter": lambda **k: T.ScaleJitter((40, 30), **k),
    "RandomShortestSize": lambda **k: T.RandomShortestSize([20, 28, 36], max_size=60, **k),
    "RandomResize": lambda **k: T.RandomResize(20, 40, **k),
    "AutoAugment": lambda **k: T.AutoAugment(**k),
    "RandAugment": lambda **k: T.RandAugment(**k),
    "TrivialAugmentWide": lambda **k: T.TrivialAugmentWide(**k),
    "AugMix": lambda **k: T.AugMix(**k),
}


def test_every_random_class_takes_per_sample():
    import inspect

    for name in [*RANDOM, "GaussianNoise"]:
        cls = getattr(T, name)
        param = inspect.signature(cls).parameters.get("per_sample")
        assert param is not None and param.default is False and param.kind is param.KEYWORD_ONLY, name
    for name in ("Resize", "CenterCrop", "ToDtype", "Normalize", "Pad", "Grayscale"):
        assert "per_sample" not in inspect.signature(getattr(T, name)).parameters, name


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_per_sample_equals_single_image_calls_under_one_seed(name):
    """On the CPU the parameters are drawn as N single-image calls draw them, in order: so the
    per-sample result is exactly those calls' results."""
    x = images()
    torch.manual_seed(7)
    got = RANDOM[name](per_sample=True)(x)
    torch.manual_seed(7)
    single = RANDOM[name]()
    want = [single(xi) for xi in x]
    if isinstance(got, torch.Tensor):
        assert got.shape[0] == len(want)
        got = list(got)
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.shape == b.shape and torch.equal(a, b), f"{name}: image {i} differs"


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_apply_of_sampled_params_equals_the_op_per_image(name):
    x = images(seed=3)
    t = RANDOM[name](per_sample=True)
    torch.manual_seed(11)
    params = t.sample_params(x)
    assert isinstance(params, _per_sample.BatchParams)
    assert params["applied"].shape == (x.shape[0],) and params["applied"].dtype == torch.bool
    for k, v in params.items():
        if isinstance(v, torch.Tensor):
            assert v.shape[0] == x.shape[0] and v.device == x.device, k
    out = t.apply(x, params)
    out = list(out) if isinstance(out, torch.Tensor) else out
    for i, xi in enumerate(x):
        ref = t.transform(xi, params.sample(i)) if params.applied(i) else xi
        assert torch.equal(out[i], ref), f"{name}: image {i}"
    torch.manual_seed(11)
    again = t(x)  # t(batch) is sample_params then apply
    again = list(again) if isinstance(again, torch.Tensor) else again
    assert all(torch.equal(a, b) for a, b in zip(again, out))


def test_gaussian_noise_per_sample():
    x = images(dtype=torch.float32)
    torch.manual_seed(5)
    got = T.GaussianNoise(sigma=0.2, per_sample=True)(x)
    torch.manual_seed(5)
    want = torch.stack([T.GaussianNoise(sigma=0.2)(xi) for xi in x])
    assert torch.equal(got, want)
    assert not torch.equal(got[0] - x[0], got[1] - x[1])  # each image its own noise


def test_parameters_differ_between_images():
    x = images(n=16)
    torch.manual_seed(0)
    p = T.RandomResizedCrop(24, per_sample=True).sample_params(x)
    assert len(set(zip(p["top"].tolist(), p["height"].tolist()))) > 8
    torch.manual_seed(0)
    p = T.ColorJitter(0.5, per_sample=True).sample_params(x)
    assert len(set(p["b"].tolist())) == 16


def test_params_of_the_caller_are_applied():
    """BatchParams built by hand (device fields only) are read back and applied."""
    x = images(n=3)
    t = T.RandomResizedCrop(16, per_sample=True)
    p = _per_sample.BatchParams({"top": torch.tensor([0, 5, 10]), "left": torch.tensor([1, 2, 3]),
                                 "height": torch.tensor([20, 30, 25]), "width": torch.tensor([10, 40, 20]),
                                 "applied": torch.ones(3, dtype=torch.bool)})
    out = t.apply(x, p)
    for i, (a, b, c, d) in enumerate([(0, 1, 20, 10), (5, 2, 30, 40), (10, 3, 25, 20)]):
        assert torch.equal(out[i], F.resized_crop(x[i], a, b, c, d, [16, 16], antialias=True))


# ---- variable-size batches -----------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_variable_size_batch_fixed_output_is_one_tensor(device):
    xs = image_list(device=device)
    torch.manual_seed(2)
    t = T.RandomResizedCrop([24, 28], per_sample=True)
    params = t.sample_params(xs)
    out = t.apply(xs, params)
    assert isinstance(out, torch.Tensor) and out.shape == (len(xs), 3, 24, 28)
    for i, x in enumerate(xs):
        ref = F.resized_crop(x, *[int(params[k][i]) for k in ("top", "left", "height", "width")], [24, 28],
                             antialias=True)
        assert torch.equal(out[i], ref), i


@pytest.mark.parametrize("device", DEVICES)
def test_variable_size_batch_other_outputs_are_lists(device):
    xs = image_list(device=device)
    torch.manual_seed(3)
    t = T.RandomHorizontalFlip(per_sample=True)
    params = t.sample_params(xs)
    out = t.apply(xs, params)
    assert isinstance(out, T.ImageList) and len(out) == len(xs)
    for i, x in enumerate(xs):
        assert torch.equal(out[i], F.horizontal_flip(x) if bool(params["applied"][i]) else x)
    cc = T.CenterCrop(20)(T.ImageList(xs))  # a deterministic transform maps over an ImageList
    assert isinstance(cc, torch.Tensor) and cc.shape == (len(xs), 3, 20, 20)
    assert all(torch.equal(cc[i], F.center_crop(x, [20, 20])) for i, x in enumerate(xs))


def test_variable_size_batch_through_compose():
    xs = image_list()
    pipe = T.Compose([T.RandomResizedCrop(24, per_sample=True), T.RandomHorizontalFlip(per_sample=True),
                      T.ToDtype(torch.float32, scale=True), T.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.3])])
    torch.manual_seed(4)
    out = pipe(xs)
    assert out.shape == (len(xs), 3, 24, 24) and out.dtype == torch.float32
    torch.manual_seed(4)
    ref = T.Compose(list(pipe.transforms), fuse=False)(xs)
    assert torch.equal(out, ref)


def test_bad_batches_raise_clearly():
    t = T.RandomHorizontalFlip(per_sample=True)
    with pytest.raises(TypeError, match=r"per_sample=True.*\[N, C, H, W\]"):
        t(torch.zeros(3, 8, 8))
    with pytest.raises(ValueError, match="share device, dtype and channel count"):
        t([torch.zeros(3, 8, 8), torch.zeros(1, 8, 8)])
    with pytest.raises(ValueError, match="empty"):
        t([])
    with pytest.raises(ValueError, match="multiple HxW"):
        T.RandomResizedCrop(8)(T.ImageList([torch.zeros(3, 8, 8), torch.zeros(3, 9, 8)]))


# ---- the device samplers' distributions ------------------------------------------------------------------
def _ks(a, b):
    """Two-sample Kolmogorov-Smirnov statistic and its 0.001-level critical value."""
    import bisect

    a, b = sorted(a), sorted(b)
    n, m = len(a), len(b)
    # the largest gap between the empirical CDFs, evaluated at every value (ties stepped at once)
    d = max(abs(bisect.bisect_right(a, v) / n - bisect.bisect_right(b, v) / m) for v in set(a) | set(b))
    return d, 1.95 * math.sqrt((n + m) / (n * m))


@pytest.mark.parametrize("shape", [(300, 400), (400, 120)])
def test_device_resized_crop_sampler_follows_torchvision(shape):
    """The batched sampler (run here on a CPU batch) against torchvision's own one-draw-at-a-time
    algorithm (the host sampler): area fraction, log aspect ratio and position, two-sample KS."""
    h, w = shape
    n = 4000
    x = torch.zeros(n, 1, h, w, dtype=torch.uint8)
    batch = _per_sample.Batch(x, "RandomResizedCrop")
    torch.manual_seed(0)
    dev = _per_sample.sample_resized_crop((0.08, 1.0), (3 / 4, 4 / 3), batch)
    t = T.RandomResizedCrop(10, per_sample=True)
    torch.manual_seed(1)
    host = _per_sample.sample_on_host(t, _per_sample.Batch(x[:n], "RandomResizedCrop"))

    def stats(p):
        hh, ww = p["height"].double(), p["width"].double()
        return {"area": (hh * ww / (h * w)).tolist(), "log_ratio": torch.log(ww / hh).tolist(),
                "top": (p["top"].double() / (h - hh + 1)).tolist(), "left": (p["left"].double() / (w - ww + 1)).tolist()}

    a, b = stats(dev), stats(host)
    for k in a:
        d, crit = _ks(a[k], b[k])
        assert d < crit, f"{k}: KS {d:.4f} >= {crit:.4f}"
    assert (dev["top"] >= 0).all() and (dev["top"] + dev["height"] <= h).all()
    assert (dev["left"] >= 0).all() and (dev["left"] + dev["width"] <= w).all()


def test_device_resized_crop_sampler_falls_back_to_the_centre():
    """Scale bounds no box can meet in 10 attempts: torchvision's centred fallback."""
    x = torch.zeros(64, 1, 10, 100, dtype=torch.uint8)
    torch.manual_seed(0)
    p = _per_sample.sample_resized_crop((5.0, 6.0), (3 / 4, 4 / 3), _per_sample.Batch(x, "t"))
    # in_ratio 10 > 4/3: h = 10, w = round(10 * 4/3) = 13, centred
    assert p["height"].eq(10).all() and p["width"].eq(13).all()
    assert p["top"].eq(0).all() and p["left"].eq((100 - 13) // 2).all()


def _torchvision_box(u, h, w, scale, ratio, attempts=10):
    """torchvision's RandomResizedCrop.get_params, line for line, with its draws replaced by u's
    numbers (float32 arithmetic where torchvision's uniform_ and exp are float32). Also returns
    how close the rounded quantities came to a .5 tie (exp's last bit may differ between
    libraries, which can move a value across a tie)."""
    f32 = lambda v: torch.tensor(v, dtype=torch.float32)  # noqa: E731
    area = h * w
    log_ratio = torch.log(torch.tensor(ratio))
    closest = 1.0
    for a in range(attempts):
        frac = (f32(u[2 * a]) * (f32(scale[1]) - f32(scale[0])) + f32(scale[0])).item()
        target_area = area * frac
        aspect = torch.exp(f32(u[2 * a + 1]) * (log_ratio[1] - log_ratio[0]) + log_ratio[0]).item()
        ww, hh = math.sqrt(target_area * aspect), math.sqrt(target_area / aspect)
        closest = min(closest, abs(ww % 1 - 0.5), abs(hh % 1 - 0.5))
        ww, hh = int(round(ww)), int(round(hh))
        if 0 < ww <= w and 0 < hh <= h:
            top = min(int(float(u[-2]) * (h - hh + 1)), h - hh)
            left = min(int(float(u[-1]) * (w - ww + 1)), w - ww)
            return [top, left, hh, ww], closest
    in_ratio = w / h
    if in_ratio < min(ratio):
        ww, hh = w, int(round(w / min(ratio)))
    elif in_ratio > max(ratio):
        hh, ww = h, int(round(h * max(ratio)))
    else:
        ww, hh = w, h
    return [(h - hh) // 2, (w - ww) // 2, hh, ww], closest


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("scale, ratio", [((0.08, 1.0), (3 / 4, 4 / 3)), ((0.5, 3.0), (0.2, 5.0)), ((4.0, 9.0), (1.0, 1.0))])
def test_resized_crop_boxes_are_torchvisions_boxes(device, scale, ratio):
    """F.resized_crop_boxes against torchvision's get_params fed the same numbers: every box
    (fitting attempt, position, fallback) exactly, for sizes from 1x1 to 4000 wide and very
    flat or tall images (the fallback). Rows whose rounding came within 1e-3 of a tie are left
    out (torchvision's exp is float32, ours double: the last bits differ)."""
    g = torch.Generator().manual_seed(len(ratio) + int(scale[1]))
    sizes = [(int(h), int(w)) for h, w in torch.randint(1, 700, (300, 2), generator=g)]
    sizes += [(1, 1), (1, 4000), (4000, 1), (3, 1000), (1000, 3), (224, 224), (375, 500)]
    u = torch.rand(len(sizes), 22, generator=g)
    u[:8] = 0.0
    u[8:16] = 1.0 - 2.0 ** -24  # torch.rand's largest value
    boxes = F.resized_crop_boxes(u.to(device), sizes, scale, ratio)
    assert boxes.dtype == torch.int64 and boxes.shape == (len(sizes), 4) and boxes.device.type == device
    got = boxes.cpu().tolist()
    checked = 0
    for i, (h, w) in enumerate(sizes):
        want, closest = _torchvision_box(u[i].tolist(), h, w, scale, ratio)
        if closest < 1e-3:
            continue
        assert got[i] == want, f"image {i} of size {h}x{w}: {got[i]} != torchvision's {want}"
        checked += 1
    assert checked > 0.95 * len(sizes)


@pytest.mark.parametrize("device", DEVICES)
def test_device_resized_crop_sampler_of_a_list_batch(device):
    """The batched sampler on a list of different sizes (the sizes go to C++ as the images'
    torch.Size tails): every box inside its own image, on the batch's device."""
    xs = image_list(n=6, device=device)
    torch.manual_seed(2)
    p = _per_sample.sample_resized_crop((0.08, 1.0), (3 / 4, 4 / 3), _per_sample.Batch(xs, "RandomResizedCrop"))
    box = _per_sample.boxes_of(p)
    assert box.device.type == device and box.shape == (6, 4)
    for (top, left, h, w), x in zip(box.tolist(), xs):
        assert 0 <= top and top + h <= x.shape[-2] and 0 <= left and left + w <= x.shape[-1] and h > 0 and w > 0


def test_packed_params_follow_replaced_fields():
    """The samplers keep the tensors the batch ops take (the boxes, the jitter factors and order);
    a field the caller replaces between sample_params and apply is what apply uses."""
    x = torch.zeros(4, 3, 20, 30, dtype=torch.uint8)
    p = _per_sample.sample_resized_crop((0.08, 1.0), (3 / 4, 4 / 3), _per_sample.Batch(x, "t"))
    assert _per_sample.boxes_of(p) is p.packed("box")
    p["top"] = torch.zeros(4, dtype=torch.int64)
    assert p.packed("box") is None and _per_sample.boxes_of(p)[:, 0].eq(0).all()
    t = T.ColorJitter(0.4, None, 0.3, per_sample=True)
    j = _per_sample.sample_color_jitter(t._ranges(), _per_sample.Batch(x, "ColorJitter"))
    assert j.packed("jitter") is not None
    j["b"] = torch.ones(4, dtype=torch.float64)
    assert j.packed("jitter") is None


def test_resized_crop_boxes_on_cuda_equal_the_cpu():
    if not CUDA:
        pytest.skip("needs a CUDA device")
    g = torch.Generator().manual_seed(3)
    sizes = [(int(h), int(w)) for h, w in torch.randint(1, 2000, (3000, 2), generator=g)]  # 3 launches' worth
    u = torch.rand(len(sizes), 22, generator=g)
    cpu = F.resized_crop_boxes(u, sizes, (0.08, 1.0), (3 / 4, 4 / 3))
    cuda = F.resized_crop_boxes(u.cuda(), sizes, (0.08, 1.0), (3 / 4, 4 / 3)).cpu()
    assert torch.equal(cpu, cuda)


def test_resized_crop_boxes_bad_arguments():
    u = torch.rand(2, 22)
    for kwargs, match in [
        (dict(random=torch.rand(3, 22)), "random"),
        (dict(random=torch.rand(2, 21)), "random"),
        (dict(random=torch.rand(2, 2)), "random"),
        (dict(random=torch.rand(2, 22, dtype=torch.float64)), "random"),
        (dict(sizes=[(0, 5), (4, 4)]), r"sizes\[0\]"),
        (dict(sizes=[(3, 5, 1), (4, 4)]), "sizes"),
        (dict(scale=(1.0, 0.5)), "scale"),
        (dict(scale=(0.1, float("nan"))), "scale"),
        (dict(ratio=(0.0, 1.0)), "ratio"),
        (dict(ratio=(2.0, 1.0)), "ratio"),
    ]:
        args = dict(random=u, sizes=[(4, 5), (6, 7)], scale=(0.08, 1.0), ratio=(0.75, 4 / 3))
        args.update(kwargs)
        with pytest.raises(ValueError, match=match):
            F.resized_crop_boxes(**args)


def test_device_color_jitter_sampler_follows_torchvision():
    """Factors uniform in each range (KS against the host sampler, torchvision's draws) and every
    order of the four ops equally likely (each of the 24 within 5 sigma of 1/24)."""
    import itertools

    n = 6000
    x = torch.zeros(n, 3, 1, 1, dtype=torch.uint8)
    t = T.ColorJitter(0.4, (0.5, 1.5), 0.3, 0.1, per_sample=True)
    torch.manual_seed(0)
    dev = _per_sample.sample_color_jitter(t._ranges(), _per_sample.Batch(x, "ColorJitter"))
    torch.manual_seed(1)
    host = _per_sample.sample_on_host(t, _per_sample.Batch(x, "ColorJitter"))
    for k, r in zip(("b", "c", "s", "h"), t._ranges()):
        a = dev[k].tolist()
        assert min(a) >= r[0] and max(a) <= r[1], k
        d, crit = _ks(a, host[k].tolist())
        assert d < crit, f"{k}: KS {d:.4f} >= {crit:.4f}"
    counts = {p: 0 for p in itertools.permutations(range(4))}
    for row in dev["order"].tolist():
        counts[tuple(row)] += 1
    expected, sigma = n / 24, math.sqrt(n * (1 / 24) * (23 / 24))
    assert all(abs(c - expected) < 5 * sigma for c in counts.values()), counts


@pytest.mark.parametrize("device", DEVICES)
def test_color_jitter_params_map_the_numbers_as_torch_does(device):
    """F.color_jitter_params against a direct computation from the same numbers: the order is the
    stable argsort of the first four (ties included), each factor is torch's float32 uniform_
    mapping u * (hi - lo) + lo, widened; a None range gives 0."""
    g = torch.Generator().manual_seed(5)
    u = torch.rand(500, 8, generator=g)
    u[0, :4] = torch.tensor([0.5, 0.5, 0.25, 0.5])  # ties: lower index first
    u[1, 4:] = 0.0
    u[2, 4:] = 1.0 - 2.0 ** -24
    ranges = [(0.6, 1.4), None, (0.0, 2.5), (-0.5, 0.5)]
    factors, order = F.color_jitter_params(u.to(device), ranges)
    assert factors.dtype == torch.float64 and order.dtype == torch.int64 and factors.device.type == device
    want_order = torch.stack([torch.tensor(sorted(range(4), key=lambda k: (float(row[k]), k))) for row in u[:, :4]])
    assert torch.equal(order.cpu(), want_order)
    assert order[0].tolist() == [2, 0, 1, 3]
    want = torch.zeros(500, 4, dtype=torch.float64)
    for k, r in enumerate(ranges):
        if r is not None:
            lo, hi = torch.tensor(r[0], dtype=torch.float32), torch.tensor(r[1], dtype=torch.float32)
            want[:, k] = (u[:, 4 + k] * (hi - lo) + lo).double()
    assert torch.equal(factors.cpu(), want)


def test_color_jitter_params_bad_arguments():
    for args, match in [((torch.rand(3, 7), [None] * 4), "random"), ((torch.rand(3, 8, dtype=torch.float64), [None] * 4), "random"),
                        ((torch.rand(3, 8), [None] * 3), "ranges"), ((torch.rand(3, 8), [(1.0, 0.5), None, None, None]), "brightness"),
                        ((torch.rand(3, 8), [None, None, None, (0.0, float("inf"))]), "hue"),
                        ((torch.rand(3, 8), [None, (1.0, 2.0, 3.0), None, None]), "contrast")]:
        with pytest.raises(ValueError, match=match):
            F.color_jitter_params(*args)


def test_device_coin_sampler_follows_p():
    x = torch.zeros(20000, 1, 2, 2)
    torch.manual_seed(0)
    a = _per_sample.sample_coins(0.3, _per_sample.Batch(x, "t"))
    rate = a.double().mean().item()
    assert abs(rate - 0.3) < 4 * math.sqrt(0.3 * 0.7 / a.numel())


# ---- the batch kernel ------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("out_dtype", [None, torch.float32, torch.float16, torch.bfloat16])
def test_resized_crop_batch_equals_the_chain(device, dtype, out_dtype):
    xs = image_list(n=5, dtype=dtype, device=device, seed=dtype.itemsize)
    g = torch.Generator().manual_seed(9)
    rows = []
    for x in xs:
        h, w = x.shape[-2:]
        bh, bw = int(torch.randint(1, h + 1, (1,), generator=g)), int(torch.randint(1, w + 1, (1,), generator=g))
        rows.append([int(torch.randint(0, h - bh + 1, (1,), generator=g)), int(torch.randint(0, w - bw + 1, (1,), generator=g)), bh, bw])
    boxes = torch.tensor(rows).to(device)
    flips = torch.tensor([True, False, True, True, False]).to(device)
    mean, std = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]) if out_dtype is not None else (None, None)
    out = F.resized_crop_batch(xs, boxes, [17, 23], hflip=flips, dtype=out_dtype, scale=True, mean=mean, std=std)
    assert out.shape == (5, 3, 17, 23) and out.dtype == (out_dtype or dtype) and out.device.type == device
    for i, x in enumerate(xs):
        y = F.resized_crop(x, *rows[i], [17, 23], antialias=True)
        if flips[i]:
            y = F.horizontal_flip(y)
        if out_dtype is not None:
            y = F.normalize(F.to_dtype(y, out_dtype, scale=True), mean, std)
        assert torch.equal(out[i], y), i


@pytest.mark.parametrize("device", DEVICES)
def test_resized_crop_batch_of_strong_downscales_equals_the_chain(device):
    """Boxes 40-900 columns wide down to 7 (more horizontal taps than the CUDA kernel keeps per
    column: its per-row fallback) and 3 to 500 rows down to 5, next to ordinary ones."""
    g = torch.Generator().manual_seed(21)
    xs = [torch.randint(0, 256, (3, h, w), dtype=torch.uint8, generator=g).to(device)
          for h, w in [(60, 900), (500, 40), (3, 650), (33, 47)]]
    rows = [[0, 0, 60, 900], [0, 1, 500, 39], [0, 10, 3, 640], [2, 3, 30, 40]]
    flips = torch.tensor([True, False, True, False]).to(device)
    out = F.resized_crop_batch(xs, torch.tensor(rows).to(device), [5, 7], hflip=flips, dtype=torch.float32,
                               mean=[0.5, 0.4, 0.3], std=[0.2, 0.25, 0.3])
    for i, x in enumerate(xs):
        y = F.resized_crop(x, *rows[i], [5, 7], antialias=True)
        if flips[i]:
            y = F.horizontal_flip(y)
        y = F.normalize(F.to_dtype(y, torch.float32, scale=True), [0.5, 0.4, 0.3], [0.2, 0.25, 0.3])
        assert torch.equal(out[i], y), i


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_resized_crop_batch_across_tiles_and_schedules_equals_the_chain(device, dtype, channels):
    """Outputs of several tiles with partial edge tiles (CUDA's tiled schedule: 32x16 output
    pixels a block), flipped and not, up- and downscaled; a 1900-column row down to 100 (the
    widest span the tiled schedule takes) and a batch with a 2100-column one (the two-pass
    schedule), and mild scales (two-pass too), each against the chain of functionals."""
    g = torch.Generator().manual_seed(5 + channels)

    def make(h, w):
        x = torch.randint(0, 256, (channels, h, w), dtype=torch.uint8, generator=g)
        return (x if dtype == torch.uint8 else x.to(dtype) / 255).to(device)

    cases = [
        ([(300, 500), (480, 640), (77, 1000), (20, 30)], [[10, 20, 280, 470], [0, 0, 480, 640], [5, 100, 60, 800], [2, 3, 9, 11]],
         [40, 70]),
        ([(50, 1900), (60, 700)], [[0, 0, 50, 1900], [3, 1, 57, 690]], [10, 100]),
        ([(50, 2100), (60, 700)], [[0, 0, 50, 2100], [3, 1, 57, 690]], [10, 100]),
        # Mild scales: float32 images take the two-pass schedule on CUDA (tiles from ~3x each way;
        # uint8 images take tiles at every scale).
        ([(60, 90), (45, 70), (30, 20)], [[0, 0, 60, 90], [5, 9, 31, 50], [2, 1, 27, 19]], [40, 70]),
    ]
    for sizes, rows, size in cases:
        xs = [make(h, w) for h, w in sizes]
        flips = torch.tensor([i % 2 == 0 for i in range(len(xs))])
        mean, std = [0.5, 0.4, 0.3, 0.2][:channels], [0.2, 0.25, 0.3, 0.35][:channels]
        out = F.resized_crop_batch(xs, torch.tensor(rows).to(device), size, hflip=flips.to(device), dtype=torch.float32,
                                   mean=mean, std=std)
        plain = F.resized_crop_batch(xs, torch.tensor(rows).to(device), size)
        for i, x in enumerate(xs):
            y = F.resized_crop(x, *rows[i], size, antialias=True)
            assert torch.equal(plain[i], y), (sizes[i], "no flip, no tail")
            if flips[i]:
                y = F.horizontal_flip(y)
            y = F.normalize(F.to_dtype(y, torch.float32, scale=True), mean, std)
            assert torch.equal(out[i], y), (sizes[i], size)


@pytest.mark.parametrize("device", DEVICES)
def test_resized_crop_batch_of_a_batch_tensor_equals_its_list(device):
    """A [N, C, H, W] tensor goes to C++ whole (its images become views there): the same result as
    its images as a list, for a contiguous, a channels_last and a strided (sliced) batch."""
    base = images(n=6, h=40, w=52, device=device, seed=4)
    boxes = torch.tensor([[0, 0, 40, 52], [3, 5, 20, 30], [10, 0, 11, 52], [0, 7, 40, 9], [1, 1, 2, 2], [20, 30, 19, 21]])
    flips = torch.tensor([True, False, False, True, True, False])
    for batch in (base, base.contiguous(memory_format=torch.channels_last), base[:, :, ::1, 1:]):
        b = boxes.clone()
        b[:, 3] = torch.minimum(b[:, 3], batch.shape[-1] - b[:, 1])
        args = (b.to(device), [13, 17])
        kw = dict(hflip=flips.to(device), dtype=torch.float32, mean=[0.5, 0.4, 0.3], std=[0.2, 0.3, 0.25])
        assert torch.equal(F.resized_crop_batch(batch, *args, **kw), F.resized_crop_batch(list(batch.unbind(0)), *args, **kw))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("flip", [True, False])
def test_resized_crop_batch_with_one_box_and_flip_on_the_host(device, flip):
    """Four ints and a bool serve every image (CUDA: in the kernel's arguments, nothing on the
    device): the same result as the [N, 4] and [N] tensors of those values, through both CUDA
    schedules (a strong downscale takes tiles), with a window and without."""
    g = torch.Generator().manual_seed(17 + flip)
    for h, w, box, size, window in [(90, 120, (3, 5, 80, 110), [9, 11], None), (90, 120, (0, 0, 90, 120), [60, 80], None),
                                    (64, 96, (0, 0, 64, 96), [16, 16], (20, 30, 2, 7))]:
        xs = [torch.randint(0, 256, (3, h, w), dtype=torch.uint8, generator=g).to(device) for _ in range(3)]
        kw = dict(dtype=torch.float32, mean=[0.5, 0.4, 0.3], std=[0.2, 0.25, 0.3], window=window)
        host = F.resized_crop_batch(xs, box, size, hflip=flip, **kw)
        tensors = F.resized_crop_batch(xs, torch.tensor([box] * 3).to(device), size, hflip=torch.tensor([flip] * 3).to(device), **kw)
        assert host.device.type == device and torch.equal(host, tensors)
        y = F.resized_crop(xs[1], *box, size if window is None else list(window[:2]), antialias=True)
        if window is not None:
            y = F.crop(y, window[2], window[3], *size)
        if flip:
            y = F.horizontal_flip(y)
        assert torch.equal(host[1], F.normalize(F.to_dtype(y, torch.float32, scale=True), [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]))


@pytest.mark.parametrize("device", DEVICES)
def test_resized_crop_batch_reads_a_strided_flip_tensor_by_its_strides(device):
    xs = image_list(n=3, device=device, seed=8)
    flips = torch.tensor([[True, False], [False, True], [True, True]]).to(device)[:, 0]  # stride 2
    boxes = torch.tensor([[0, 0, 5, 6]] * 3).to(device)
    assert torch.equal(F.resized_crop_batch(xs, boxes, [4, 5], hflip=flips), F.resized_crop_batch(xs, boxes, [4, 5], hflip=flips.clone()))


def test_resized_crop_batch_checks_its_arguments():
    xs = image_list(n=2)
    with pytest.raises(ValueError, match=r"boxes.*int64 \[2, 4\]"):
        F.resized_crop_batch(xs, torch.zeros(3, 4, dtype=torch.int64), [8, 8])
    with pytest.raises(ValueError, match=r"boxes\[1\].*inside"):
        F.resized_crop_batch(xs, torch.tensor([[0, 0, 5, 5], [0, 0, 500, 5]]), [8, 8])
    with pytest.raises(ValueError, match=r"hflip.*bool \[2\]"):
        F.resized_crop_batch(xs, torch.tensor([[0, 0, 5, 5], [0, 0, 5, 5]]), [8, 8], hflip=torch.ones(2))
    with pytest.raises(ValueError, match=r"boxes.*4 ints"):
        F.resized_crop_batch(xs, (0, 0, 5), [8, 8])
    with pytest.raises(ValueError, match=r"boxes\[1\].*inside"):  # one box, checked against each image
        F.resized_crop_batch([xs[0], xs[1][:, :4]], (0, 0, 5, 5), [8, 8])
    with pytest.raises(ValueError, match=r"images\[1\]"):
        F.resized_crop_batch([xs[0], xs[1][:1]], torch.tensor([[0, 0, 5, 5], [0, 0, 5, 5]]), [8, 8])
    with pytest.raises(ValueError, match=r"images.*\[N, C, H, W\]"):
        F.resized_crop_batch(torch.zeros(3, 8, 8, dtype=torch.uint8), torch.zeros(3, 4, dtype=torch.int64), [8, 8])
    with pytest.raises(ValueError, match=r"images.*\[N, C, H, W\]"):
        F.resized_crop_batch(torch.zeros(0, 3, 8, 8, dtype=torch.uint8), torch.zeros(0, 4, dtype=torch.int64), [8, 8])


# ---- fusion ------------------------------------------------------------------------------------------------
def _pipelines():
    norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    return {
        "rrc-flip-todtype-normalize": lambda ps: [T.RandomResizedCrop(24, per_sample=ps), T.RandomHorizontalFlip(per_sample=ps),
                                                  T.ToDtype(torch.float32, scale=True), norm],
        "rrc-half": lambda ps: [T.RandomResizedCrop(24, per_sample=ps), T.ToDtype(torch.float16, scale=True)],
        "resize-flip-bf16": lambda ps: [T.Resize([20, 30]), T.RandomHorizontalFlip(per_sample=ps),
                                        T.ToDtype(torch.bfloat16, scale=True), norm],
        "centercrop-flip-todtype": lambda ps: [T.CenterCrop(22), T.RandomHorizontalFlip(per_sample=ps),
                                               T.ToDtype(torch.float32, scale=True)],
        # ColorJitter in the chain: crop, then one jitter pass that converts and normalizes.
        "rrc-flip-jitter-todtype-normalize": lambda ps: [
            T.RandomResizedCrop(24, per_sample=ps), T.RandomHorizontalFlip(per_sample=ps),
            T.ColorJitter(0.4, 0.4, 0.4, 0.1, per_sample=ps), T.ToDtype(torch.float32, scale=True), norm],
        "resize-jitter-half": lambda ps: [T.Resize([20, 30]), T.ColorJitter(contrast=0.5, hue=0.2, per_sample=ps),
                                          T.ToDtype(torch.float16, scale=True)],
        "centercrop-flip-jitter-bf16-normalize": lambda ps: [
            T.CenterCrop(22), T.RandomHorizontalFlip(per_sample=ps), T.ColorJitter(brightness=0.5, saturation=0.6, per_sample=ps),
            T.ToDtype(torch.bfloat16, scale=True), norm],
        "rrc-jitter": lambda ps: [T.RandomResizedCrop(24, per_sample=ps), T.ColorJitter(0.3, 0.3, 0.3, per_sample=ps)],
    }


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("per_sample", [False, True])
@pytest.mark.parametrize("name", sorted(_pipelines()))
def test_fused_compose_equals_unfused(device, per_sample, name):
    steps = _pipelines()[name](per_sample)
    x = images(n=6, h=37, w=45, device=device)
    one_draw_of_one_size = not per_sample and name.startswith("rrc")  # an ImageList needs per-sample crops
    for inpt in (x,) if one_draw_of_one_size else (x, T.ImageList(image_list(device=device))):
        torch.manual_seed(21)
        fused = T.Compose(steps, fuse=True)(inpt)
        torch.manual_seed(21)
        unfused = T.Compose(steps, fuse=False)(inpt)
        assert isinstance(fused, torch.Tensor) and fused.shape == unfused.shape
        assert fused.dtype == unfused.dtype and torch.equal(fused, unfused)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["rrc-flip-todtype-normalize", "resize-crop", "rrc-jitter"])
def test_fused_compose_keeps_channels_last(device, name):
    """A channels-last batch gives a channels-last result, fused or not, per-sample or not (as the
    per-image ops keep their input's layout), with the same values; a contiguous one stays so."""
    steps = {
        "rrc-flip-todtype-normalize": lambda ps: [T.RandomResizedCrop(24, per_sample=ps), T.RandomHorizontalFlip(per_sample=ps),
                                                  T.ToDtype(torch.float32, scale=True), T.Normalize([0.5] * 3, [0.2] * 3)],
        "resize-crop": lambda ps: [T.Resize(30), T.CenterCrop(24), T.ToDtype(torch.float32, scale=True)],
        "rrc-jitter": lambda ps: [T.RandomResizedCrop(24, per_sample=ps), T.ColorJitter(0.3, 0.3, 0.3, per_sample=ps),
                                  T.ToDtype(torch.float32, scale=True)],
    }[name]
    x = images(n=4, h=37, w=45, device=device)
    for layout in (torch.contiguous_format, torch.channels_last):
        xi = x.contiguous(memory_format=layout)
        for per_sample in (False, True):
            results = []
            for fuse in (True, False):
                torch.manual_seed(5)
                results.append(T.Compose(steps(per_sample), fuse=fuse)(xi))
            for out in results:
                assert out.is_contiguous(memory_format=layout), (layout, per_sample)
            assert torch.equal(results[0], results[1])


@pytest.mark.parametrize("device", DEVICES)
def test_resized_crop_batch_memory_format(device):
    xs = image_list(n=3, device=device, seed=12)
    boxes = torch.tensor([[0, 0, 5, 6]] * 3).to(device)
    plain = F.resized_crop_batch(xs, boxes, [4, 5], dtype=torch.float32)
    cl = F.resized_crop_batch(xs, boxes, [4, 5], dtype=torch.float32, memory_format=torch.channels_last)
    assert plain.is_contiguous() and cl.is_contiguous(memory_format=torch.channels_last) and not cl.is_contiguous()
    assert torch.equal(plain, cl)
    with pytest.raises(ValueError, match="memory_format"):
        F.resized_crop_batch(xs, boxes, [4, 5], memory_format=torch.preserve_format)


def test_fusion_is_used():
    """The fused chain makes one batch call (not the per-image functionals): by default for a
    per-sample chain, with fuse=True for one shared draw; fuse=False never."""
    from unittest import mock

    x = images(n=4)
    steps = lambda ps: [T.RandomResizedCrop(16, per_sample=ps), T.ToDtype(torch.float32, scale=True)]  # noqa: E731
    for pipe in (T.Compose(steps(True)), T.Compose(steps(False), fuse=True)):
        with mock.patch.object(F, "resized_crop", side_effect=AssertionError("per-image op called")):
            out = pipe(x)
        assert out.shape == (4, 3, 16, 16)
    with mock.patch.object(F, "resized_crop_batch", side_effect=AssertionError("batch op called")):
        T.Compose(steps(False))(x[0])  # default: one shared draw runs unfused
    calls, real = [], F.to_dtype
    with mock.patch.object(F, "to_dtype", side_effect=lambda *a, **k: calls.append(1) or real(*a, **k)):
        T.Compose(steps(True), fuse=False)(x)
    assert calls, "fuse=False: ToDtype runs on its own"


@pytest.mark.parametrize("device", DEVICES)
def test_fusion_with_color_jitter_is_one_jitter_call(device):
    """A chain with ColorJitter runs as the crop's batch call and one color_jitter_batch call that
    also converts and normalizes (no separate ToDtype or Normalize), per-sample and with one shared
    draw (fuse=True), on a batch tensor and on an ImageList; float32 images too."""
    from unittest import mock

    norm = T.Normalize([0.5, 0.4, 0.3], [0.2, 0.3, 0.25])
    for ps, fuse in ((True, "auto"), (False, True)):
        steps = [T.RandomResizedCrop(16, per_sample=ps), T.RandomHorizontalFlip(per_sample=ps),
                 T.ColorJitter(0.4, 0.4, 0.4, 0.1, per_sample=ps), T.ToDtype(torch.float32, scale=True), norm]
        inputs = [images(n=4, device=device), images(n=4, device=device).to(torch.float32) / 255]
        if ps:
            inputs.append(T.ImageList(image_list(device=device)))
        for x in inputs:
            calls, real = [], F.color_jitter_batch
            spy = lambda *a, **k: calls.append(k) or real(*a, **k)  # noqa: E731
            with mock.patch.object(F, "color_jitter_batch", side_effect=spy), \
                    mock.patch.object(F, "to_dtype", side_effect=AssertionError("ToDtype ran on its own")), \
                    mock.patch.object(F, "normalize", side_effect=AssertionError("Normalize ran on its own")):
                out = T.Compose(steps, fuse=fuse)(x)
            assert out.dtype == torch.float32 and out.shape[-2:] == (16, 16)
            assert len(calls) == 1 and calls[0]["dtype"] == torch.float32 and calls[0]["mean"] is not None


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.float16])
def test_color_jitter_batch_tail_equals_the_separate_ops(device, dtype):
    """color_jitter_batch(..., dtype, scale, mean, std) equals the jitter, then to_dtype, then
    normalize, bit for bit: every order, all ops or some, float32/float16/bfloat16 outputs, with and
    without scale; contiguous and channels_last images (float16 images: the separate-ops path)."""
    import itertools

    g = torch.Generator().manual_seed(9)
    perms = list(itertools.permutations(range(4)))
    n = len(perms)
    base = torch.randint(0, 256, (n, 3, 13, 19), dtype=torch.uint8, generator=g)
    x = (base if dtype == torch.uint8 else (base.to(dtype) / 255)).to(device)
    factors = torch.stack([torch.rand(n, generator=g, dtype=torch.float64) * 1.2 + 0.4,
                           torch.rand(n, generator=g, dtype=torch.float64) * 1.2 + 0.4,
                           torch.rand(n, generator=g, dtype=torch.float64) * 1.2 + 0.4,
                           torch.rand(n, generator=g, dtype=torch.float64) * 0.6 - 0.3], 1).to(device)
    order = torch.tensor(perms, dtype=torch.int64).to(device)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    for layout in (torch.contiguous_format, torch.channels_last):
        xi = x.contiguous(memory_format=layout)
        for enabled in ((True, True, True, True), (True, False, True, False), (False, True, False, True)):
            plain = F.color_jitter_batch(xi, factors, order, enabled)
            for out_dtype, scale, norm in ((torch.float32, True, True), (torch.float16, True, True),
                                           (torch.bfloat16, True, False), (torch.float32, False, False)):
                got = F.color_jitter_batch(xi, factors, order, enabled, dtype=out_dtype, scale=scale,
                                           mean=mean if norm else None, std=std if norm else None)
                want = F.to_dtype(plain, out_dtype, scale=scale)
                if norm:
                    want = F.normalize(want, mean, std)
                assert got.dtype == out_dtype and torch.equal(got, want), (layout, enabled, out_dtype, scale, norm)


def test_color_jitter_batch_tail_checks_its_arguments():
    x = images(n=2)
    f, o = torch.ones(2, 4, dtype=torch.float64), torch.tensor([[0, 1, 2, 3]] * 2)
    f[:, 3] = 0
    with pytest.raises(TypeError, match=r"color_jitter_batch: argument 'mean'.*float output dtype"):
        F.color_jitter_batch(x, f, o, mean=[0.5], std=[0.5])
    with pytest.raises(ValueError, match=r"argument 'std'.*non-zero"):
        F.color_jitter_batch(x, f, o, dtype=torch.float32, mean=[0.5], std=[0.0])
    with pytest.raises(ValueError, match=r"argument 'mean'.*1 or 3 values"):
        F.color_jitter_batch(x, f, o, dtype=torch.float32, mean=[0.5, 0.5], std=[0.5, 0.5])
    with pytest.raises(ValueError, match=r"mean/std.*both or neither"):
        F.color_jitter_batch(x, f, o, dtype=torch.float32, mean=[0.5])


# ---- CUDA: device parameters, one launch, graphs ----------------------------------------------------------
@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_cuda_per_sample_parameters_live_on_the_device():
    x = images(n=8, device="cuda")
    for t in (T.RandomResizedCrop(24, per_sample=True), T.RandomHorizontalFlip(per_sample=True)):
        p = t.sample_params(x)
        assert all(v.device.type == "cuda" for v in p.values() if isinstance(v, torch.Tensor))
        out = t.apply(x, p)
        for i in range(8):
            ref = t.transform(x[i], {k: int(v[i]) for k, v in p.items() if k != "applied"}) if bool(p["applied"][i]) else x[i]
            assert torch.equal(out[i], ref)


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
def test_cuda_color_jitter_per_sample_equals_the_functionals():
    x = images(n=6, device="cuda")
    for t in (T.ColorJitter(0.4, 0.4, 0.4, 0.1, per_sample=True), T.ColorJitter(brightness=0.5, saturation=0.3, per_sample=True)):
        p = t.sample_params(x)
        assert p["order"].device.type == "cuda"
        out = t.apply(x, p)
        for i in range(6):
            single = {"order": p["order"][i].tolist()}
            for k in ("b", "c", "s", "h"):
                single[k] = float(p[k][i]) if k in p else None
            assert torch.equal(out[i], t.transform(x[i], single)), i


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@needs_caching_allocator
def test_cuda_graph_replays_draw_new_parameters():
    """The issue's pipeline captured in a CUDA graph: every replay draws new parameters on the
    device, and its output equals the eager apply with that replay's parameters."""
    x = images(n=8, h=64, w=80, device="cuda")
    rrc = T.RandomResizedCrop(32, per_sample=True)
    flip = T.RandomHorizontalFlip(per_sample=True)
    jitter = T.ColorJitter(0.4, 0.4, 0.4, per_sample=True)
    tail = [T.ToDtype(torch.float32, scale=True), T.Normalize([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])]

    def step():
        p1 = rrc.sample_params(x)
        y = rrc.apply(x, p1)
        p2 = flip.sample_params(y)
        y = flip.apply(y, p2)
        p3 = jitter.sample_params(y)
        y = jitter.apply(y, p3)
        for t in tail:
            y = t(y)
        return p1, p2, p3, y

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            step()  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        p1, p2, p3, out = step()
    results = []
    for _ in range(3):
        g.replay()
        torch.cuda.synchronize()
        ref = jitter.apply(flip.apply(rrc.apply(x, p1), p2), p3)
        for t in tail:
            ref = t(ref)
        assert torch.equal(out, ref)
        results.append(out.clone())
    assert not torch.equal(results[0], results[1]) and not torch.equal(results[1], results[2])


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("kind", ["variable-size list", "uniform batch"])
def test_per_sample_pipeline_does_not_make_the_host_wait(kind):
    """The per-sample fused pipeline (device draws, the images' sizes sent up, one batch kernel)
    queued behind a ~100 ms sleep returns while the sleep still runs: nothing in it waits on the
    host for the stream (a copy from pageable memory that synchronised would). Its result is the
    same as the same pipeline's on an idle stream with the same generator state."""
    if kind == "uniform batch":
        x = torch.randint(0, 256, (16, 3, 300, 400), dtype=torch.uint8, device="cuda")
    else:
        x = [torch.randint(0, 256, (3, 300 + 7 * i, 400 - 5 * i), dtype=torch.uint8, device="cuda") for i in range(16)]
    pipeline = T.Compose([T.RandomResizedCrop(224, antialias=True, per_sample=True),
                          T.RandomHorizontalFlip(per_sample=True), T.ToDtype(torch.float32, scale=True),
                          T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    pipeline(x)  # warm-up: kernel loading waits for the device once
    torch.cuda.synchronize()
    state = torch.cuda.get_rng_state()
    expected = pipeline(x)
    torch.cuda.synchronize()
    torch.cuda.set_rng_state(state)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # about 100 ms on the H200
        out = pipeline(x)
        busy = not side.query()
    side.synchronize()
    assert torch.equal(out, expected)
    if not UNDER_SANITIZER:  # the sanitizer runs API calls and kernels one after another
        assert busy, f"the per-sample pipeline on a {kind} waited on the host for the queued sleep"
