// The allocator table and the CPU allocator.
#include "streamvision/core/allocator.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "streamvision/core/error.hpp"

namespace streamvision {

namespace detail {
Allocator& default_cuda_allocator();  // cuda_allocator.cpp
}

namespace {

class CpuAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes, Device, const Stream&) override {
    if (nbytes == 0) return nullptr;
    const std::size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    void* ptr = std::aligned_alloc(kCpuAlignment, rounded);
    if (ptr == nullptr) {
      throw Error(ErrorKind::Runtime, "allocate", "out of host memory allocating " + std::to_string(nbytes) + " bytes");
    }
    return ptr;
  }
  void deallocate(void* ptr, std::size_t, Device, const Stream&) noexcept override { std::free(ptr); }
};

CpuAllocator g_cpu_allocator;
std::atomic<Allocator*> g_allocator[kNumDeviceTypes] = {nullptr, nullptr};

Allocator& default_allocator(DeviceType type) {
  if (type == DeviceType::CPU) return g_cpu_allocator;
  return detail::default_cuda_allocator();
}

}  // namespace

Allocator* set_allocator(DeviceType type, Allocator* allocator) {
  return g_allocator[static_cast<int>(type)].exchange(allocator, std::memory_order_acq_rel);
}

Allocator& get_allocator(DeviceType type) {
  Allocator* custom = g_allocator[static_cast<int>(type)].load(std::memory_order_acquire);
  return custom ? *custom : default_allocator(type);
}

}  // namespace streamvision
