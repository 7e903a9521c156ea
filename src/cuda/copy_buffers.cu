// CUDA copy_buffers: see copy_buffers.hpp. Block row y copies buffer y; its blocks stride over
// the buffer 16 bytes per thread when both ends are 16-byte aligned (the decoder's staging
// offsets and torch's allocations are), byte by byte otherwise and for the tail.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/copy_buffers.hpp"
#include "cuda/launch.hpp"

namespace streamvision::cuda {

namespace {

struct CopyTable {
  BufferCopy copy[kMaxCopiesPerLaunch];
};

constexpr int kVectorBytes = 16;
constexpr unsigned kMaxBlocksPerBuffer = 1024;  // beyond that, blocks loop (grid stride)

__global__ void copy_buffers_kernel(const CopyTable table) {
  const BufferCopy c = table.copy[blockIdx.y];
  auto* dst = static_cast<unsigned char*>(c.dst);
  const auto* src = static_cast<const unsigned char*>(c.src);
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::int64_t done = 0;
  if (((reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src)) % kVectorBytes) == 0) {
    const std::int64_t vectors = c.bytes / kVectorBytes;
    for (std::int64_t i = first; i < vectors; i += step) {
      reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
    }
    done = vectors * kVectorBytes;
  }
  for (std::int64_t i = done + first; i < c.bytes; i += step) dst[i] = src[i];
}

}  // namespace

void copy_buffers(const BufferCopy* copies, std::size_t count, const Stream& stream, const char* op) {
  LaunchScope scope(stream, op);
  for (std::size_t first = 0; first < count; first += kMaxCopiesPerLaunch) {
    const std::size_t n = std::min(kMaxCopiesPerLaunch, count - first);
    CopyTable table{};
    std::int64_t largest = 0;
    for (std::size_t i = 0; i < n; ++i) {
      table.copy[i] = copies[first + i];
      largest = std::max(largest, copies[first + i].bytes);
    }
    if (largest == 0) continue;
    const unsigned blocks = std::min(kMaxBlocksPerBuffer, blocks_for((largest + kVectorBytes - 1) / kVectorBytes));
    copy_buffers_kernel<<<dim3(blocks, static_cast<unsigned>(n)), kBlockThreads, 0, scope.handle()>>>(table);
    scope.check_launch();
  }
}

}  // namespace streamvision::cuda
