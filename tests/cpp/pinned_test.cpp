// Page-locked host memory (empty_pinned, is_pinned) and copy_ with non_blocking: round trips
// through pinned buffers equal their input for every layout, a non-blocking copy returns while
// its stream is still held back (and an Event orders the host after it), pageable memory and the
// default keep blocking, and without a device empty_pinned fails clearly. The CUDA tests skip
// without a GPU.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "test_utils.hpp"
#if SV_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace svt {
namespace {

using Clock = std::chrono::steady_clock;

TEST(Pinned, OrdinaryTensorsAreNotPinned) {
  EXPECT_FALSE(is_pinned(Tensor()));
  EXPECT_FALSE(is_pinned(random_cpu({3, 4, 5}, DType::UInt8, 1)));
  EXPECT_FALSE(is_pinned(empty({0}, DType::Float32, Device::cpu())));
  std::uint8_t bytes[4] = {};
  EXPECT_FALSE(is_pinned(from_blob(bytes, {4}, {1}, DType::UInt8, Device::cpu(), nullptr)));
}

// ctest runs the NoGpu tests with CUDA_VISIBLE_DEVICES="" (tests/CMakeLists.txt), also on GPU
// machines; in a CPU-only build the message names the build instead.
TEST(NoGpu, PinnedMemoryFailsClearly) {
  ASSERT_FALSE(cuda_is_available()) << "run with CUDA_VISIBLE_DEVICES=\"\"";
  expect_error(ErrorKind::Runtime, "empty_pinned: argument 'device': expected a usable CUDA device",
               [] { empty_pinned({2, 3}, DType::UInt8); });
  expect_error(ErrorKind::Runtime, built_with_cuda() ? "no CUDA device is usable here" : "without CUDA",
               [] { empty_pinned({0}, DType::Float32); });
  // Arguments are checked before the device, as every factory does.
  expect_error(ErrorKind::Value, "empty_pinned: argument 'format'",
               [] { empty_pinned({2, 3}, DType::UInt8, MemoryFormat::Preserve); });
  expect_error(ErrorKind::Value, "empty_pinned: argument 'shape'", [] { empty_pinned({2, -3}, DType::UInt8); });
  // non_blocking changes nothing for copies on the CPU.
  const Tensor src = random_cpu({3, 5, 7}, DType::Float32, 2);
  const Tensor dst = empty({3, 5, 7}, DType::Float32, Device::cpu(), MemoryFormat::ChannelsLast);
  copy_(dst, src, std::nullopt, /*non_blocking=*/true);
  EXPECT_TRUE(bitwise_equal(src, dst));
  EXPECT_EQ(to_device(src, Device::cpu(), std::nullopt, true).data(), src.data());
}

// ---- CUDA (skipped without a GPU) ----------------------------------------------------------

TEST(Pinned, EmptyPinnedGivesPageLockedCpuTensors) {
  SV_REQUIRE_GPU();
  const Tensor t = empty_pinned({2, 3, 5, 7}, DType::Float32);
  EXPECT_TRUE(t.device().is_cpu());
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_TRUE(is_pinned(t));
  // The memory is ordinary host memory to the host.
  for (std::int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = static_cast<float>(i);
  EXPECT_EQ(t.data_as<float>()[t.numel() - 1], static_cast<float>(t.numel() - 1));
  // Views share the allocation; a view over it without its owner is recognised by the driver.
  EXPECT_TRUE(is_pinned(t.slice(2, 1, 4)));
  EXPECT_TRUE(is_pinned(t.select(0, 1)));
  EXPECT_TRUE(is_pinned(from_blob(t.data(), {10}, {1}, DType::Float32, Device::cpu(), nullptr)));
  const Tensor cl = empty_pinned({2, 3, 5, 7}, DType::UInt16, MemoryFormat::ChannelsLast);
  EXPECT_TRUE(cl.is_channels_last());
  EXPECT_TRUE(is_pinned(cl));
  const Tensor none = empty_pinned({0, 3}, DType::UInt8);
  EXPECT_EQ(none.numel(), 0);
  EXPECT_TRUE(is_pinned(none));
  EXPECT_FALSE(is_pinned(empty({4}, DType::UInt8, kGpu)));
  EXPECT_FALSE(is_pinned(random_cpu({3, 4, 5}, DType::UInt8, 1)));
  expect_error(ErrorKind::Value, "empty_pinned: argument 'format'",
               [] { empty_pinned({2, 3}, DType::UInt8, MemoryFormat::Preserve); });
}

// A CPU copy of `src` in page-locked memory laid out as `layout`: contiguous, channels_last, or
// a window of a larger pinned buffer (not dense: copies with it take the blocking path).
Tensor pinned_with_layout(const Tensor& src, Layout layout) {
  const Dims shape(src.shape());
  Tensor out;
  if (layout == Layout::Sliced) {
    Dims big = shape;
    big[shape.size() - 2] += 3;
    big[shape.size() - 1] += 5;
    out = empty_pinned(big, src.dtype())
              .slice(shape.size() - 2, 1, 1 + shape[shape.size() - 2])
              .slice(shape.size() - 1, 2, 2 + shape[shape.size() - 1]);
  } else {
    out = empty_pinned(shape, src.dtype(), layout == Layout::ChannelsLast ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
  }
  copy_(out, src);
  return out;
}

TEST(Pinned, NonBlockingRoundTripThroughPinnedBuffersEqualsTheInput) {
  SV_REQUIRE_GPU();
  const Stream s = Stream::create(0);
  const Event done = Event::create(0);
  std::uint64_t seed = 700;
  for (DType dtype : {DType::UInt8, DType::UInt16, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64,
                      DType::Int64, DType::Bool}) {
    for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast, Layout::Sliced}) {
      const Dims shape{2, 3, 17, 29};
      SCOPED_TRACE(describe(shape, dtype, layout));
      const Tensor src = random_cpu(shape, dtype, seed++);
      const Tensor up = pinned_with_layout(src, layout);
      EXPECT_TRUE(is_pinned(up));
      // Host -> device into a contiguous tensor (a channels_last source changes layout on the
      // device), then device -> host into a pinned buffer in the source's layout, both queued.
      const Tensor gpu = empty(shape, dtype, kGpu, MemoryFormat::Contiguous, s);
      copy_(gpu, up, s, /*non_blocking=*/true);
      const Tensor down = pinned_with_layout(random_cpu(shape, dtype, seed++), layout);
      copy_(down, gpu, s, /*non_blocking=*/true);
      // A device view that is not dense, downloaded into a dense pinned buffer.
      const Tensor window = gpu.slice(3, 3, 20);
      const Tensor window_down = empty_pinned(Dims(window.shape()), dtype);
      copy_(window_down, window, s, /*non_blocking=*/true);
      // to_device from pinned memory, queued too.
      const Tensor gpu2 = to_device(up, kGpu, s, /*non_blocking=*/true);
      const Tensor down2 = empty_pinned(shape, dtype, MemoryFormat::ChannelsLast);
      copy_(down2, gpu2, s, /*non_blocking=*/true);
      done.record(s);
      done.synchronize();
      EXPECT_TRUE(bitwise_equal(src, down));
      EXPECT_TRUE(bitwise_equal(src.slice(3, 3, 20), window_down));
      EXPECT_TRUE(bitwise_equal(src, down2));
    }
  }
}

#if SV_WITH_CUDA
// Holds back the work queued on a stream after it until opened: a host function on the stream
// that waits. It gives up after 10 s, so that a copy that wrongly waits for the stream fails the
// test instead of hanging it.
class StreamGate {
 public:
  explicit StreamGate(const Stream& s) : stream_(s) {
    EXPECT_EQ(cudaLaunchHostFunc(static_cast<cudaStream_t>(s.handle()), &StreamGate::hold, this), cudaSuccess);
  }
  ~StreamGate() {
    open();
    (void)cudaStreamSynchronize(static_cast<cudaStream_t>(stream_.handle()));  // the host function reads *this
  }
  void open() { open_ = true; }
  bool timed_out() const { return timed_out_; }

