"""GPU timing shared by the Python benchmarks: the median of CUDA-event-timed runs after warm-up,
and the device-to-device copy bandwidth every effective bandwidth is compared with."""

import statistics
import time

import torch

WARMUP, RUNS = 3, 20


def median_ms(fn):
    for _ in range(WARMUP):
        fn()
    # Slow cases (torchvision's equalize, say) get fewer runs: about a second each, at least 5.
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    runs = max(5, min(RUNS, int(1.0 / max(time.perf_counter() - t0, 1e-6))))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    for a, b in zip(starts, stops):
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in zip(starts, stops))


def copy_bandwidth():
    src = torch.empty(2**31, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    return 2 * src.numel() / ms / 1e6  # GB/s, read + write
