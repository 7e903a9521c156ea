// Pluggable memory allocation, one allocator per device type.
//
// The default CUDA allocator is stream-ordered: memory comes from a memory pool of its own on
// each device (not the device's default pool, which other libraries share) through
// cudaMallocFromPoolAsync on the stream that will first use it, and goes back through
// cudaFreeAsync on that same stream. The pool keeps freed memory cached (its release threshold
// is unlimited), so steady-state calls never reach the driver and never block the host;
// cuda_empty_cache() returns the cached part, as torch.cuda.empty_cache() does for PyTorch's.
// This is also what makes allocation legal inside CUDA graph capture. (Ops on PyTorch tensors
// on PyTorch's current stream allocate from PyTorch's allocator instead, see the bindings.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "streamvision/core/device.hpp"
#include "streamvision/core/stream.hpp"

namespace streamvision {

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory usable by work submitted to `stream` after this call (for the CPU the
  // stream is invalid and ignored). nbytes == 0 may return nullptr. Throws Error on failure.
  virtual void* allocate(std::size_t nbytes, Device device, const Stream& stream) = 0;
  // Gives memory back, ordered after all work already submitted to `stream`.
  virtual void deallocate(void* ptr, std::size_t nbytes, Device device,
                          const Stream& stream) noexcept = 0;
};

// Replace the allocator of a device type (nullptr restores the default); returns the previous
// one. The allocator must outlive every tensor it allocated.
Allocator* set_allocator(DeviceType type, Allocator* allocator);
Allocator& get_allocator(DeviceType type);

// The default CUDA allocator's pool on `device` (-1: the current device): bytes in live
// allocations and bytes held from the driver, cached free memory included (what
// torch.cuda.memory_allocated / memory_reserved say of PyTorch's). Zero before its first use.
struct CudaMemoryStats {
  std::uint64_t allocated = 0;
  std::uint64_t reserved = 0;
};
CudaMemoryStats cuda_memory_stats(int device = -1);

// Returns the default CUDA allocator's cached free memory to the driver, on every device. Never
// waits: memory freed in a stream's order that the host has not yet seen complete stays cached
// (synchronize first to release everything).
void cuda_empty_cache();

// CPU allocations are 64-byte aligned (a cache line, and enough for any vector unit).
inline constexpr std::size_t kCpuAlignment = 64;

}  // namespace streamvision
