#include "pinned_pool.hpp"

#include <bit>
#include <mutex>
#include <vector>

namespace svtool {

namespace sv = streamvision;

struct PinnedPool::Free {
  std::mutex mutex;
  std::vector<sv::Tensor> blocks;  // page-locked, viewed by no one
};

PinnedPool::PinnedPool() : free_(std::make_shared<Free>()) {}

sv::Tensor PinnedPool::take(std::size_t bytes) {
  sv::Tensor block;
  {
    std::lock_guard<std::mutex> lock(free_->mutex);
    auto best = free_->blocks.end();  // the smallest free block that fits
    for (auto it = free_->blocks.begin(); it != free_->blocks.end(); ++it) {
      if (it->nbytes() >= bytes && (best == free_->blocks.end() || it->nbytes() < best->nbytes())) best = it;
    }
    if (best != free_->blocks.end()) {
      block = std::move(*best);
      free_->blocks.erase(best);
    }
  }
  if (!block.defined()) {
    const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(bytes, std::size_t{1} << 20));
    block = sv::empty_pinned({static_cast<std::int64_t>(capacity)}, sv::DType::UInt8);
  }
  // The handed-out tensor's owner returns the block to the pool instead of freeing it.
  std::shared_ptr<void> lease(block.data(), [free = free_, block](void*) {
    std::lock_guard<std::mutex> lock(free->mutex);
    try {
      free->blocks.push_back(block);
    } catch (const std::bad_alloc&) {
      // Not kept: the block is freed with the last copy of it (this deleter's).
    }
  });
  return sv::from_blob(block.data(), {block.numel()}, {1}, sv::DType::UInt8, sv::Device::cpu(), std::move(lease));
}

}  // namespace svtool
