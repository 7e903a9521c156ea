"""`streamvision run` (the C++ program) on temporary folders: outputs equal the Python functional
pipeline replaying the calls the program logged (manifest.jsonl), reruns are identical, corrupt
inputs are skipped and reported, --resume, --strict, ImageFolder labels, an unusable output
directory fails at start, exit codes."""

import json
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402

import streamvision._C as _C  # noqa: E402

if not _C.io_available():
    pytest.skip("streamvision built without libjpeg/libpng", allow_module_level=True)

import streamvision.io as sio  # noqa: E402
import streamvision.transforms.v2.functional as F  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def find_program():
    candidates = [os.environ.get("SV_CLI", "")]
    try:
        from streamvision import _cli

        candidates.append(_cli.program_path())
    except ImportError:
        pass
    candidates += [str(ROOT / "build" / b / "tools" / "streamvision") for b in ("dev", "py", "demo")]
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    return None


PROGRAM = find_program()
pytestmark = pytest.mark.skipif(PROGRAM is None, reason="the streamvision program is not built (set SV_CLI)")

RANDOM_PIPELINE = "random_resized_crop=48:0.3:1,hflip=0.5,random_rotation=20,color_jitter=0.3:0.3:0.3:0.05,to_dtype=float32,normalize=imagenet"


def run(*args, check_rc=None):
    proc = subprocess.run([PROGRAM, "run", "--device", "cpu", *map(str, args)], capture_output=True, text=True, timeout=300)
    if check_rc is not None:
        assert proc.returncode == check_rc, proc.stdout + proc.stderr
    return proc


def make_images(folder: pathlib.Path, count=5, seed=0):
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        h, w = 40 + 7 * i, 57 - 3 * i
        y, x = np.mgrid[0:h, 0:w]
        arr = np.stack([(x * 4 + 40 * c) % 256 for c in range(3)], -1) + rng.integers(0, 30, (h, w, 3))
        image = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
        if i % 2:
            image.save(folder / f"img{i}.png")
        else:
            image.save(folder / f"img{i}.jpg", quality=90)


def manifest(out: pathlib.Path):
    return [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]


def replay(entry):
    """The program's result for one input, recomputed with the Python functionals."""
    x = sio.decode_image(entry["input"], mode=sio.ImageReadMode.RGB, apply_exif_orientation=True)
    for call in entry["calls"]:
        kwargs = {k: v for k, v in call.items() if k != "op"}
        if "interpolation" in kwargs:
            kwargs["interpolation"] = getattr(F.InterpolationMode, kwargs["interpolation"].upper())
        if "dtype" in kwargs:
            kwargs["dtype"] = getattr(torch, kwargs["dtype"])
        x = getattr(F, call["op"])(x, **kwargs)
    return x


def test_outputs_equal_the_python_pipeline(tmp_path):
    make_images(tmp_path / "in")
    out = tmp_path / "out"
    proc = run("--pipeline", RANDOM_PIPELINE, "--seed", 7, "--batch", 2, tmp_path / "in", out, check_rc=0)
    assert "5 processed, 0 skipped" in proc.stdout
    # Three batches: the summary gives the start-up (the first batch out) apart from the rate after it.
    assert re.search(r"start-up: first batch out after [\d.]+ s; after it [\d.]+ images/s", proc.stdout), proc.stdout
    entries = manifest(out)
    assert len(entries) == 5
    assert any(c["op"] == "horizontal_flip" for e in entries for c in e["calls"])  # p=0.5 over 5 samples
    for entry in entries:
        got = np.load(out / entry["output"])
        expected = replay(entry).numpy()
        assert got.dtype == np.float32 and got.shape == (3, 48, 48)
        np.testing.assert_array_equal(got, expected)


def test_fixed_pipeline_png_outputs_and_contact_sheet(tmp_path):
    make_images(tmp_path / "in", count=3)
    out = tmp_path / "out"
    sheet = tmp_path / "sheet.png"
    run("--pipeline", "resize=32,center_crop=24x30,hflip=1,grayscale", "--contact-sheet", sheet, tmp_path / "in", out, check_rc=0)
    for entry in manifest(out):
        assert entry["output"].endswith(".png")
        got = sio.decode_png(sio.read_file(out / entry["output"]))
        assert torch.equal(got, replay(entry))
        assert got.shape == (3, 24, 30)
    sheet_image = sio.read_image(sheet)
    assert sheet_image.shape[0] == 3 and sheet_image.shape[1] > 3 * 24


