"""Data-parallel preprocessing with torch.distributed: one process per GPU (or CPU process), each
augmenting its shard of a dataset with streamvision on its own device and stream and feeding a
small model's DistributedDataParallel training step.

    torchrun --nproc-per-node=2 examples/ddp_preprocess.py              # 2 GPUs (NCCL)
    torchrun --nproc-per-node=2 examples/ddp_preprocess.py --device cpu # 2 CPU processes (gloo)

Each sample's random augmentation parameters come from a generator seeded by (seed, sample
index), never by the rank or the batch it lands in, so N ranks together produce exactly what
one process produces for the same indices and seed (tests/python/test_ddp_example.py compares
the `--dump` output of 2 ranks and of 1 process bit for bit).

Prints images/s per rank and in total (rank 0). Runs without torchrun too (one process).
"""

import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import streamvision.transforms.v2 as T

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


class SyntheticImages(Dataset):
    """uint8 images [3, H, W] that depend only on their index (so every rank sees the same data).

    Cheap to make, so that the example measures the augmentation, not the data: a fixed pool of
    images (two ramps plus noise, drawn once from a fixed seed), image `index` being pool image
    `index % pool` rolled by `index // pool` columns."""

    def __init__(self, length, height, width, num_classes, pool=32):
        self.length, self.num_classes = length, num_classes
        g = torch.Generator().manual_seed(12345)
        across = torch.linspace(0, 255, width).expand(height, width)
        down = torch.linspace(0, 255, height).unsqueeze(1).expand(height, width)
        base = torch.stack([across, down, 255 - across])
        noise = torch.randint(-40, 41, (pool, 3, height, width), generator=g)
        self.pool = (base + noise).clamp_(0, 255).to(torch.uint8)

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        pool = self.pool.shape[0]
        image = torch.roll(self.pool[index % pool], shifts=(index // pool) % self.pool.shape[-1], dims=-1)
        return image, index % self.num_classes, index


def make_augment(crop_size):
    """The per-sample augmentation: random parameters are drawn from torch's CPU generator."""
    return T.Compose([
        T.RandomResizedCrop(crop_size, antialias=True),
        T.RandomHorizontalFlip(),
        T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1),
        T.ToDtype(torch.float32, scale=True),
        T.Normalize(MEAN, STD),
    ])


def sample_seed(seed, index):
    """The seed of one sample's augmentation: a function of (seed, index) only."""
    return (seed * 1_000_003 + index) % (2**63)


def augment_sample(augment, image, seed, index):
    # fork_rng(devices=[]) saves and restores the CPU generator only: the caller's random state
    # is left as it was, and no CUDA generator is touched (the parameters are drawn on the CPU).
    with torch.random.fork_rng(devices=[]):
        torch.random.default_generator.manual_seed(sample_seed(seed, index))
        return augment(image)


def augment_batch(augment, images, indices, seed):
    return torch.stack([augment_sample(augment, image, seed, int(i)) for image, i in zip(images, indices)])


class SmallNet(torch.nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, kernel_size=3, stride=2, padding=1)
        self.head = torch.nn.Linear(16, num_classes)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.head(x.mean(dim=(-2, -1)))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                   help="cuda: one GPU per process (NCCL); cpu: gloo; auto: cuda when there is a GPU per process on this node")
    p.add_argument("--dataset-size", type=int, default=4096)
    p.add_argument("--image-size", type=int, nargs=2, default=[256, 320], metavar=("H", "W"))
    p.add_argument("--crop-size", type=int, default=224)
    p.add_argument("--batch-size", type=int, default=64, help="per rank")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--warmup-steps", type=int, default=2, help="steps not counted in images/s")
    p.add_argument("--num-classes", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=0, help="DataLoader workers (they only build uint8 images)")
    p.add_argument("--dump", metavar="DIR", help="write each rank's augmented samples (index -> tensor) to "
                   "DIR/rank<r>.pt (first epoch)")
    return p.parse_args(argv)


