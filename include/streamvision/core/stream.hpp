// CUDA streams and events, and the rule that decides on which stream an op runs.
//
// Invariants (the heart of streamvision):
//  * Every CUDA launch, copy and stream-ordered allocation of the library goes to the stream
//    an op was given explicitly, or else to Stream::current(device) of the input's device.
//  * Stream::current(device) is per thread and per device. It resolves, in order, to
//      1. the innermost live StreamGuard of this thread for that device;
//      2. else the stream the registered current-stream provider names (a framework hook:
//         the Python module makes it PyTorch's torch.cuda.current_stream(device));
//      3. else the legacy default stream of that device (PyTorch's default too).
//  * No op synchronizes the host, so every op can be captured into a CUDA graph.
//
// The handle types are the CUDA driver's opaque structs, so this header needs no CUDA
// header: StreamHandle is exactly cudaStream_t / CUstream and EventHandle is cudaEvent_t.
#pragma once

#include <memory>

struct CUstream_st;
struct CUevent_st;

namespace streamvision {

using StreamHandle = CUstream_st*;
using EventHandle = CUevent_st*;

class Event;

class Stream {
 public:
  // No stream: what CPU work is given. Not usable for CUDA calls.
  Stream() = default;

  // A new stream we own (destroyed when the last copy of this Stream goes away).
  // device -1 means the current CUDA device. Non-blocking streams do not synchronize with
  // the legacy default stream, like torch.cuda.Stream.
  static Stream create(int device = -1, int priority = 0, bool non_blocking = true);
  // Someone else's stream: we never destroy it. The caller keeps it alive while we use it.
  static Stream borrow(StreamHandle handle, int device);
  // The legacy default stream of a device (handle null), PyTorch's default stream.
  static Stream legacy_default(int device = -1);
  // The stream an op on `device` runs on when none is given (see the header comment).
  static Stream current(int device = -1);

  StreamHandle handle() const { return handle_; }
  int device_index() const { return device_; }
  bool is_valid() const { return device_ >= 0; }
  bool is_owned() const { return owner_ != nullptr; }
  bool is_legacy_default() const { return is_valid() && handle_ == nullptr; }

  // Host-blocking helpers for users and tests. Ops never call these.
  void synchronize() const;
  bool query() const;  // true when all work submitted so far has completed

  // Make future work on this stream wait for `event` / for all work submitted to `other`
  // so far. Neither blocks the host.
  void wait(const Event& event) const;
  void wait(const Stream& other) const;

  friend bool operator==(const Stream& a, const Stream& b) {
    return a.handle_ == b.handle_ && a.device_ == b.device_;
  }

 private:
  Stream(StreamHandle handle, int device, std::shared_ptr<void> owner)
      : handle_(handle), device_(device), owner_(std::move(owner)) {}

  StreamHandle handle_ = nullptr;
  int device_ = -1;
  std::shared_ptr<void> owner_;  // set only for streams we created
};

class Event {
 public:
  Event() = default;
  // Timing events cost more to record; create them only to measure.
  static Event create(int device = -1, bool enable_timing = false);

  void record(const Stream& stream) const;
  void synchronize() const;
  bool query() const;
  // Milliseconds between this event and `end`; both must have been recorded with timing.
  float elapsed_ms(const Event& end) const;

  EventHandle handle() const { return handle_; }
  int device_index() const { return device_; }
  bool is_valid() const { return handle_ != nullptr; }

 private:
  EventHandle handle_ = nullptr;
  int device_ = -1;
  std::shared_ptr<void> owner_;
};

// Makes `stream` the current stream of its device for this thread, and its device the current
// CUDA device, until destruction, which restores both. Guards nest; they must be destroyed in
// reverse order of construction (RAII does that), like c10::cuda::CUDAStreamGuard.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;          // the guard stream it replaces, invalid if none was active
  int previous_device_ = -1;
  int device_ = -1;
};

// The framework hook. `provider(context, device, &handle)` returns true and sets `handle`
// when the framework has a current stream for `device`; false means "no opinion" and the
// default stream is used. It is called on the thread that runs the op, must not throw and
// must be cheap (it runs once per op). Pass nullptr to remove it. Thread-safe.
using CurrentStreamProvider = bool (*)(void* context, int device, StreamHandle* handle);
void set_current_stream_provider(CurrentStreamProvider provider, void* context);
CurrentStreamProvider current_stream_provider();

// The stream of this thread's innermost live StreamGuard for `device` (-1: the current
// device), or an invalid Stream when no guard is active. Bindings use it to let a guard win over
// the stream of the framework an input came from.
Stream guard_stream(int device = -1);

// The stream of this thread's most recent CUDA kernel launch by the library (invalid before
// the first). For tests and debugging: it shows where an op actually ran.
Stream last_launch_stream();

}  // namespace streamvision
