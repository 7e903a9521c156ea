"""The CPU engine (issue 13 parts 2 and 5, issue 15 part 6): crops inside the image are views of
the input (torch and numpy), uint8 resize equals torchvision's CPU result bit for bit at sizes
the fast paths take (large, channels 1/3/4, batched, contiguous and HWC-strided), results do not
depend on the thread count, the x86-64-v3 copies of the hot loops give the baseline's bits, and
the thread pool works in a forked child."""

import os
import random
import subprocess
import sys

import numpy as np
import pytest

from conftest import HAVE_TORCH, HAVE_TORCHVISION, needs_torchvision

import streamvision.transforms.v2.functional as F

if HAVE_TORCH:
    import torch
if HAVE_TORCH and HAVE_TORCHVISION:
    import torchvision.transforms.v2.functional as TF
    from torchvision.transforms import InterpolationMode as IM

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="needs torch")


# ---- crops are views --------------------------------------------------------------------------

@needs_torchvision
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "sliced"])
def test_torch_crop_inside_is_a_view_like_torchvision(layout):
    x = torch.randint(0, 256, (2, 3, 20, 30), dtype=torch.uint8)
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    elif layout == "sliced":
        x = torch.randint(0, 256, (2, 3, 24, 36), dtype=torch.uint8)[..., 2:22, 3:33]
    for sv, tv in [(F.crop(x, 3, 4, 10, 12), TF.crop(x, 3, 4, 10, 12)),
                   (F.center_crop(x, [8, 9]), TF.center_crop(x, [8, 9])),
                   *zip(F.five_crop(x, [5, 6]), TF.five_crop(x, [5, 6])),
                   *zip(F.ten_crop(x, [5, 6])[:5], TF.ten_crop(x, [5, 6])[:5])]:
        assert sv.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert (sv.storage_offset(), sv.stride(), sv.shape) == (tv.storage_offset(), tv.stride(), tv.shape)
        assert sv._base is not None and torch.equal(sv, tv)
    # Ops on a view read the window; writes through it land in the input.
    c = F.crop(x, 3, 4, 10, 12)
    assert torch.equal(F.horizontal_flip(c), TF.horizontal_flip(x[..., 3:13, 4:16]))
    assert torch.equal(F.resize(c, [7, 5], antialias=True), TF.resize(x[..., 3:13, 4:16].contiguous(), [7, 5], antialias=True))
    c.fill_(7)
    assert bool((x[..., 3:13, 4:16] == 7).all())


@needs_torch
def test_torch_crop_outside_is_a_new_tensor():
    x = torch.randint(0, 256, (3, 10, 12), dtype=torch.uint8)
    for y in (F.crop(x, -1, 0, 4, 4), F.crop(x, 8, 0, 4, 4), F.center_crop(x, [12, 4])):
        assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert torch.equal(F.crop(x, -1, 2, 4, 4)[:, 1:], x[:, :3, 2:6])
    assert bool((F.crop(x, -1, 2, 4, 4)[:, 0] == 0).all())


def test_numpy_crop_inside_shares_memory():
    x = np.random.default_rng(0).integers(0, 256, (3, 10, 12), dtype=np.uint8)
    c = F.crop(x, 2, 3, 4, 5)
    assert np.shares_memory(c, x) and np.array_equal(c, x[:, 2:6, 3:8])
    assert not np.shares_memory(F.crop(x, -1, 3, 4, 5), x)


# ---- uint8 resize: bit for bit with torchvision on the CPU, at the fast paths' sizes --------

@needs_torchvision
@pytest.mark.skipif(HAVE_TORCH and torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"),
                    reason="torchvision resizes uint8 bilinear in float32 on this CPU (test_resize covers it)")
def test_uint8_resize_large_random_sizes_equal_torchvision():
    rng = random.Random(13)
    g = torch.Generator().manual_seed(13)
    cases = [((3, 1080, 1920), [256], True), ((3, 1080, 1920), [224, 224], False),
             # batches: both passes per plane (or per image for channels_last) in one worker
             ((8, 3, 37, 53), [29, 71], True), ((6, 4, 64, 48), [80, 30], False), ((9, 1, 45, 60), [61, 17], True)]
    for _ in range(24):
        c = rng.choice([1, 3, 4])
        shape = ([rng.randint(1, 3)] if rng.random() < 0.4 else []) + [c, rng.randint(40, 400), rng.randint(40, 400)]
        cases.append((tuple(shape), [rng.randint(8, 500), rng.randint(8, 500)], rng.random() < 0.6))
    for shape, size, antialias in cases:
        for mode in ("bilinear", "bicubic"):
            x = torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)
            dims = list(range(x.dim() - 3)) + [x.dim() - 2, x.dim() - 1, x.dim() - 3]
            hwc = x.permute(dims).contiguous().permute([dims.index(i) for i in range(x.dim())])
            for name, view in (("contiguous", x), ("hwc", hwc)):
                expected = TF.resize(view, size, interpolation=IM(mode), antialias=antialias)
                actual = F.resize(view, size, interpolation=mode, antialias=antialias)
                assert torch.equal(actual, expected), f"{mode} aa={antialias} {shape} {name} -> {size}"