def setup(device_arg):
    """Joins the process group (or runs alone without torchrun); returns (rank, world, device)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    # "auto" decides the same way on every rank of a node: GPUs only when each rank gets one.
    use_cuda = device_arg == "cuda" or (device_arg == "auto" and torch.cuda.device_count() >= local_world)
    if use_cuda:
        if torch.cuda.device_count() <= local_rank:
            raise SystemExit(f"rank with LOCAL_RANK={local_rank} needs GPU {local_rank}, "
                             f"found {torch.cuda.device_count()} GPU(s)")
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    if "RANK" in os.environ:
        dist.init_process_group("nccl" if use_cuda else "gloo", device_id=device if use_cuda else None)
        return dist.get_rank(), dist.get_world_size(), device
    return 0, world, device


def main(argv=None):
    args = parse_args(argv)
    rank, world, device = setup(args.device)
    distributed = dist.is_initialized()
    cuda = device.type == "cuda"

    dataset = SyntheticImages(args.dataset_size, *args.image_size, args.num_classes)
    # With one process the sampler still shuffles with the same permutation (seed + epoch).
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=args.workers,
                        pin_memory=cuda)
    augment = make_augment(args.crop_size)

    torch.manual_seed(args.seed)  # the same initial weights on every rank (DDP broadcasts rank 0's anyway)
    model = SmallNet(args.num_classes).to(device)
    if distributed:
        model = DistributedDataParallel(model, device_ids=[device.index] if cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    # This rank's preprocessing stream. Inside `with torch.cuda.stream(side)` streamvision's ops
    # run on `side`, like torch's own; the host queues work ahead of the GPU, so the augmentation
    # of batch k+1 runs on `side` while the training step of batch k runs on the default stream.
    side = torch.cuda.Stream(device) if cuda else None
    dumped = {}

    # images/s counts the steps after the first `warmup_steps` (kernel loading, allocator growth).
    images_done, steps, loss = 0, 0, None
    t_start = time.perf_counter() if args.warmup_steps == 0 else None
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for images, labels, indices in loader:
            if cuda:
                with torch.cuda.stream(side):
                    images = images.to(device, non_blocking=True)
                    labels = labels.to(device, non_blocking=True)
                    x = augment_batch(augment, images, indices, args.seed)
                # The step reads what `side` wrote, in memory allocated on `side`: wait for it, and
                # tell the allocator the memory is in use on this stream too.
                step_stream = torch.cuda.current_stream(device)
                step_stream.wait_stream(side)
                x.record_stream(step_stream)
                labels.record_stream(step_stream)
            else:
                x = augment_batch(augment, images, indices, args.seed)
            if args.dump and epoch == 0:
                dumped.update({int(i): sample.cpu() for i, sample in zip(indices, x)})
            loss = torch.nn.functional.cross_entropy(model(x), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            steps += 1
            if steps == args.warmup_steps:
                if cuda:
                    torch.cuda.synchronize(device)
                t_start = time.perf_counter()
            elif steps > args.warmup_steps:
                images_done += x.shape[0]

    if cuda:
        torch.cuda.synchronize(device)
    elapsed = time.perf_counter() - t_start if t_start is not None else 0.0
    rate = images_done / elapsed if elapsed > 0 else float("nan")
    where = f"{device}" + (f" ({torch.cuda.get_device_name(device)})" if cuda else "")
    if images_done == 0:
        print(f"rank {rank}: no step after the {args.warmup_steps} warm-up steps was timed "
              "(raise --dataset-size or --epochs, or lower --warmup-steps)", flush=True)
    print(f"rank {rank}/{world} on {where}: {images_done} images in {elapsed:.3f} s, {rate:.1f} images/s, "
          f"last loss {loss.item() if loss is not None else float('nan'):.4f}", flush=True)

    if args.dump:
        os.makedirs(args.dump, exist_ok=True)
        torch.save(dumped, os.path.join(args.dump, f"rank{rank}.pt"))

    if distributed:
        totals = torch.tensor([float(images_done), elapsed], dtype=torch.float64, device=device)
        gathered = [torch.zeros_like(totals) for _ in range(world)]
        dist.all_gather(gathered, totals)
        if rank == 0:
            # Images over the slowest rank's time: what the job as a whole sustained.
            total_images = sum(float(t[0]) for t in gathered)
            slowest = max(float(t[1]) for t in gathered)
            total_rate = total_images / slowest if slowest > 0 else float("nan")
            print(f"total: {world} rank{'s' if world > 1 else ''}, {total_rate:.1f} images/s "
                  f"({total_rate / world:.1f} per rank)", flush=True)
        # Every rank leaves the group together: a rank that tears its connections down while
        # another is still in a collective can make gloo abort at exit (pytorch/pytorch#190489).
        dist.barrier()
        dist.destroy_process_group()
    else:
        print(f"total: 1 rank, {rate:.1f} images/s", flush=True)


if __name__ == "__main__":
    main()
