#include <mutex>

#include "cuda/launch.hpp"

namespace streamvision::cuda {

int multiprocessor_count(int device) {
  constexpr int kMaxDevices = 64;
  static std::once_flag once[kMaxDevices];
  static int count[kMaxDevices];
  if (device < 0 || device >= kMaxDevices) return 1;
  std::call_once(once[device], [device] {
    int n = 0;
    SV_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "multiprocessor_count");
    count[device] = n;
  });
  return count[device];
}

int max_shared_bytes_optin(int device) {
  constexpr int kMaxDevices = 64;
  static std::once_flag once[kMaxDevices];
  static int bytes[kMaxDevices];
  if (device < 0 || device >= kMaxDevices) return 48 * 1024;
  std::call_once(once[device], [device] {
    int n = 0;
    SV_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "max_shared_bytes_optin");
    bytes[device] = n;
  });
  return bytes[device];
}

}  // namespace streamvision::cuda