@needs_torchvision
@pytest.mark.skipif(HAVE_TORCH and torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"),
                    reason="torchvision resizes uint8 bilinear in float32 on this CPU (test_resize covers it)")
def test_uint8_short_window_resize_equals_torchvision():
    """Upscaling and mild downscaling of planar rows (1 to 4 taps: the 8-values-per-shuffle
    kernel, its groups that do not fit one load, and the row tails), tiny inputs included."""
    rng = random.Random(17)
    g = torch.Generator().manual_seed(17)
    for _ in range(60):
        h, w = rng.randint(1, 40), rng.randint(1, 60)
        size = [rng.randint(1, 90), rng.randint(max(1, w // 2), 3 * w + 20)]
        x = torch.randint(0, 256, (rng.randint(1, 3), h, w), generator=g, dtype=torch.uint8)
        for mode in ("bilinear", "bicubic"):
            for antialias in (True, False):
                expected = TF.resize(x, size, interpolation=IM(mode), antialias=antialias)
                actual = F.resize(x, size, interpolation=mode, antialias=antialias)
                assert torch.equal(actual, expected), f"{mode} aa={antialias} {tuple(x.shape)} -> {size}"


# ---- threads ------------------------------------------------------------------------------------

_THREADS_SCRIPT = r"""
import hashlib, sys
import numpy as np
import streamvision.transforms.v2.functional as F
rng = np.random.default_rng(5)
u8 = rng.integers(0, 256, (4, 3, 300, 411), dtype=np.uint8)
f32 = rng.random((4, 3, 300, 411), dtype=np.float32)
h = hashlib.sha256()
for x in (u8, f32, np.ascontiguousarray(u8.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)):
    for y in (F.resize(x, [123, 250], antialias=True), F.resize(x, [401, 77], interpolation="bicubic"),
              F.horizontal_flip(x), F.adjust_hue(x, 0.2), F.gaussian_blur(x, [5, 5]), F.rotate(x, 17.0),
              F.to_dtype(x, np.float32, scale=True) if x.dtype == np.uint8 else F.normalize(x, [0.4] * 3, [0.2] * 3)):
        h.update(np.ascontiguousarray(y).tobytes())
print(h.hexdigest())
"""


def _run(script, threads=None, env=None):
    """The script's stdout, run in a fresh process (settings read once per process) with `env`
    (default: this one's) and, if given, that many threads."""
    env = dict(os.environ if env is None else env)
    if threads is not None:
        env["STREAMVISION_NUM_THREADS"] = str(threads)
    return subprocess.run([sys.executable, "-c", script], env=env, check=True, stdout=subprocess.PIPE, text=True,
                          timeout=300).stdout


@needs_torchvision
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float16", "bfloat16", "float32", "int32", "float64"])
def test_copies_equal_torchvision_on_every_layout(dtype):
    # Flips and right-angle rotations are copies through a view (cpu/layout.cpp): reversed rows of
    # 1-, 2-, 4- and 8-byte items (AVX2 blocks and their tails), channels_last pixels of 3 items,
    # outer dims walked from their far end, rows longer than one work item, short rows of a crop
    # (planes of many rows, prefetched ahead).
    g = torch.Generator().manual_seed(11)
    for shape in [(3, 1, 1), (3, 5, 7), (2, 3, 33, 65), (3, 9, 200), (2, 3, 50, 224), (3, 2, 40001)]:
        x = torch.randint(0, 256, shape, generator=g).to(getattr(torch, dtype))
        hwc = x.movedim(-3, -1).contiguous().movedim(-1, -3)
        for v in (x, hwc, x[..., 1:, :-1], x.transpose(-1, -2), hwc.flip(-1)):
            for ours, theirs in ((F.horizontal_flip(v), TF.horizontal_flip(v)), (F.vertical_flip(v), TF.vertical_flip(v)),
                                 (F.rotate(v, 90.0, expand=True), TF.rotate(v, 90.0, expand=True)),
                                 (F.rotate(v, 180.0), TF.rotate(v, 180.0))):
                assert ours.shape == theirs.shape and torch.equal(ours, theirs), (shape, tuple(v.stride()))


def test_results_do_not_depend_on_the_thread_count():
    one = _run(_THREADS_SCRIPT, 1)
    assert _run(_THREADS_SCRIPT, 2) == one
    assert _run(_THREADS_SCRIPT, 5) == one


# Every op with an x86-64-v3 twin (cpu/simd.hpp), on inputs that take the twins' paths: planar
# and packed-HWC rows, uint8 and float32, in place and not. The uint8 table lookups by AVX-512
# VBMI (cpu/byte_table.hpp: brightness, gamma, contrast, autocontrast, equalize) run only in the
# first of the three runs, so they are checked against the pixel loops here too.
_TWINS_SCRIPT = r"""
import hashlib
import numpy as np
import streamvision.transforms.v2.functional as F
rng = np.random.default_rng(9)
u8 = rng.integers(0, 256, (2, 3, 97, 131), dtype=np.uint8)
f32 = (rng.random((2, 3, 97, 131), dtype=np.float32) * 1.2 - 0.1).astype(np.float32)
hwc = np.ascontiguousarray(u8.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
h = hashlib.sha256()
for x in (u8, f32, hwc, np.ascontiguousarray(f32.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)):
    ys = [F.adjust_brightness(x, 1.3), F.adjust_saturation(x, 0.6), F.adjust_contrast(x, 1.4),
          F.adjust_hue(x, -0.2), F.adjust_sharpness(x, 2.0), F.rgb_to_grayscale(x), F.autocontrast(x),
          F.solarize(x, 0.5 if x.dtype == np.float32 else 128), F.gaussian_blur(x, [7, 5], [1.7, 0.9]),
          F.rotate(x, 23.0, interpolation="bilinear"), F.affine(x, 10.0, [3, -2], 1.1, [5.0, 2.0]),
          F.perspective(x, [[0, 0], [130, 0], [130, 96], [0, 96]], [[4, 2], [120, 6], [126, 90], [2, 93]]),
          F.horizontal_flip(x), F.vertical_flip(x), F.resize(x, [61, 250], antialias=True), F.resize(x, [40, 33], interpolation="bicubic"),
          F.resize(x, [50, 170], antialias=False), F.resize(x, [45, 37], interpolation="bicubic", antialias=False),
          F.to_dtype(x, np.float32, scale=True), F.normalize(F.to_dtype(x, np.float32, scale=True), [0.4] * 3, [0.2] * 3),
          F.adjust_gamma(x, 0.8), F.adjust_gamma(x, 2.3, 1.2), F.equalize(x)]
    for y in ys:
        h.update(np.ascontiguousarray(y).tobytes())
print(h.hexdigest())
"""


def test_x86_64_v3_and_v4_twins_equal_the_baseline_bit_for_bit():
    # The CPU's best copies (AVX-512 ones where it has them), the AVX2 ones, the baseline.
    env = dict(os.environ)
    env.pop("STREAMVISION_CPU_BASELINE", None)
    env.pop("STREAMVISION_CPU_NO_V4", None)
    run = lambda: _run(_TWINS_SCRIPT, env=env)
    best = run()
    env["STREAMVISION_CPU_NO_V4"] = "1"
    v3 = run()
    env["STREAMVISION_CPU_BASELINE"] = "1"
    base = run()
    assert best == v3 == base


# The streaming stores of large outputs (cpu/stream_store.hpp) on small inputs: with
# STREAMVISION_CPU_STREAM_BYTES=0 every dense output streams; by default none of these do. Both
# runs must give the same bytes, and the streamed flips numpy's flips. Rows past 4 KB are reversed
# through a buffer, a piece at a time from the last (widths 1500, 2500 and 4133: several pieces,
# a partial last one and a tail past the vector blocks). Padded rows of whole 16-byte pieces
# (float32 224 + 4 + 4, and 224 + 5 + 11 for uint8 and float32) stream their interior straight
# from the input.
_STREAM_SCRIPT = r"""
import hashlib
import numpy as np
import streamvision.transforms.v2.functional as F
rng = np.random.default_rng(11)
h = hashlib.sha256()
for dtype in (np.uint8, np.float32, np.float16, np.int16, np.int64, np.bool_):
    for shape in ((2, 3, 5, 7), (1, 3, 33, 224), (3, 4, 1500), (2, 3, 2, 1), (1, 3, 2, 2500), (2, 3, 2, 4133)):
        x = rng.integers(0, 256, shape).astype(dtype)
        hwc = np.ascontiguousarray(np.moveaxis(x, -3, -1))
        views = [x, np.moveaxis(hwc, -1, -3), x[..., 1:, 1:] if shape[-1] > 1 else x]
        for v in views:
            for ours, ref in ((F.horizontal_flip(v), v[..., ::-1]), (F.vertical_flip(v), v[..., ::-1, :])):
                assert ours.shape == ref.shape and np.array_equal(ours, ref), (dtype, shape, v.strides)
                h.update(np.ascontiguousarray(ours).tobytes())
            if dtype in (np.uint8, np.float32):
                f = v if dtype == np.uint8 else v / 255
                ys = [F.invert(f), F.to_dtype(v, np.float32, scale=True), F.adjust_brightness(f, 1.3),
                      F.solarize(f, 128 if dtype == np.uint8 else 0.5), F.pad(f, [4], padding_mode="edge"),
                      F.pad(f, [3, 1, 1, 2], fill=7)]
                if v.ndim >= 3 and v.shape[-1] > 11 and v.shape[-2] > 2:
                    ys.append(F.pad(f, [5, 1, 11, 2], padding_mode="reflect"))
                if dtype == np.uint8:
                    ys.append(F.posterize(v, 3))
                    # Table lookups (cpu/byte_table.hpp): streamed rows of every length and offset.
                    ys += [F.adjust_gamma(v, 0.8), F.autocontrast(v), F.adjust_contrast(v, 1.4), F.equalize(v)]
                    ys.append(F.normalize(F.to_dtype(v, np.float32, scale=True), [0.4, 0.5, 0.6], [0.2, 0.3, 0.25]))
                if v.ndim == 4 and v.shape[-1] > 3 and v.shape[-2] > 3:
                    ys.append(F.erase(f, 1, 2, 2, 3, np.zeros((1,), f.dtype)))
                for y in ys:
                    h.update(np.ascontiguousarray(y).tobytes())
# Runs the engine's general path streams: 1-D tensors and rows longer than a work piece (32,768
# items), reversed, whose ragged ends may be empty.
for dtype in (np.uint8, np.float32, np.int16):
    for shape in ((4,), (100,), (1, 2, 40000)):
        x = rng.integers(0, 256, shape).astype(dtype)
        ours = F.horizontal_flip(x)
        assert np.array_equal(ours, x[..., ::-1]), (dtype, shape)
        h.update(ours.tobytes())
print(h.hexdigest())
"""


def test_streaming_stores_write_the_same_bytes():
    env = dict(os.environ)
    env.pop("STREAMVISION_CPU_STREAM_BYTES", None)
    plain = _run(_STREAM_SCRIPT, env=env)
    env["STREAMVISION_CPU_STREAM_BYTES"] = "0"
    streamed = _run(_STREAM_SCRIPT, env=env)
    streamed_threads = _run(_STREAM_SCRIPT, 3, env)  # tasks on the pool's threads: each ends with a fence
    assert plain == streamed == streamed_threads


_SET_THREADS_SCRIPT = r"""
import os
import numpy as np
import streamvision as sv
import streamvision.transforms.v2.functional as F
tasks = lambda: len(os.listdir("/proc/self/task"))
x = np.random.default_rng(3).integers(0, 256, (8, 3, 200, 300), dtype=np.uint8)
assert sv.get_num_threads() == 4, sv.get_num_threads()  # STREAMVISION_NUM_THREADS
sv.set_num_threads(1)
before = tasks()
one = F.resize(x, [100, 150], antialias=True)
assert tasks() == before, "one thread: the pool must not start"
for n, expect in ((2, 2), (100, 4), (4, 4)):  # capped at the pool's size
    sv.set_num_threads(n)
    assert sv.get_num_threads() == expect, (n, sv.get_num_threads())
    assert np.array_equal(F.resize(x, [100, 150], antialias=True), one)
    assert np.array_equal(F.gaussian_blur(x, [5, 5]), F.gaussian_blur(x, [5, 5]))
for bad in (0, -3):
    try:
        sv.set_num_threads(bad)
    except ValueError as e:
        assert "set_num_threads" in str(e) and str(bad) in str(e), e
    else:
        raise AssertionError(f"set_num_threads({bad}) did not raise")
assert sv.get_num_threads() == 4
print("ok")
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through /proc")
def test_set_num_threads():
    # In a subprocess: the setting is process-wide, and the first op decides whether the pool starts.
    env = dict(os.environ, STREAMVISION_NUM_THREADS="4")
    out = subprocess.run([sys.executable, "-c", _SET_THREADS_SCRIPT], env=env, check=True, stdout=subprocess.PIPE,
                         text=True, timeout=300).stdout
    assert out.strip() == "ok"


_TORCH_THREADS_SCRIPT = r"""
import os
import numpy as np
import torch
import streamvision as sv
import streamvision.transforms.v2.functional as F
tasks = lambda: len(os.listdir("/proc/self/task"))
x = torch.randint(0, 256, (8, 3, 200, 300), dtype=torch.uint8)
torch.set_num_threads(1)  # what a DataLoader worker does
x.flip(-1)  # torch's own threads, if any, start here
before = tasks()
one = F.resize(x, [100, 150], antialias=True)
assert tasks() == before, "an op on torch tensors must follow torch.get_num_threads() == 1"
assert sv.get_num_threads() == 4, sv.get_num_threads()  # the process-wide setting is untouched
F.resize(x.numpy(), [100, 150], antialias=True)  # numpy input: streamvision's own setting
assert tasks() == before + 3, (tasks(), before)
torch.set_num_threads(2)
assert torch.equal(F.resize(x, [100, 150], antialias=True), one)
print("ok")
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through /proc")
@pytest.mark.skipif(not HAVE_TORCH, reason="needs torch")
def test_ops_on_torch_tensors_follow_torch_thread_count():
    env = dict(os.environ, STREAMVISION_NUM_THREADS="4")
    out = subprocess.run([sys.executable, "-c", _TORCH_THREADS_SCRIPT], env=env, check=True, stdout=subprocess.PIPE,
                         text=True, timeout=300).stdout
    assert out.strip() == "ok"


def test_cuda_memory_functions_report_an_unused_pool_as_empty():
    # In a subprocess that never touches a GPU: streamvision's own CUDA pool does not exist yet,
    # with or without CUDA in the build, so both counts are 0 and emptying it does nothing.
    script = ("import numpy as np, streamvision as sv, streamvision.transforms.v2.functional as F\n"
              "F.horizontal_flip(np.zeros((3, 4, 5), np.uint8))\n"
              "assert sv.empty_cache() is None\n"
              "print(sv.memory_allocated(), sv.memory_reserved(), sv.memory_allocated(0), sv.memory_reserved(device=0))\n")
    out = subprocess.run([sys.executable, "-c", script], check=True, stdout=subprocess.PIPE, text=True, timeout=300).stdout
    assert out.split() == ["0", "0", "0", "0"]


_FORK_SCRIPT = r"""
import os
import numpy as np
import streamvision.transforms.v2.functional as F
x = np.random.default_rng(1).integers(0, 256, (8, 3, 200, 300), dtype=np.uint8)
before = F.resize(x, [100, 150], antialias=True)  # starts the pool in the parent
for _ in range(2):
    pid = os.fork()
    if pid == 0:  # the child has none of the parent's pool threads: the pool must start again
        ok = all(np.array_equal(F.resize(x, [100, 150], antialias=True), before) for _ in range(3))
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, status
assert np.array_equal(F.resize(x, [100, 150], antialias=True), before)  # the parent's pool still works
print("ok")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_thread_pool_works_after_fork():
    # In a subprocess with a timeout: a pool that does not survive fork hangs the child.
    env = dict(os.environ, STREAMVISION_NUM_THREADS="4")
    out = subprocess.run([sys.executable, "-c", _FORK_SCRIPT], env=env, check=True, stdout=subprocess.PIPE,
                         text=True, timeout=120).stdout
    assert out.strip() == "ok"


# ---- the CPU benchmark runs (no timing assertions) ----------------------------------------------

@needs_torchvision
def test_bench_cpu_prints_the_table():
    bench = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "bench_cpu.py")
    out = subprocess.run([sys.executable, bench, "--threads", "1", "--repeats", "1", "--quick",
                          "--filter", "horizontal_flip | 1080p HWC-strided | uint8"],
                         check=True, stdout=subprocess.PIPE, text=True, timeout=300).stdout
    rows = [line for line in out.splitlines() if line.startswith("| horizontal_flip")]
    assert len(rows) == 1 and rows[0].count("|") == 7 and "n/a" not in rows[0], out
