"""torch.compile: the functionals are torch.library custom ops (torch.ops.streamvision.*), so a
compiled pipeline is one graph with one node per op; compiled results equal eager ones exactly;
the fake implementations give the shapes, dtypes and strides the C++ ops produce; transform
classes with fixed parameters compile into one graph."""

import inspect
import re

import pytest

from conftest import HAVE_TORCH, HAVE_TORCHVISION, needs_cuda, needs_torch

pytestmark = needs_torch

if HAVE_TORCH:
    import torch

    import streamvision._C as C
    import streamvision.transforms.v2 as T
    import streamvision.transforms.v2.functional as F
    from streamvision.transforms.v2.functional import _kernels, _torch_ops

    ops = torch.ops.streamvision

DEVICES = ["cpu", pytest.param("cuda", marks=needs_cuda)]


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    # Transform.forward is one code object for every transform: compiled entries of one test
    # must not count against the recompile limit of the next.
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class GraphRecorder:
    """A torch.compile backend that keeps the FX graphs and runs them as they are."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward

    def calls(self):
        """The targets of the call_function nodes over all graphs: "streamvision.<op>" for ours."""
        return [n.target if n.target is torch.rand else str(n.target)
                for gm in self.graphs for n in gm.graph.nodes if n.op == "call_function"]


def image(device, dtype=torch.uint8 if HAVE_TORCH else None, shape=(3, 30, 40), seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)
    return x.to(dtype=dtype, device=device)


def pipeline(x):
    x = F.resize(x, [24, 28], antialias=True)
    x = F.center_crop(x, [20])
    x = F.horizontal_flip(x)
    x = F.vertical_flip(x)
    x = F.pad(x, [2, 1], fill=7, padding_mode="constant")
    x = F.rotate(x, 30.0, interpolation=T.InterpolationMode.BILINEAR, expand=True)
    x = F.adjust_brightness(x, 1.2)
    x = F.to_dtype(x, torch.float32, scale=True)
    x = F.gaussian_blur(x, [3, 3], [0.8])
    return F.normalize(x, [0.5, 0.4, 0.3], [0.2, 0.25, 0.3])


PIPELINE_OPS = ["resize", "center_crop", "horizontal_flip", "vertical_flip", "pad", "rotate", "adjust_brightness", "to_dtype",
                "gaussian_blur", "normalize"]


@pytest.mark.parametrize("device", DEVICES)
def test_functional_pipeline_is_one_graph_of_single_nodes(device):
    x = image(device)
    recorder = GraphRecorder()
    out = torch.compile(pipeline, fullgraph=True, backend=recorder)(x)
    assert len(recorder.graphs) == 1
    # one node per op, nothing else: no decomposition, no graph break
    assert recorder.calls() == [f"streamvision.{op}" for op in PIPELINE_OPS]
    assert torch.equal(out, pipeline(x))


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
@pytest.mark.parametrize("device", DEVICES)
def test_compiled_pipeline_equals_eager(device, backend):
    # inductor checks at run time that every op's result has the size and strides its fake promised
    for layout in ("contiguous", "channels_last"):
        x = image(device, shape=(2, 3, 30, 40))
        if layout == "channels_last":
            x = x.contiguous(memory_format=torch.channels_last)
        out = torch.compile(pipeline, fullgraph=True, backend=backend)(x)
        assert torch.equal(out, pipeline(x)), layout


def deterministic_compose():
    return T.Compose([T.Resize(24), T.CenterCrop(20), T.RandomHorizontalFlip(p=1.0), T.ToDtype(torch.float32, scale=True),
                      T.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.3])])


@pytest.mark.parametrize("device", DEVICES)
def test_compose_of_fixed_transforms_is_one_graph(device):
    compose = deterministic_compose()
    x = image(device)
    recorder = GraphRecorder()
    out = torch.compile(compose, fullgraph=True, backend=recorder)(x)
    assert len(recorder.graphs) == 1
    # the ops, and RandomHorizontalFlip(p=1)'s draw, which eager makes too (the same random stream)
    assert recorder.calls() == ["streamvision.resize", "streamvision.center_crop", torch.rand,
                                "streamvision.horizontal_flip", "streamvision.to_dtype", "streamvision.normalize"]
    assert torch.equal(out, compose(x))
    assert torch.equal(torch.compile(compose, fullgraph=True)(x), compose(x))  # inductor


def test_structured_samples():
    """A tuple of tensors stays one graph (the label passes through); a dict with an int label
    breaks the graph (in the PIL check of the leaf selection) and stays correct."""
    compose = deterministic_compose()
    x, label = image("cpu"), torch.tensor(5)
    want = compose(x)
    out, out_label = torch.compile(compose, fullgraph=True, backend="aot_eager")((x, label))
    assert torch.equal(out, want) and torch.equal(out_label, label)
    torch._dynamo.reset()
    out = torch.compile(compose, backend="aot_eager")({"image": x, "label": 3, "name": "a"})
    assert torch.equal(out["image"], want) and out["label"] == 3 and out["name"] == "a"


@pytest.mark.parametrize("strict", [False, True])
def test_torch_export(strict):
    """torch.export sees the same ops (the wrappers check torch.compiler.is_compiling(), which
    non-strict export sets too)."""
    compose = deterministic_compose()
    x = image("cpu")
    program = torch.export.export(compose, (x,), strict=strict)
    calls = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
    assert [c for c in calls if c.startswith("streamvision.")] == [
        "streamvision.resize.default", "streamvision.center_crop.default", "streamvision.horizontal_flip.default",
        "streamvision.to_dtype.default", "streamvision.normalize.default"]
    assert torch.equal(program.module()(x), compose(x))


def random_compose(M):
    return M.Compose([M.RandomResizedCrop(20), M.RandomHorizontalFlip(), M.ColorJitter(0.3, 0.3, 0.3, 0.05),
                      M.RandomRotation(15), M.ToDtype(torch.float32, scale=True)])


def test_random_transforms_compile_with_graph_breaks_as_torchvisions_do():
    """Random parameters are drawn on the host (float(torch.rand(1)), as torchvision reads its
    draws back too): each draw breaks the graph, and the compiled transform still equals the
    eager one under the same seed (aot_eager draws with torch's own generator)."""
    compose = random_compose(T)
    x = image("cpu")
    explained = torch._dynamo.explain(compose)(x)
    assert explained.graph_break_count > 0
    torch._dynamo.reset()
    if HAVE_TORCHVISION:
        import torchvision.transforms.v2 as TT

        assert torch._dynamo.explain(random_compose(TT))(x).graph_break_count > 0
        torch._dynamo.reset()
    compiled = torch.compile(compose, backend="aot_eager")
    try:
        for seed in range(3):
            torch.manual_seed(seed)
            want = compose(x)
            torch.manual_seed(seed)
            assert torch.equal(compiled(x), want), seed
    finally:
        torch._dynamo.reset()  # compiled frames of shared code must not outlive the test


@pytest.mark.parametrize("device", DEVICES)
def test_in_place_ops_mutate_their_input_under_compile(device):
    def fn(x):
        F.normalize(x, [0.5], [0.25], inplace=True)
        F.erase(x, 2, 3, 4, 5, torch.zeros(3, 1, 1, device=x.device), inplace=True)
        return x * 2

    x = image(device, torch.float32) / 255
    eager_x, compiled_x = x.clone(), x.clone()
    want = fn(eager_x)
    recorder = GraphRecorder()
    got = torch.compile(fn, fullgraph=True, backend=recorder)(compiled_x)
    assert torch.equal(got, want) and torch.equal(compiled_x, eager_x)
    assert [t for t in recorder.calls() if str(t).startswith("streamvision.")] == ["streamvision.normalize_",
                                                                                   "streamvision.erase_"]
    compiled_x = x.clone()
    assert torch.equal(torch.compile(fn, fullgraph=True)(compiled_x), want) and torch.equal(compiled_x, eager_x)


@pytest.mark.parametrize("device", DEVICES)
def test_list_results_and_metadata_functions_under_compile(device):
    def fn(x):
        c, h, w = F.get_dimensions(x)
        crops = F.ten_crop(x, [h // 2, w // 2], vertical_flip=True)
        return crops, F.get_num_channels(x) * c, F.get_size(x)

    x = image(device)
    got_crops, got_c, got_size = torch.compile(fn, fullgraph=True, backend="aot_eager")(x)
    want_crops, want_c, want_size = fn(x)
    assert isinstance(got_crops, tuple) and len(got_crops) == 10
    assert all(torch.equal(a, b) for a, b in zip(got_crops, want_crops))
    assert got_c == want_c and list(got_size) == list(want_size)


def test_aliasing_results_are_copies_under_compile():
    """Eager, to_dtype to the same dtype returns its input; a custom op may not alias its
    input, so the compiled op returns a copy (equal values, its own memory)."""
    x = torch.rand(3, 8, 8)
    assert F.to_dtype(x, torch.float32) is x
    out = torch.compile(lambda t: F.to_dtype(t, torch.float32), fullgraph=True, backend="aot_eager")(x)
    assert torch.equal(out, x) and out.data_ptr() != x.data_ptr()


def test_stream_and_generator_are_refused_while_tracing():
    x = torch.rand(3, 8, 8)
    with pytest.raises(Exception, match="argument 'stream': expected None under torch.compile"):
        torch.compile(lambda t: F.resize(t, [4, 4], stream=1), fullgraph=True, backend="eager")(x)
    generator = C.Generator(1)
    with pytest.raises(Exception, match="argument 'generator': expected None under torch.compile"):
        torch.compile(lambda t: F.gaussian_noise(t, generator=generator), fullgraph=True, backend="eager")(x)


# ---- the ops themselves: every registered op, its fake against the C++ result ------------------

def _cases():
    """(op name, functional arguments after the image, image shape, dtype) for every op."""
    fl, u8 = torch.float32, torch.uint8
    return [
        ("horizontal_flip", (), (2, 3, 12, 16), u8), ("vertical_flip", (), (3, 12, 16), fl),
        ("to_dtype", (torch.float32, True), (2, 3, 12, 16), u8), ("normalize", ([0.5] * 3, [0.2] * 3), (3, 12, 16), fl),
        ("normalize_", ([0.5] * 3, [0.2] * 3), (3, 12, 16), fl), ("to_channels_last", (), (2, 3, 12, 16), fl),
        ("to_contiguous", (), (2, 3, 12, 16), u8), ("resize", ([7, 9], "bilinear", None, True), (2, 3, 12, 16), fl),
        ("resize", ([6], None, 10, True), (3, 12, 16), u8), ("crop", (2, -1, 8, 20), (2, 3, 12, 16), u8),
        ("center_crop", ([5],), (3, 12, 16), fl), ("resized_crop", (1, 2, 8, 9, [5, 6], "bicubic", True), (3, 12, 16), fl),
        ("resized_crop", (-1, 2, 8, 9, [5, 6], "bilinear", True), (2, 3, 12, 16), u8),
        ("five_crop", ([5, 6],), (2, 3, 12, 16), u8), ("ten_crop", ([5, 6], True), (3, 12, 16), fl),
        ("pad", ([1, 2, 3, 4], [1.0], "constant"), (2, 3, 12, 16), fl), ("pad", ([2], None, "reflect"), (3, 12, 16), u8),
        ("rotate", (30.0, "bilinear", True, None, None), (2, 3, 12, 16), fl), ("rotate", (90.0, None, True, None, None), (3, 12, 16), u8),
        ("affine", (10.0, [1.0, 2.0], 1.1, [3.0, 0.0], "nearest", [0.5], None), (3, 12, 16), fl),
        ("perspective", ([0, 0, 15, 0, 15, 11, 0, 11], [1, 1, 14, 0, 15, 10, 0, 11], "bilinear", None, None), (2, 3, 12, 16), fl),
        ("elastic", (torch.rand(1, 12, 16, 2) * 0.05, "bilinear", None), (3, 12, 16), fl),
        ("rgb_to_grayscale", (3,), (2, 3, 12, 16), u8), ("grayscale_to_rgb", (), (1, 12, 16), u8),
        ("adjust_brightness", (1.2,), (3, 12, 16), u8), ("adjust_saturation", (0.5,), (2, 3, 12, 16), fl),
        ("adjust_contrast", (0.5,), (3, 12, 16), u8), ("adjust_sharpness", (2.0,), (3, 12, 16), fl),
        ("adjust_hue", (0.1,), (3, 12, 16), fl), ("adjust_gamma", (0.8, 1.0), (3, 12, 16), u8), ("invert", (), (3, 12, 16), u8),
        ("posterize", (3,), (3, 12, 16), u8), ("solarize", (128.0,), (3, 12, 16), u8), ("autocontrast", (), (2, 3, 12, 16), fl),
        ("equalize", (), (3, 12, 16), u8), ("equalize", (), (12, 16), u8), ("permute_channels", ([2, 0, 1],), (3, 12, 16), fl),
        ("gaussian_blur", ([3, 5], [1.0, 2.0]), (2, 3, 12, 16), fl), ("gaussian_noise", (0.0, 0.1, True), (3, 12, 16), fl),
        ("erase", (1, 2, 3, 4, torch.zeros(3, 1, 1)), (3, 12, 16), fl), ("erase_", (1, 2, 3, 4, torch.zeros(3, 1, 1)), (3, 12, 16), fl),
    ]


CASES = _cases() if HAVE_TORCH else []


def _registered_ops():
    return {name for name in dir(ops) if isinstance(getattr(ops, name), torch._ops.OpOverloadPacket)}


def test_every_registered_op_is_covered():
    assert {name for name, *_ in CASES} == _registered_ops()


def _layouts(shape, dtype):
    """The image in several memory layouts, all holding the same values."""
    g = torch.Generator().manual_seed(1)
    base = torch.randint(0, 256, shape, generator=g).to(dtype) / (255 if dtype.is_floating_point else 1)
    base = base.to(dtype)
    yield "contiguous", base
    rank = len(shape)
    if rank >= 3:  # channels innermost, at any rank
        order = [*range(rank - 3), rank - 2, rank - 1, rank - 3]
        yield "channels_last", base.permute(order).contiguous().permute([order.index(d) for d in range(rank)])
    wide = torch.zeros((*shape[:-1], shape[-1] + 3), dtype=dtype)
    yield "sliced", wide[..., 1:shape[-1] + 1].copy_(base)
    yield "transposed", base.transpose(-1, -2).contiguous().transpose(-1, -2)
    if rank == 4:
        yield "batch_outer", torch.empty((shape[1], shape[0], *shape[2:]), dtype=dtype).transpose(0, 1).copy_(base)


def _on_meta(t):
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


def _significant(t):
    return tuple((n, s) for n, s in zip(t.shape, t.stride()) if n > 1)


def _eager_call(name, t, args):
    if name == "perspective":
        pairs = [[args[k][i:i + 2] for i in range(0, 8, 2)] for k in (0, 1)]
        return C.perspective(t, *pairs, *args[2:])
    if name in ("normalize_", "erase_"):
        return getattr(C, name[:-1])(t, *args, True)
    return getattr(C, name)(t, *args)


def _case_id(case):
    name, _, shape, dtype = case
    return f"{name}-{'x'.join(map(str, shape))}-{str(dtype).replace('torch.', '')}"


def _on_device(args, device):
    return tuple(a.to(device) if isinstance(a, torch.Tensor) else a for a in args)


def _opcheck(case, device):
    name, args, shape, dtype = case
    x = next(_layouts(shape, dtype))[1].to(device)
    utils = ["test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic"]
    if name == "gaussian_noise":
        utils.remove("test_aot_dispatch_dynamic")  # random: two runs never agree
    torch.library.opcheck(getattr(ops, name), (x, *_on_device(args, device)), test_utils=utils)


def _check_fake_against_cpp(case, device):
    """The fake's shape, dtype and (significant) strides are those of the C++ result itself, for
    several input layouts: the custom op then returns the C++ result without a copy (except where
    the C++ op returns its input or a view of it, which is copied into the fake's layout)."""
    name, args, shape, dtype = case
    args = _on_device(args, device)
    for layout, x in _layouts(shape, dtype):
        x = torch.empty_strided(x.shape, x.stride(), dtype=dtype, device=device).copy_(x)
        real = _eager_call(name, x, args)
        fake = getattr(ops, name)(_on_meta(x), *args)
        reals = real if isinstance(real, tuple) else (real,)
        fakes = fake if isinstance(fake, list) else [fake]
        assert len(reals) == len(fakes)
        for r, f in zip(reals, fakes):
            assert (tuple(r.shape), r.dtype) == (tuple(f.shape), f.dtype), layout
            # The C++ result is the input or a view of it (an in-bounds crop): the op copies it
            # into the fake's layout (checked below), any layout is right.
            if r is not x and r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr():
                assert _significant(r) == _significant(f), (layout, r.stride(), f.stride())
        if name == "gaussian_noise":
            continue
        ours = getattr(ops, name)(x, *args)
        for r, o in zip(reals, ours if isinstance(ours, list) else [ours]):
            assert torch.equal(r, o), layout
            assert r.numel() == 0 or o.data_ptr() != x.data_ptr(), layout  # never the input itself


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_opcheck(case):
    _opcheck(case, "cpu")


@pytest.mark.parametrize("case", [c for c in CASES if not c[0].endswith("_")], ids=_case_id)
def test_fake_gives_the_cpp_results_metadata(case):
    _check_fake_against_cpp(case, "cpu")


@needs_cuda
def test_ops_on_cuda():
    for case in CASES:
        _opcheck(case, "cuda")
        if not case[0].endswith("_"):
            _check_fake_against_cpp(case, "cuda")


def test_fake_reports_bad_arguments_while_tracing():
    """Size-changing ops run the C++ size rules on an empty image: their errors come at trace time."""
    with pytest.raises(ValueError, match="max_size"):
        ops.resize(torch.empty(3, 10, 12, device="meta"), [5, 6], None, 20, True)
    with pytest.raises(ValueError, match="at least 3 dims"):
        ops.rotate(torch.empty(10, 12, device="meta"), 10.0, None, True, None, None)


# ---- the eager entry points keep their signatures ----------------------------------------------

def _nb_parameters(fn):
    """(name, kind, default) of a nanobind function's parameters, from its __nb_signature__."""
    text, _, defaults = fn.__nb_signature__[0]
    params = re.match(r"def \w+\((.*)\) ->", text).group(1)
    out, keyword_only = [], False
    for part in params.split(", "):
        if part == "*":
            keyword_only = True
            continue
        name = part.split(":")[0]
        default = re.search(r"= \\(\d+)$", part)
        out.append((name, "KEYWORD_ONLY" if keyword_only else "POSITIONAL_OR_KEYWORD",
                    defaults[int(default.group(1))] if default else inspect.Parameter.empty))
    return out


@pytest.mark.parametrize("name", _kernels.__all__ if HAVE_TORCH else [])
def test_wrappers_and_adapters_have_the_functionals_signatures(name):
    want = _nb_parameters(getattr(C, name))
    for fn in (getattr(_kernels, name), getattr(_torch_ops, name)):
        got = [(p.name, p.kind.name, p.default) for p in inspect.signature(fn).parameters.values()]
        assert got == want, fn
    assert getattr(_kernels, name).__doc__ == getattr(C, name).__doc__