 private:
  static void CUDART_CB hold(void* self) {
    auto* gate = static_cast<StreamGate*>(self);
    const auto give_up = Clock::now() + std::chrono::seconds(10);
    while (!gate->open_) {
      if (Clock::now() > give_up) {
        gate->timed_out_ = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  Stream stream_;
  std::atomic<bool> open_{false}, timed_out_{false};
};
#endif

// A stream of its own, a random CPU image and its copy on the device, complete before a test
// holds the stream back.
struct Uploaded {
  Stream stream;
  Tensor src, gpu;
};
Uploaded uploaded(const Dims& shape, DType dtype, std::uint64_t seed) {
  Uploaded u{Stream::create(0), random_cpu(shape, dtype, seed), Tensor()};
  u.gpu = to_device(u.src, kGpu, u.stream);
  u.stream.synchronize();
  return u;
}

TEST(Pinned, NonBlockingCopiesReturnWhileTheStreamIsHeldBack) {
  SV_REQUIRE_GPU();
  // compute-sanitizer's initcheck tracks every transfer and makes the host wait for it, so the
  // property checked here cannot hold under it (gpu-check sets this variable for those runs).
  if (std::getenv("STREAMVISION_UNDER_SANITIZER") != nullptr) GTEST_SKIP() << "transfers are synchronous under the sanitizer";
#if SV_WITH_CUDA
  const Dims shape{3, 64, 48};
  const auto [s, src, gpu] = uploaded(shape, DType::Float32, 31);
  const Event done = Event::create(0);
  // Pinned memory is allocated before a gate closes: allocating it may wait for the device.
  const Tensor host = empty_pinned(shape, DType::Float32);
  const Tensor up = pinned_with_layout(src, Layout::ChannelsLast);
  {
    // Download: copy_ returns with the transfer still queued behind the gate.
    StreamGate gate(s);
    copy_(host, gpu, s, /*non_blocking=*/true);
    EXPECT_FALSE(gate.timed_out()) << "copy_ waited for the stream";
    EXPECT_FALSE(s.query());
    done.record(s);
    EXPECT_FALSE(done.query());
    gate.open();
    done.synchronize();
    EXPECT_TRUE(bitwise_equal(src, host));
  }
  {
    // Upload from a channels_last pinned source into a contiguous tensor: the transfer and the
    // device-side layout change are both queued. The layout change's kernel runs once before
    // the gate closes: CUDA loads kernels lazily at their first launch, and loading one may wait
    // for the whole context (the CUDA programming guide's "Lazy Loading"), which would wait
    // for the gate.
    const Tensor warm = empty(shape, DType::Float32, kGpu, MemoryFormat::Contiguous, s);
    copy_(warm, up, s, /*non_blocking=*/true);
    s.synchronize();
    EXPECT_TRUE(bitwise_equal(src, warm));
    StreamGate gate(s);
    const Tensor dst = empty(shape, DType::Float32, kGpu, MemoryFormat::Contiguous, s);
    copy_(dst, up, s, /*non_blocking=*/true);
    EXPECT_FALSE(gate.timed_out()) << "copy_ waited for the stream";
    EXPECT_FALSE(s.query());
    gate.open();
    done.record(s);
    done.synchronize();
    EXPECT_TRUE(bitwise_equal(src, dst));
  }
#endif
}

// Pageable memory, a pinned destination that is not dense, and the default (non_blocking false)
// keep the blocking behaviour: the host can read the destination when copy_ returns.
TEST(Pinned, BlockingFallbacksWaitForTheTransfer) {
  SV_REQUIRE_GPU();
#if SV_WITH_CUDA
  const Dims shape{3, 40, 56};
  const auto [s, src, gpu] = uploaded(shape, DType::UInt8, 41);
  const Tensor pageable = empty(shape, DType::UInt8, Device::cpu());
  const Tensor pinned = empty_pinned(shape, DType::UInt8);
  const Tensor pinned_window = pinned_with_layout(random_cpu(shape, DType::UInt8, 42), Layout::Sliced);
  struct Case {
    const char* what;
    Tensor dst;
    bool non_blocking;
  };
  for (const Case& c : {Case{"pageable, non_blocking", pageable, true}, Case{"pinned, not dense, non_blocking", pinned_window, true},
                        Case{"pinned, blocking", pinned, false}}) {
    SCOPED_TRACE(c.what);
    copy_(c.dst, random_cpu(shape, DType::UInt8, 43));
    StreamGate gate(s);
    std::atomic<bool> opened{false};
    std::thread opener([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      opened = true;
      gate.open();
    });
    copy_(c.dst, gpu, s, c.non_blocking);
    EXPECT_TRUE(opened) << "copy_ returned before the transfer could run";
    opener.join();
    EXPECT_FALSE(gate.timed_out());
    EXPECT_TRUE(bitwise_equal(src, c.dst));  // no event: the copy has completed
  }
  // Upload from pageable memory with non_blocking: the source can be changed as soon as copy_
  // returns (the blocking behaviour).
  const Tensor pageable_source = empty(shape, DType::UInt8, Device::cpu());
  copy_(pageable_source, src);
  const Tensor dst = empty(shape, DType::UInt8, kGpu, MemoryFormat::Contiguous, s);
  copy_(dst, pageable_source, s, /*non_blocking=*/true);
  copy_(pageable_source, random_cpu(shape, DType::UInt8, 44));
  s.synchronize();
  EXPECT_TRUE(bitwise_equal(src, dst));
#endif
}

}  // namespace
}  // namespace svt
