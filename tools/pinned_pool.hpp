// Page-locked host buffers for the transfers of `streamvision run`'s CUDA path, reused from batch
// to batch. Allocating pinned memory locks pages and freeing it (cudaFreeHost) synchronises with
// the device, which would stall the pipeline that the buffers are there to keep busy: a block is
// allocated only when no free one is big enough, and comes back to the pool, instead of being
// freed, when the last tensor viewing it is destroyed (the writer thread may hold a result until
// it is written). Blocks are freed when the pool and every tensor of theirs are gone.
#pragma once

#include <cstddef>
#include <memory>

#include <streamvision/streamvision.hpp>

namespace svtool {

class PinnedPool {
 public:
  PinnedPool();
  // A page-locked uint8 [capacity] CPU tensor, capacity >= bytes (rounded up to a power of two,
  // at least 1 MiB, so that batches of varying size reuse blocks). Views of it made with its
  // owner (slice, or from_blob passing owner()) keep the block out of the pool. Thread-safe.
  streamvision::Tensor take(std::size_t bytes);

 private:
  struct Free;
  std::shared_ptr<Free> free_;  // shared with the blocks handed out, which come back into it
};

}  // namespace svtool
