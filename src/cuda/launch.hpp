// Internal: what every CUDA launch of the library goes through. It makes the stream's device
// current for the launch, records the stream for tests (last_launch_stream), and turns launch
// failures into Errors. It never synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include "core/cuda_check.hpp"
#include "streamvision/core/stream.hpp"

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

// Multiprocessors of a device, cached (grid sizing of persistent and reduction kernels).
int multiprocessor_count(int device);

}  // namespace streamvision::cuda
