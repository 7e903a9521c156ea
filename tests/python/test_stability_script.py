"""The GPU stability script (tests/gpu/stability.py) at tiny sizes on the CPU: its random-call
phase (4 threads, checkpoints at a barrier, sampled results recomputed single-threaded) and its
stream stress run to a PASS verdict. The full run needs a GPU (see the script's docstring)."""

import pathlib
import runpy

import pytest

from conftest import HAVE_TORCH

pytestmark = pytest.mark.skipif(not HAVE_TORCH, reason="the stability script needs torch")

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "gpu" / "stability.py"


def test_stability_script_logic_on_the_cpu(capsys):
    main = runpy.run_path(str(SCRIPT))["main"]
    status = main(["--device", "cpu", "--calls", "2000", "--threads", "4", "--max-side", "48", "--max-numel", "20000",
                   "--max-batch", "4", "--stress-iters", "200", "--sample-every", "5", "--checkpoints", "4"])
    out = capsys.readouterr().out
    assert "STABILITY: PASS" in out, out
    assert status == 0
    assert "2000 in" in out and "sampled" in out
