// Internal: checked CUDA runtime calls and a device guard. Only for translation units built
// with CUDA (SV_WITH_CUDA=1); the CPU-only build never includes CUDA headers.
#pragma once

#if !SV_WITH_CUDA
#error "cuda_check.hpp is only for CUDA-enabled translation units"
#endif

#include <cuda_runtime_api.h>

#include <cstddef>

#include "streamvision/core/device.hpp"
#include "streamvision/core/stream.hpp"

namespace streamvision::detail {

// Throws a RuntimeError-kind Error: "op: CUDA error cudaErrorX (text) in call".
[[noreturn]] void throw_cuda_error(cudaError_t error, const char* call, const char* op);

inline void cuda_check(cudaError_t error, const char* call, const char* op) {
  if (error != cudaSuccess) throw_cuda_error(error, call, op);
}

// Throws a clear error unless `device` is a usable CUDA device (there may be no driver).
void require_cuda_device(int device, const char* op);

// Makes `device` current for a scope; touches the runtime only when it has to switch. The
// kNoThrow form ignores failures, for destructors and deleters (a dead context at exit).
class CudaDeviceGuard {
 public:
  enum NoThrow { kNoThrow };
  explicit CudaDeviceGuard(int device);
  CudaDeviceGuard(int device, NoThrow) noexcept;
  ~CudaDeviceGuard();
  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;

 private:
  int previous_ = -1;
  int device_ = -1;
};

// Stream-ordered copy of `bytes` between devices (CPU or CUDA; peer copies between two GPUs),
// on `stream`, which belongs to the CUDA side (for two GPUs, the destination's).
void copy_bytes_async(void* dst, Device dst_device, const void* src, Device src_device, std::size_t bytes,
                      const Stream& stream);

}  // namespace streamvision::detail

#define SV_CUDA_CHECK(call, op) ::streamvision::detail::cuda_check((call), #call, (op))
