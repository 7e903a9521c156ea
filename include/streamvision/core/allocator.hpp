// Pluggable memory allocation, one allocator per device type.
//
// The default CUDA allocator is stream-ordered: memory comes from a per-device memory pool
// through cudaMallocFromPoolAsync on the stream that will first use it, and goes back through
// cudaFreeAsync on that same stream. The pool keeps freed memory cached (its release threshold
// is unlimited), so steady-state calls never reach the driver and never block the host. This
// is also what makes allocation legal inside CUDA graph capture.
#pragma once

#include <cstddef>

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

// CPU allocations are 64-byte aligned (a cache line, and enough for any vector unit).
inline constexpr std::size_t kCpuAlignment = 64;

}  // namespace streamvision
