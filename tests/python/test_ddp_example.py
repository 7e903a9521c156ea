"""examples/ddp_preprocess.py under torchrun: 2 ranks produce, bit for bit, what 1 process produces
for the same sample indices and seed (each sample's augmentation is seeded by (seed, index)).
On the CPU with gloo (CI runs this), and on 2 GPUs with NCCL (skipped with fewer GPUs).
"""

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from conftest import HAVE_TORCH, needs_torch, needs_two_gpus

pytestmark = needs_torch

if HAVE_TORCH:
    import torch

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ddp_preprocess.py"
DATASET_SIZE = 24  # 12 samples per rank: 3 batches of 4
SMALL = ["--dataset-size", str(DATASET_SIZE), "--image-size", "40", "56", "--crop-size", "32",
         "--batch-size", "4", "--warmup-steps", "1", "--seed", "3"]


def _example_module():
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        import ddp_preprocess
    finally:
        sys.path.pop(0)
    return ddp_preprocess


def _child_env():
    import streamvision

    env = dict(os.environ)
    # The children import the streamvision this test imports, installed or not.
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(streamvision.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
    if sys.platform.startswith("linux"):
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")  # containers whose host name does not resolve
    return env


def _start(nproc, device, dump):
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
           str(EXAMPLE), "--device", device, "--dump", str(dump), *SMALL]
    # A session of its own: on a timeout the launcher and its workers are killed together.
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_child_env(),
                            start_new_session=True)


def _finish(proc):
    try:
        out, _ = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        raise AssertionError("torchrun did not finish in 240 s:\n" + out[-4000:]) from None
    # gloo can abort a rank at teardown after the job finished (pytorch/pytorch#190489: a joinable
    # thread at exit, "terminate called without an active exception"); the rest of the test still
    # checks every sample the ranks wrote, so only an abort after the final line is tolerated.
    teardown_abort = "terminate called without an active exception" in out and "total:" in out
    assert proc.returncode == 0 or teardown_abort, out[-4000:]
    return out


def _compare_two_ranks_with_one_process(device):
    with tempfile.TemporaryDirectory() as tmp:
        two, one = Path(tmp, "two"), Path(tmp, "one")
        runs = [_start(2, device, two), _start(1, device, one)]  # side by side: half the wall time
        try:
            out_two, out_one = [_finish(p) for p in runs]
        finally:
            for p in runs:  # the other run, when one failed
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.communicate()
        ranks = [torch.load(two / f"rank{r}.pt") for r in (0, 1)]
        single = torch.load(one / "rank0.pt")

    # Every rank reported its rate, rank 0 the total.
    for r in (0, 1):
        assert f"rank {r}/2 on {device}" in out_two and "images/s" in out_two, out_two
    assert "total: 2 ranks" in out_two and "total: 1 rank" in out_one, out_two + out_one

    # The sampler split the indices: disjoint halves that together are the whole dataset.
    assert len(ranks[0]) == len(ranks[1]) == DATASET_SIZE // 2
    assert not set(ranks[0]) & set(ranks[1])
    assert set(ranks[0]) | set(ranks[1]) == set(single) == set(range(DATASET_SIZE))
    merged = {**ranks[0], **ranks[1]}
    for index, expected in single.items():
        got = merged[index]
        assert got.shape == (3, 32, 32) and got.dtype == torch.float32
        assert torch.equal(got, expected), f"sample {index} differs between 2 ranks and 1 process"
    return single


def test_two_cpu_ranks_equal_one_process():
    single = _compare_two_ranks_with_one_process("cpu")
    # The reference without torchrun, a sampler or a DataLoader: the example's augmentation of
    # one sample, seeded by (seed, index), in this process.
    ex = _example_module()
    dataset = ex.SyntheticImages(DATASET_SIZE, 40, 56, 10)
    augment = ex.make_augment(32)
    for index in (0, 7, DATASET_SIZE - 1):
        expected = ex.augment_sample(augment, dataset[index][0], 3, index)
        assert torch.equal(single[index], expected), f"sample {index}"
    # The augmentation is random per sample (different indices, different parameters): sample 0
    # augmented under another sample's seed differs.
    assert not torch.equal(ex.augment_sample(augment, dataset[0][0], 3, 1), single[0])


@needs_two_gpus
def test_two_gpu_ranks_equal_one_process():
    single = _compare_two_ranks_with_one_process("cuda")
    assert all(t.device.type == "cpu" for t in single.values())

