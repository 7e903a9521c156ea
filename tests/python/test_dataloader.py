"""DataLoader use: transforms pickle (spawned workers receive them pickled), run in worker
processes with torch's per-worker seeding, and importing streamvision creates no CUDA context, so
forked workers work."""

import copy
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

from conftest import HAVE_TORCH, needs_torch

pytestmark = needs_torch

if HAVE_TORCH:
    import torch

import streamvision.transforms.v2 as T


def augmentation():
    return T.Compose([T.RandomResizedCrop(24), T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3, 0.3, 0.05),
                      T.RandomApply([T.RandomRotation(20)], p=0.5), T.ToDtype(torch.float32, scale=True),
                      T.Normalize([0.5, 0.4, 0.3], [0.2, 0.25, 0.3]), T.RandomErasing(p=0.5)])


def images(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (3, 40, 48), generator=g, dtype=torch.uint8) for _ in range(n)]


class Images(torch.utils.data.Dataset if HAVE_TORCH else object):
    """Applies its transform per item and says which worker did it, with that worker's seed."""

    def __init__(self, n, transform):
        self.images, self.transform = images(n), transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        info = torch.utils.data.get_worker_info()
        return self.transform(self.images[index]), info.id, info.seed


def record_worker_start(worker_id):
    # runs in the worker after torch seeded it with base_seed + worker_id
    assert torch.initial_seed() == torch.utils.data.get_worker_info().seed


def test_transforms_pickle_and_copy():
    transform = augmentation()
    x = images(1)[0]
    for clone in (pickle.loads(pickle.dumps(transform)), copy.deepcopy(transform)):
        assert repr(clone) == repr(transform)
        for seed in range(3):
            torch.manual_seed(seed)
            want = transform(x)
            torch.manual_seed(seed)
            assert torch.equal(clone(x), want)


def test_spawned_dataloader_workers_match_the_main_process():
    """Two spawned workers (the dataset and its transform reach them pickled) give, item by
    item, what the main process gives with the same seeds: torch seeds each worker with
    base_seed + worker id, and the transforms draw from torch's generator."""
    transform = augmentation()
    loader = torch.utils.data.DataLoader(Images(8, transform), batch_size=None, num_workers=2,
                                         multiprocessing_context="spawn", worker_init_fn=record_worker_start,
                                         generator=torch.Generator().manual_seed(1234))
    results = list(loader)
    assert {worker for _, worker, _ in results} == {0, 1}
    by_worker = {}
    for index, (out, worker, seed) in enumerate(results):
        by_worker.setdefault(worker, (seed, []))[1].append((index, out))
    for worker, (seed, items) in by_worker.items():
        torch.manual_seed(seed)  # a worker's items, in its order, from its seeded start
        for index, out in items:
            assert torch.equal(transform(loader.dataset.images[index]), out), (worker, index)


CHILD = textwrap.dedent("""
    import ctypes, os, sys
    import streamvision
    import streamvision.transforms.v2 as T
    import streamvision.transforms.v2.functional as F
    import torch

    print("torch.cuda.is_initialized:", torch.cuda.is_initialized())
    x = torch.arange(2 * 3 * 4, dtype=torch.uint8).reshape(1, 2, 3, 4)
    pid = os.fork()
    if pid == 0:  # a forked DataLoader worker: CPU transforms work
        ok = torch.equal(T.Compose([T.RandomHorizontalFlip(p=1.0), T.CenterCrop(2)])(x), F.center_crop(x.flip(-1), [2]))
        os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    print("fork child exit:", os.waitstatus_to_exitcode(status))

    # the driver's view: no device has an active primary context (checked after the fork, as
    # cuInit itself must not come before it)
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        print("driver: unavailable")
        sys.exit(0)
    if cuda.cuInit(0) != 0:
        print("driver: unavailable")
        sys.exit(0)
    count = ctypes.c_int()
    assert cuda.cuDeviceGetCount(ctypes.byref(count)) == 0
    active = []
    for i in range(count.value):
        device, flags, state = ctypes.c_int(), ctypes.c_uint(), ctypes.c_int()
        assert cuda.cuDeviceGet(ctypes.byref(device), i) == 0
        assert cuda.cuDevicePrimaryCtxGetState(device, ctypes.byref(flags), ctypes.byref(state)) == 0
        active.append(state.value)
    print("driver: devices", count.value, "active primary contexts", sum(active))
""")


@pytest.fixture(scope="module")
def import_check():
    if not hasattr(os, "fork"):
        pytest.skip("needs os.fork")
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_import_initialises_no_cuda_and_fork_works(import_check):
    assert "torch.cuda.is_initialized: False" in import_check
    assert "fork child exit: 0" in import_check


def test_import_creates_no_cuda_context_per_the_driver(import_check):
    if "driver: unavailable" in import_check:
        pytest.skip("no usable CUDA driver (libcuda.so.1 with a device)")
    assert "active primary contexts 0" in import_check, import_check
