// Stream, the per-thread current stream (guards, provider, default) and StreamGuard.
#include "streamvision/core/stream.hpp"

#include <atomic>
#include <vector>

#include "streamvision/core/cuda.hpp"
#include "streamvision/core/error.hpp"

#if SV_WITH_CUDA
#include "core/cuda_check.hpp"
#endif

namespace streamvision {

namespace {

// The innermost StreamGuard stream of this thread, per device (invalid Stream = none).
thread_local std::vector<Stream> t_guard_stream;

struct Provider {
  CurrentStreamProvider fn;
  void* context;
};
// Replaced as a whole so readers never see a function with another provider's context.
// Old entries are deliberately leaked: a reader may still hold one, and they are 16 bytes.
std::atomic<const Provider*> g_provider{nullptr};

int resolve_device(int device) { return device >= 0 ? device : cuda_current_device(); }

#if !SV_WITH_CUDA
[[noreturn]] void no_cuda(const char* op) {
  throw Error(ErrorKind::Runtime, op, "streamvision was built without CUDA");
}
#endif

}  // namespace

Stream Stream::borrow(StreamHandle handle, int device) {
  device = resolve_device(device);
  return Stream(handle, device, nullptr);
}

Stream Stream::legacy_default(int device) { return Stream(nullptr, resolve_device(device), nullptr); }

Stream Stream::current(int device) {
  device = resolve_device(device);
  if (static_cast<std::size_t>(device) < t_guard_stream.size()) {
    const Stream& guarded = t_guard_stream[device];
    if (guarded.is_valid()) return guarded;
  }
  if (const Provider* p = g_provider.load(std::memory_order_acquire); p != nullptr) {
    StreamHandle handle = nullptr;
    if (p->fn(p->context, device, &handle)) return Stream(handle, device, nullptr);
  }
  return Stream(nullptr, device, nullptr);
}

Stream guard_stream(int device) {
  device = resolve_device(device);
  if (static_cast<std::size_t>(device) < t_guard_stream.size()) return t_guard_stream[device];
  return Stream();
}

void set_current_stream_provider(CurrentStreamProvider provider, void* context) {
  g_provider.store(provider ? new Provider{provider, context} : nullptr, std::memory_order_release);
}

CurrentStreamProvider current_stream_provider() {
  const Provider* p = g_provider.load(std::memory_order_acquire);
  return p ? p->fn : nullptr;
}

StreamGuard::StreamGuard(const Stream& stream) : device_(stream.device_index()) {
  if (!stream.is_valid()) {
    throw Error(ErrorKind::Value, "StreamGuard", "stream", "a CUDA stream", "an invalid Stream");
  }
  if (t_guard_stream.size() <= static_cast<std::size_t>(device_)) t_guard_stream.resize(device_ + 1);
  previous_device_ = cuda_current_device();
#if SV_WITH_CUDA
  if (previous_device_ != device_) SV_CUDA_CHECK(cudaSetDevice(device_), "StreamGuard");
#endif
  previous_ = t_guard_stream[device_];
  t_guard_stream[device_] = stream;
}

StreamGuard::~StreamGuard() {
  t_guard_stream[device_] = previous_;
#if SV_WITH_CUDA
  if (previous_device_ != device_) (void)cudaSetDevice(previous_device_);
#endif
}

#if SV_WITH_CUDA

Stream Stream::create(int device, int priority, bool non_blocking) {
  device = resolve_device(device);
  detail::require_cuda_device(device, "Stream::create");
  detail::CudaDeviceGuard guard(device);
  cudaStream_t handle = nullptr;
  SV_CUDA_CHECK(cudaStreamCreateWithPriority(
                    &handle, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault, priority),
                "Stream::create");
  // Destroying a stream with pending work is allowed: CUDA releases it once the work is done.
  std::shared_ptr<void> owner(handle, [device](void* h) {
    detail::CudaDeviceGuard guard(device, detail::CudaDeviceGuard::kNoThrow);
    (void)cudaStreamDestroy(static_cast<cudaStream_t>(h));
  });
  return Stream(handle, device, std::move(owner));
}

void Stream::synchronize() const {
  if (!is_valid()) throw Error(ErrorKind::Value, "Stream::synchronize", "this", "a CUDA stream", "no stream");
  detail::CudaDeviceGuard guard(device_);
  SV_CUDA_CHECK(cudaStreamSynchronize(handle_), "Stream::synchronize");
}

bool Stream::query() const {
  if (!is_valid()) throw Error(ErrorKind::Value, "Stream::query", "this", "a CUDA stream", "no stream");
  detail::CudaDeviceGuard guard(device_);
  const cudaError_t status = cudaStreamQuery(handle_);
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  SV_CUDA_CHECK(status, "Stream::query");
  return true;
}

void Stream::wait(const Event& event) const {
  if (!is_valid() || !event.is_valid()) {
    throw Error(ErrorKind::Value, "Stream::wait", "event", "a valid stream and event", "an invalid one");
  }
  detail::CudaDeviceGuard guard(device_);
  SV_CUDA_CHECK(cudaStreamWaitEvent(handle_, event.handle(), 0), "Stream::wait");
}

void Stream::wait(const Stream& other) const {
  if (*this == other) return;
  Event marker = Event::create(other.device_index());
  marker.record(other);
  wait(marker);
}

#else  // CPU-only build

Stream Stream::create(int, int, bool) { no_cuda("Stream::create"); }
void Stream::synchronize() const { no_cuda("Stream::synchronize"); }
bool Stream::query() const { no_cuda("Stream::query"); }
void Stream::wait(const Event&) const { no_cuda("Stream::wait"); }
void Stream::wait(const Stream&) const { no_cuda("Stream::wait"); }

#endif

}  // namespace streamvision
