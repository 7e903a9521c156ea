// Internal: many device-to-device copies of whole buffers in one launch (per kMaxCopiesPerLaunch),
// for the GPU JPEG decoder's staging buffer -> outputs step. cudaMemcpyAsync per buffer costs a
// few microseconds of host time and a copy of its own on the device each (256 of them per
// decoded batch); cudaMemcpyBatchAsync would be one call, but it refuses the legacy default
// stream (torch's default). The copies travel in the kernel's arguments: nothing is uploaded and
// nothing waits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "streamvision/core/stream.hpp"

namespace streamvision::cuda {

struct BufferCopy {
  void* dst;
  const void* src;
  std::int64_t bytes;  // >= 0
};

inline constexpr std::size_t kMaxCopiesPerLaunch = 256;  // 6 KB of kernel arguments

// Queues copies[0..count) on `stream` (a CUDA stream; every pointer on its device). Buffers must
// not overlap one another. `op` names the caller in launch errors.
void copy_buffers(const BufferCopy* copies, std::size_t count, const Stream& stream, const char* op);

}  // namespace streamvision::cuda
