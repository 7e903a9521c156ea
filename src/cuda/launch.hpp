// Internal: the CUDA plumbing every kernel file shares: LaunchScope, the one door every launch
// goes through, the launch policy (grid sizes) and stream-ordered scratch memory.
//
// LaunchScope: It makes the stream's device
// current for the launch, records the stream for tests (last_launch_stream), and turns launch
// failures into Errors. It never synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda_check.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision::detail {
void record_launch(const Stream& stream);  // src/core/launch_record.cpp
}

namespace streamvision::cuda {

class LaunchScope {
 public:
  LaunchScope(const Stream& stream, const char* op) : guard_(stream.device_index()), stream_(stream), op_(op) {
    detail::record_launch(stream);
  }
  cudaStream_t handle() const { return stream_.handle(); }
  int device() const { return stream_.device_index(); }
  void check_launch() const {
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) detail::throw_cuda_error(status, "kernel launch", op_);
  }

 private:
  detail::CudaDeviceGuard guard_;
  const Stream& stream_;
  const char* op_;
};

// ---- launch policy ------------------------------------------------------------------------------

// The block size of the library's one-dimensional kernels.
inline constexpr int kBlockThreads = 256;

// Blocks of `per_block` items that cover `items`.
constexpr unsigned blocks_for(std::int64_t items, std::int64_t per_block = kBlockThreads) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

// Multiprocessors of a device, cached (grid sizing of persistent and reduction kernels).
int multiprocessor_count(int device);

// The most dynamic shared memory one block may ask for after opting in (cudaFuncSetAttribute),
// cached: 227 KiB on Hopper, against the 48 KiB every kernel gets without asking.
int max_shared_bytes_optin(int device);

// The thread-block cluster sizes `kernel` can be launched with on `device` (the current device)
// in blocks of `threads` threads and up to `shared_bytes` of dynamic shared memory (which it
// allows the kernel), as a mask: bit k set when clusters of 2^k blocks (k = 0..4, up to 16,
// beyond 8 where the device allows non-portable sizes) run at all. 0 before Hopper, and when the
// loaded binary of `kernel` was built for an older architecture. Asked once per (kernel, device,
// threads, shared bytes): the queries do not touch any stream.
unsigned cluster_size_mask(const void* kernel, int threads, std::size_t shared_bytes, int device);

// Shared memory of one multiprocessor, cached (228 KiB on Hopper): what blocks resident together share.
int max_shared_bytes_per_multiprocessor(int device);

// Threads a device keeps resident (2048 per multiprocessor on Hopper): kernels that size their
// grid to fill the device aim at a multiple of it.
inline std::int64_t resident_threads(int device) { return std::int64_t{2048} * multiprocessor_count(device); }

// ---- scratch ------------------------------------------------------------------------------------

// Scratch memory on the op's stream (stream-ordered: freed on that stream when it goes), carved
// into 256-byte aligned arrays. Size it with aligned_bytes, then take the arrays in order.
class Scratch {
 public:
  Scratch(std::int64_t bytes, Device device, const Stream& stream)
      : buffer_(empty({std::max<std::int64_t>(bytes, 1)}, DType::UInt8, device, MemoryFormat::Contiguous, stream)) {}
  template <class U>
  U* take(std::int64_t count) {
    U* p = reinterpret_cast<U*>(static_cast<char*>(buffer_.data()) + used_);
    used_ += aligned_bytes<U>(count);
    return p;
  }
  template <class U>
  static constexpr std::int64_t aligned_bytes(std::int64_t count) {
    return (count * static_cast<std::int64_t>(sizeof(U)) + 255) / 256 * 256;
  }

 private:
  Tensor buffer_;
  std::int64_t used_ = 0;
};

}  // namespace streamvision::cuda
