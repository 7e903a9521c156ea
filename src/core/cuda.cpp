// CUDA runtime facts, checked calls and the device guard. In a CPU-only build the queries
// answer "no device" and nothing here touches CUDA.
#include "streamvision/core/cuda.hpp"

#include <string>

#include "streamvision/core/error.hpp"

#if SV_WITH_CUDA
#include "core/cuda_check.hpp"
#endif

namespace streamvision {

#if SV_WITH_CUDA

bool built_with_cuda() { return true; }

int cuda_device_count() {
  // Cached: the count cannot change in a process. Without a driver or GPU the runtime
  // returns an error, which means "no device" for us; clear it so it does not linger.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    return n;
  }();
  return count;
}

int cuda_current_device() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return device;
}

void cuda_set_device(int device) {
  detail::require_cuda_device(device, "cuda_set_device");
  SV_CUDA_CHECK(cudaSetDevice(device), "cuda_set_device");
}

int cuda_device_of_pointer(const void* ptr) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged ? attributes.device : -1;
}

namespace detail {

void throw_cuda_error(cudaError_t error, const char* call, const char* op) {
  (void)cudaGetLastError();  // reset non-sticky errors so the next call starts clean
  throw Error(ErrorKind::Runtime, op,
              std::string("CUDA error ") + cudaGetErrorName(error) + " (" +
                  cudaGetErrorString(error) + ") in " + call);
}

void require_cuda_device(int device, const char* op) {
  const int count = cuda_device_count();
  if (device >= 0 && device < count) return;
  if (count == 0) {
    int n = 0;
    const cudaError_t why = cudaGetDeviceCount(&n);
    (void)cudaGetLastError();
    throw Error(ErrorKind::Runtime, op, "device",
                "an available CUDA device",
                "cuda:" + std::to_string(device) + ", but no CUDA device is usable here (" +
                    (why == cudaSuccess ? std::string("0 devices") : cudaGetErrorString(why)) + ")");
  }
  throw Error(ErrorKind::Runtime, op, "device",
              "a CUDA device index in [0, " + std::to_string(count) + ")",
              "cuda:" + std::to_string(device));
}

CudaDeviceGuard::CudaDeviceGuard(int device) : device_(device) {
  previous_ = cuda_current_device();
  if (previous_ != device) SV_CUDA_CHECK(cudaSetDevice(device), "CudaDeviceGuard");
}

CudaDeviceGuard::CudaDeviceGuard(int device, NoThrow) noexcept : device_(device) {
  if (cudaGetDevice(&previous_) != cudaSuccess) {
    (void)cudaGetLastError();
    previous_ = device;
  }
  if (previous_ != device) (void)cudaSetDevice(device);
}

CudaDeviceGuard::~CudaDeviceGuard() {
  if (previous_ != device_) (void)cudaSetDevice(previous_);
}

void copy_bytes_async(void* dst, Device dst_device, const void* src, Device src_device, std::size_t bytes,
                      const Stream& stream) {
  CudaDeviceGuard guard(stream.device_index());
  const cudaStream_t s = static_cast<cudaStream_t>(stream.handle());
  if (dst_device.is_cuda() && src_device.is_cuda()) {
    SV_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device.index, src, src_device.index, bytes, s), "copy_");
  } else {
    const cudaMemcpyKind kind = dst_device.is_cuda() ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    SV_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s), "copy_");
  }
}

}  // namespace detail

#else  // CPU-only build

bool built_with_cuda() { return false; }
int cuda_device_count() { return 0; }
int cuda_current_device() { return 0; }
void cuda_set_device(int) {
  throw Error(ErrorKind::Runtime, "cuda_set_device", "streamvision was built without CUDA");
}
int cuda_device_of_pointer(const void*) { return -1; }

#endif

}  // namespace streamvision
