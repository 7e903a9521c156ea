// The default CUDA allocator: stream-ordered, from each device's default memory pool.
#include <cstdint>
#include <mutex>
#include <string>

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

 private:
  // The device's default pool, told once to keep freed memory instead of returning it to the
  // driver at every synchronization, so steady-state allocations stay inside the pool.
  cudaMemPool_t pool_of(int device) {
    if (device >= kMaxDevices) {
      throw Error(ErrorKind::Runtime, "allocate", "device index above " + std::to_string(kMaxDevices));
    }
    std::call_once(configured_[device], [this, device] {
      cudaMemPool_t pool = nullptr;
      SV_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device), "allocate");
      std::uint64_t threshold = UINT64_MAX;
      SV_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), "allocate");
      pools_[device] = pool;
    });
    return pools_[device];
  }

  std::once_flag configured_[kMaxDevices];
  cudaMemPool_t pools_[kMaxDevices] = {};
};

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
  static StreamOrderedCudaAllocator allocator;
  return allocator;
}

}  // namespace streamvision::detail
