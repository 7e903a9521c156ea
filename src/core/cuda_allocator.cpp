// The default CUDA allocator: stream-ordered, from a memory pool of its own on each device.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "streamvision/core/allocator.hpp"
#include "streamvision/core/error.hpp"

#if SV_WITH_CUDA
#include "core/cuda_check.hpp"
#endif

namespace streamvision::detail {

namespace {

#if SV_WITH_CUDA

constexpr int kMaxDevices = 64;

class StreamOrderedCudaAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes, Device device, const Stream& stream) override {
    if (nbytes == 0) return nullptr;
    require_cuda_device(device.index, "allocate");
    CudaDeviceGuard guard(device.index);
    cudaMemPool_t pool = pool_of(device.index);
    void* ptr = nullptr;
    const cudaError_t status = cudaMallocFromPoolAsync(&ptr, nbytes, pool, stream.handle());
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw Error(ErrorKind::Runtime, "allocate",
                  "cannot allocate " + std::to_string(nbytes) + " bytes on " + device.str() + ": " +
                      cudaGetErrorString(status));
    }
    return ptr;
  }

  void deallocate(void* ptr, std::size_t, Device device, const Stream& stream) noexcept override {
    if (ptr == nullptr) return;
    detail::CudaDeviceGuard guard(device.index, detail::CudaDeviceGuard::kNoThrow);
    // Errors here (a dead context at process exit) cannot be reported from a destructor.
    if (cudaFreeAsync(ptr, stream.handle()) != cudaSuccess) (void)cudaGetLastError();
  }

  // The pools created so far, for statistics and trimming.
  std::vector<cudaMemPool_t> pools() const {
    std::vector<cudaMemPool_t> out;
    for (int d = 0; d < kMaxDevices; ++d) {
      if (cudaMemPool_t pool = pool_if_created(d)) out.push_back(pool);
    }
    return out;
  }
  cudaMemPool_t pool_if_created(int device) const {
    return device >= 0 && device < kMaxDevices ? pools_[device].load(std::memory_order_acquire) : nullptr;
  }

 private:
  // A pool of our own per device (not the device's default pool, which other libraries in the
  // process share and configure), told to keep freed memory instead of returning it to the
  // driver at every synchronization, so steady-state allocations stay inside the pool;
  // cuda_empty_cache() gives the cached part back.
  cudaMemPool_t pool_of(int device) {
    if (device >= kMaxDevices) {
      throw Error(ErrorKind::Runtime, "allocate", "device index above " + std::to_string(kMaxDevices));
    }
    std::call_once(configured_[device], [this, device] {
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device;
      cudaMemPool_t pool = nullptr;
      SV_CUDA_CHECK(cudaMemPoolCreate(&pool, &props), "allocate");
      std::uint64_t threshold = UINT64_MAX;
      SV_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), "allocate");
      pools_[device].store(pool, std::memory_order_release);
    });
    return pools_[device].load(std::memory_order_acquire);
  }

  std::once_flag configured_[kMaxDevices];
  std::atomic<cudaMemPool_t> pools_[kMaxDevices] = {};
};

StreamOrderedCudaAllocator& cuda_allocator() {
  static StreamOrderedCudaAllocator allocator;
  return allocator;
}

#else

class StreamOrderedCudaAllocator final : public Allocator {
 public:
  void* allocate(std::size_t, Device device, const Stream&) override {
    throw Error(ErrorKind::Runtime, "allocate", "device", "a device this build supports",
                device.str() + " (streamvision was built without CUDA)");
  }
  void deallocate(void*, std::size_t, Device, const Stream&) noexcept override {}
};

#endif

}  // namespace

Allocator& default_cuda_allocator() {
#if SV_WITH_CUDA
  return cuda_allocator();
#else
  static StreamOrderedCudaAllocator allocator;
  return allocator;
#endif
}

}  // namespace streamvision::detail

namespace streamvision {

CudaMemoryStats cuda_memory_stats(int device) {
  CudaMemoryStats stats;
#if SV_WITH_CUDA
  if (detail::cuda_allocator().pools().empty()) return stats;  // never used (or no GPU at all)
  if (device < 0) SV_CUDA_CHECK(cudaGetDevice(&device), "cuda_memory_stats");
  cudaMemPool_t pool = detail::cuda_allocator().pool_if_created(device);
  if (pool == nullptr) return stats;
  std::uint64_t value = 0;
  SV_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &value), "cuda_memory_stats");
  stats.allocated = value;
  SV_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &value), "cuda_memory_stats");
  stats.reserved = value;
#else
  (void)device;
#endif
  return stats;
}

void cuda_empty_cache() {
#if SV_WITH_CUDA
  for (cudaMemPool_t pool : detail::cuda_allocator().pools()) {
    SV_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0), "empty_cache");
  }
#endif
}

}  // namespace streamvision
