// Facts about the CUDA runtime that users and tests need without including CUDA headers.
#pragma once

namespace streamvision {

// True when the library was compiled with CUDA kernels.
bool built_with_cuda();
// Number of usable CUDA devices; 0 without a driver, without a GPU, or in a CPU-only build.
int cuda_device_count();
inline bool cuda_is_available() { return cuda_device_count() > 0; }
// The calling thread's current CUDA device (cudaGetDevice).
int cuda_current_device();
void cuda_set_device(int device);
// The device a CUDA pointer belongs to, or -1 for host memory (and in a CPU-only build).
int cuda_device_of_pointer(const void* ptr);

}  // namespace streamvision
