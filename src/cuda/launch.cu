#include <mutex>

#include "cuda/launch.hpp"

namespace streamvision::cuda {

namespace {

// A device attribute, read once per device (they do not change while the process runs);
// `fallback` for an index outside the table.
template <cudaDeviceAttr kAttribute>
int cached_attribute(int device, int fallback, const char* op) {
  constexpr int kMaxDevices = 64;
  static std::once_flag once[kMaxDevices];
  static int value[kMaxDevices];
  if (device < 0 || device >= kMaxDevices) return fallback;
  std::call_once(once[device], [device, op] {
    int n = 0;
    SV_CUDA_CHECK(cudaDeviceGetAttribute(&n, kAttribute, device), op);
    value[device] = n;
  });
  return value[device];
}

}  // namespace

int multiprocessor_count(int device) {
  return cached_attribute<cudaDevAttrMultiProcessorCount>(device, 1, "multiprocessor_count");
}

int max_shared_bytes_optin(int device) {
  return cached_attribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>(device, 48 * 1024, "max_shared_bytes_optin");
}

}  // namespace streamvision::cuda