def test_contact_sheet_named_without_a_folder(tmp_path):
    make_images(tmp_path / "in", count=2)
    proc = subprocess.run([PROGRAM, "run", "--device", "cpu", "--contact-sheet", "sheet.png", "in", "out"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sio.read_image(tmp_path / "sheet.png").shape[0] == 3


def test_reruns_are_identical_and_the_seed_matters(tmp_path):
    make_images(tmp_path / "in", count=4)
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        run("--pipeline", RANDOM_PIPELINE, "--seed", seed, "--workers", 1 if name == "b" else 3, "--batch", 3 if name == "b" else 16,
            tmp_path / "in", tmp_path / name, check_rc=0)
    for f in sorted((tmp_path / "a").glob("*.npy")):
        np.testing.assert_array_equal(np.load(f), np.load(tmp_path / "b" / f.name))
    assert [e["calls"] for e in manifest(tmp_path / "a")] == [e["calls"] for e in manifest(tmp_path / "b")]
    assert [e["calls"] for e in manifest(tmp_path / "a")] != [e["calls"] for e in manifest(tmp_path / "c")]


def test_bad_inputs_are_skipped_and_reported(tmp_path):
    make_images(tmp_path / "in", count=3)
    data = (tmp_path / "in" / "img0.jpg").read_bytes()
    (tmp_path / "in" / "truncated.jpg").write_bytes(data[: len(data) // 3])
    (tmp_path / "in" / "text.png").write_text("not an image")
    out = tmp_path / "out"
    proc = run(tmp_path / "in", out, check_rc=0)
    assert "3 processed, 2 skipped" in proc.stdout
    assert "truncated.jpg: decode_jpeg: Image is incomplete or truncated" in proc.stdout
    assert "text.png: decode_image: Unsupported image file" in proc.stdout
    assert sorted(p.name for p in out.iterdir()) == ["img0.npy", "img1.npy", "img2.npy", "manifest.jsonl"]
    run("--strict", tmp_path / "in", tmp_path / "strict", check_rc=1)
    # Every input bad: exit code 1, nothing but the (empty) manifest written.
    proc = run(tmp_path / "in" / "truncated.jpg", tmp_path / "in" / "text.png", tmp_path / "none", check_rc=1)
    assert "0 processed, 2 skipped" in proc.stdout


def test_resume_skips_finished_outputs(tmp_path):
    make_images(tmp_path / "in", count=4)
    out = tmp_path / "out"
    run("--pipeline", RANDOM_PIPELINE, tmp_path / "in", out, check_rc=0)
    before = np.load(out / "img2.npy")
    (out / "img2.npy").unlink()
    (out / ".img3.npy.tmp-1-0").write_bytes(b"half")  # an interrupted run's temporary file
    proc = run("--pipeline", RANDOM_PIPELINE, "--resume", tmp_path / "in", out, check_rc=0)
    assert "1 processed, 0 skipped, 3 already done" in proc.stdout
    np.testing.assert_array_equal(np.load(out / "img2.npy"), before)  # same parameters as in the full run
    assert not (out / ".img3.npy.tmp-1-0").exists()
    # One manifest line per output: the first run's, with the re-written img2's replaced.
    assert sorted(e["output"] for e in manifest(out)) == [f"img{i}.npy" for i in range(4)]


def test_image_folder_labels(tmp_path):
    make_images(tmp_path / "tree" / "dog", count=2, seed=1)
    make_images(tmp_path / "tree" / "cat", count=3, seed=2)
    out = tmp_path / "out"
    run("--pipeline", "resize=16", tmp_path / "tree", out, check_rc=0)
    assert (out / "classes.txt").read_text().split() == ["cat", "dog"]
    labels = {e["output"]: e["label"] for e in manifest(out)}
    assert labels["cat/img0.png"] == 0 and labels["dog/img1.png"] == 1 and len(labels) == 5


@pytest.mark.skipif(not (torch.cuda.is_available() and _C.built_with_cuda()), reason="needs a CUDA GPU")
def test_cuda_run_equals_cpu_run(tmp_path):
    make_images(tmp_path / "in", count=4)
    pipeline = "center_crop=32,hflip=0.5,to_dtype=float32,normalize=imagenet"  # ops whose CUDA results equal the CPU's
    for device in ("cpu", "cuda"):
        proc = subprocess.run([PROGRAM, "run", "--device", device, "--pipeline", pipeline, "--batch", "3",
                               tmp_path / "in", tmp_path / device], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    for f in sorted((tmp_path / "cpu").glob("*.npy")):
        cpu, gpu = np.load(f), np.load(tmp_path / "cuda" / f.name)
        if f.name.startswith(("img1", "img3")):  # PNGs decode on the CPU on both runs
            np.testing.assert_array_equal(gpu, cpu)
        else:  # JPEGs may decode with nvJPEG on the GPU run
            assert np.abs(gpu - cpu).mean() < 0.05


@pytest.mark.skipif(not (torch.cuda.is_available() and _C.built_with_cuda()), reason="needs a CUDA GPU")
def test_cuda_pipelined_batches_equal_the_cpu_run(tmp_path):
    """The CUDA path keeps two batches in flight (uploads and downloads through page-locked
    memory, a batch handed to the writer while the next one computes): its outputs equal the CPU
    path's for images of many sizes, --batch smaller than the count with a remainder, an image
    that fails in the pipeline and one that does not decode (each skipped alone), float and uint8
    results, shards and the contact sheet."""
    make_images(tmp_path / "in", count=12, seed=3)
    Image.fromarray(np.full((3, 3, 3), 77, np.uint8)).save(tmp_path / "in" / "tiny.png")  # pad=4 fails on it
    (tmp_path / "in" / "text.png").write_text("not an image")
    png = {f"img{i}" for i in range(1, 12, 2)} | {"tiny"}  # decoded on the CPU by both runs

    def both(name, *args, sheet=False):
        for device in ("cpu", "cuda"):
            extra = ["--contact-sheet", tmp_path / f"{name}_{device}.png"] if sheet else []
            proc = subprocess.run([PROGRAM, "run", "--device", device, *map(str, args), *extra, tmp_path / "in", tmp_path / f"{name}_{device}"],
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert "12 processed, 2 skipped" in proc.stdout, proc.stdout
            assert "tiny.png: pipeline: pad" in proc.stdout and "text.png: decode_image" in proc.stdout, proc.stdout
        cpu, gpu = manifest(tmp_path / f"{name}_cpu"), manifest(tmp_path / f"{name}_cuda")
        assert [(e["output"], e.get("shard_index"), e["calls"]) for e in cpu] == [(e["output"], e.get("shard_index"), e["calls"]) for e in gpu]
        return cpu

    def compare(name, stem, cpu, gpu, tolerance):
        assert cpu.shape == gpu.shape and cpu.dtype == gpu.dtype, (name, stem)
        if stem in png:
            np.testing.assert_array_equal(gpu, cpu, err_msg=f"{name} {stem}")
        else:  # JPEGs may decode with nvJPEG on the CUDA run
            assert np.abs(gpu.astype(np.float64) - cpu.astype(np.float64)).mean() < tolerance, (name, stem)

    pipeline = "pad=4,center_crop=36x28,hflip=0.5,vflip=0.5,to_dtype=float32,normalize=imagenet"
    for entry in both("float", "--pipeline", pipeline, "--batch", 5, "--seed", 4, sheet=True):
        stem = pathlib.Path(entry["input"]).stem
        compare("float", stem, np.load(tmp_path / "float_cpu" / entry["output"]), np.load(tmp_path / "float_cuda" / entry["output"]), 0.05)
    for entry in both("uint8", "--pipeline", "pad=4,center_crop=30x26,hflip=0.5", "--batch", 4, "--seed", 5):
        stem = pathlib.Path(entry["input"]).stem
        read = lambda folder: sio.decode_png(sio.read_file(tmp_path / folder / entry["output"])).numpy()  # noqa: E731
        compare("uint8", stem, read("uint8_cpu"), read("uint8_cuda"), 3.0)
    for entry in both("shards", "--pipeline", pipeline, "--batch", 3, "--shard-size", 5, "--seed", 6):
        stem = pathlib.Path(entry["input"]).stem
        rows = [np.load(tmp_path / f"shards_{d}" / entry["output"])[entry["shard_index"]] for d in ("cpu", "cuda")]
        compare("shards", stem, *rows, 0.05)
    # The sheets show the same inputs and outputs (the JPEGs among them decoded by either decoder).
    cpu_sheet, gpu_sheet = (sio.read_image(tmp_path / f"float_{d}.png").double() for d in ("cpu", "cuda"))
    assert cpu_sheet.shape == gpu_sheet.shape
    assert (cpu_sheet - gpu_sheet).abs().mean() < 2


def test_command_line_errors(tmp_path):
    make_images(tmp_path / "in", count=1)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run(tmp_path / "in", blocker / "out", check_rc=2)
    assert "cannot create the output directory" in proc.stderr
    proc = run("--pipeline", "resize=abc", tmp_path / "in", tmp_path / "o", check_rc=2)
    assert "pipeline step 'resize=abc'" in proc.stderr
    proc = run("--pipeline", "warp", tmp_path / "in", tmp_path / "o", check_rc=2)
    assert "unknown pipeline step 'warp'" in proc.stderr
    proc = run(tmp_path / "missing", tmp_path / "o", check_rc=2)
    assert "does not exist" in proc.stderr
    proc = run("--format", "png", tmp_path / "in", tmp_path / "o", check_rc=1)
    assert "--format png needs uint8" in proc.stdout
    if not torch.cuda.is_available():
        proc = subprocess.run([PROGRAM, "run", "--device", "cuda:0", tmp_path / "in", tmp_path / "o"], capture_output=True, text=True)
        assert proc.returncode == 2 and "--device cuda:0" in proc.stderr
    assert subprocess.run([PROGRAM, "--version"], capture_output=True, text=True).stdout.startswith("streamvision ")


def test_shards(tmp_path):
    make_images(tmp_path / "in", count=5)
    out = tmp_path / "out"
    run("--pipeline", RANDOM_PIPELINE, "--shard-size", 2, tmp_path / "in", out, check_rc=0)
    assert sorted(p.name for p in out.glob("*.npy")) == ["shard_00000.npy", "shard_00001.npy", "shard_00002.npy"]
    assert np.load(out / "shard_00002.npy").shape == (1, 3, 48, 48)
    for entry in manifest(out):
        got = np.load(out / entry["output"])[entry["shard_index"]]
        np.testing.assert_array_equal(got, replay(entry).numpy())
    proc = run("--shard-size", 2, "--resume", tmp_path / "in", out, check_rc=2)
    assert "--resume cannot be combined" in proc.stderr
