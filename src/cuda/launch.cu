#include <mutex>
#include <vector>

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

int max_shared_bytes_per_multiprocessor(int device) {
  return cached_attribute<cudaDevAttrMaxSharedMemoryPerMultiprocessor>(device, 48 * 1024, "max_shared_bytes_per_multiprocessor");
}

namespace {

// Puts the calling thread in relaxed stream-capture mode while it lives: the first call of a kernel
// may come inside a graph capture (torch.cuda.graph captures in global mode), where setting a
// function attribute counts as a potentially unsafe call and would invalidate the user's capture.
// None of the queries below touches a stream.
class RelaxedCaptureScope {
 public:
  RelaxedCaptureScope() { ok_ = cudaThreadExchangeStreamCaptureMode(&mode_) == cudaSuccess; }
  ~RelaxedCaptureScope() {
    if (ok_) (void)cudaThreadExchangeStreamCaptureMode(&mode_);
  }
  RelaxedCaptureScope(const RelaxedCaptureScope&) = delete;
  RelaxedCaptureScope& operator=(const RelaxedCaptureScope&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
  bool ok_ = false;
};

unsigned query_cluster_sizes(const void* kernel, int threads, std::size_t shared_bytes, int device) {
  RelaxedCaptureScope relaxed;
  int supported = 0;
  if (cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, device) != cudaSuccess || !supported) return 0;
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess || attributes.binaryVersion < 90) return 0;
  // Clusters of more than 8 blocks must be allowed per kernel; where the device refuses, they
  // simply do not appear in the mask.
  (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (shared_bytes > 48 * 1024 &&
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  unsigned mask = 0;
  for (int k = 0; k <= 4; ++k) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(1u << k);
    config.blockDim = dim3(static_cast<unsigned>(threads));
    config.dynamicSmemBytes = shared_bytes;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = 1u << k;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess && clusters > 0) mask |= 1u << k;
  }
  (void)cudaGetLastError();  // a refused query leaves no error for the next launch check to find
  return mask;
}

}  // namespace

unsigned cluster_size_mask(const void* kernel, int threads, std::size_t shared_bytes, int device) {
  struct Entry {
    const void* kernel;
    int threads;
    std::size_t shared_bytes;
    int device;
    unsigned mask;
  };
  static std::mutex mutex;
  static auto* entries = new std::vector<Entry>();  // never destroyed: kernels live as long as the process
  std::lock_guard<std::mutex> lock(mutex);
  for (const Entry& e : *entries) {
    if (e.kernel == kernel && e.threads == threads && e.shared_bytes == shared_bytes && e.device == device) return e.mask;
  }
  const unsigned mask = query_cluster_sizes(kernel, threads, shared_bytes, device);
  entries->push_back({kernel, threads, shared_bytes, device, mask});
  return mask;
}

}  // namespace streamvision::cuda
