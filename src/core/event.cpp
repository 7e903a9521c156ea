#include "streamvision/core/cuda.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/core/stream.hpp"

#if SV_WITH_CUDA
#include "core/cuda_check.hpp"
#endif

namespace streamvision {

#if SV_WITH_CUDA

Event Event::create(int device, bool enable_timing) {
  if (device < 0) device = cuda_current_device();
  detail::require_cuda_device(device, "Event::create");
  detail::CudaDeviceGuard guard(device);
  cudaEvent_t handle = nullptr;
  SV_CUDA_CHECK(cudaEventCreateWithFlags(&handle, enable_timing ? cudaEventDefault : cudaEventDisableTiming),
                "Event::create");
  Event event;
  event.handle_ = handle;
  event.device_ = device;
  event.owner_ = std::shared_ptr<void>(handle, [](void* h) { (void)cudaEventDestroy(static_cast<cudaEvent_t>(h)); });
  return event;
}

void Event::record(const Stream& stream) const {
  if (!is_valid() || !stream.is_valid()) {
    throw Error(ErrorKind::Value, "Event::record", "stream", "a valid event and stream", "an invalid one");
  }
  if (stream.device_index() != device_) {
    throw Error(ErrorKind::Value, "Event::record", "stream", "a stream on cuda:" + std::to_string(device_),
                "a stream on cuda:" + std::to_string(stream.device_index()));
  }
  detail::CudaDeviceGuard guard(device_);
  SV_CUDA_CHECK(cudaEventRecord(handle_, stream.handle()), "Event::record");
}

void Event::synchronize() const {
  if (!is_valid()) throw Error(ErrorKind::Value, "Event::synchronize", "this", "a valid event", "none");
  SV_CUDA_CHECK(cudaEventSynchronize(handle_), "Event::synchronize");
}

bool Event::query() const {
  if (!is_valid()) throw Error(ErrorKind::Value, "Event::query", "this", "a valid event", "none");
  const cudaError_t status = cudaEventQuery(handle_);
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  SV_CUDA_CHECK(status, "Event::query");
  return true;
}

float Event::elapsed_ms(const Event& end) const {
  float ms = 0.0f;
  SV_CUDA_CHECK(cudaEventElapsedTime(&ms, handle_, end.handle_), "Event::elapsed_ms");
  return ms;
}

#else  // CPU-only build

namespace {
[[noreturn]] void no_cuda(const char* op) {
  throw Error(ErrorKind::Runtime, op, "streamvision was built without CUDA");
}
}  // namespace

Event Event::create(int, bool) { no_cuda("Event::create"); }
void Event::record(const Stream&) const { no_cuda("Event::record"); }
void Event::synchronize() const { no_cuda("Event::synchronize"); }
bool Event::query() const { no_cuda("Event::query"); }
float Event::elapsed_ms(const Event&) const { no_cuda("Event::elapsed_ms"); }

#endif

}  // namespace streamvision
