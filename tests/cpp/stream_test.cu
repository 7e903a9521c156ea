// Streams: the current-stream rule, guards, threads, the provider hook, ordering with work
// already on the stream (with a negative control), stream-ordered allocation, graph capture.
// Two devices: multi_gpu_test.cpp.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "test_utils.hpp"

namespace svt {
namespace {

// Spins for `ns` nanoseconds of GPU time, then writes `value` into every element of `x`.
__global__ void spin_then_fill(std::uint8_t* x, std::int64_t n, std::uint64_t ns, std::uint8_t value) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    std::uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
  }
  __syncthreads();
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) x[i] = static_cast<std::uint8_t>(value + i % 7);
}

bool fake_provider(void* context, int, StreamHandle* out) {
  *out = static_cast<StreamHandle>(context);
  return true;
}

struct ProviderReset {
  ~ProviderReset() { set_current_stream_provider(nullptr, nullptr); }
};

TEST(Streams, GuardMakesStreamCurrentAndRestores) {
  SV_REQUIRE_GPU();
  const Stream s1 = Stream::create(0), s2 = Stream::create(0);
  EXPECT_TRUE(Stream::current(0).is_legacy_default());
  {
    StreamGuard g1(s1);
    EXPECT_EQ(Stream::current(0), s1);
    EXPECT_EQ(Stream::current(), s1) << "-1 means the current device";
    {
      StreamGuard g2(s2);
      EXPECT_EQ(Stream::current(0), s2);
    }
    EXPECT_EQ(Stream::current(0), s1);
  }
  EXPECT_TRUE(Stream::current(0).is_legacy_default());
}

TEST(Streams, ThreadsSeeTheirOwnGuards) {
  SV_REQUIRE_GPU();
  const Stream a = Stream::create(0), b = Stream::create(0);
  std::atomic<int> ready{0};
  std::atomic<bool> ok_a{false}, ok_b{false};
  auto worker = [&](const Stream& mine, std::atomic<bool>& ok) {
    StreamGuard g(mine);
    ++ready;
    while (ready < 2) std::this_thread::yield();  // both guards live at once
    const Tensor x = with_layout(random_cpu({3, 8, 8}, DType::UInt8, 1), Layout::Contiguous, Device::cuda(0));
    bool good = true;
    for (int i = 0; i < 50; ++i) {
      functional::horizontal_flip(x);
      good = good && Stream::current(0) == mine && last_launch_stream() == mine;
    }
    ok = good;
  };
  std::thread ta(worker, std::cref(a), std::ref(ok_a)), tb(worker, std::cref(b), std::ref(ok_b));
  ta.join();
  tb.join();
  EXPECT_TRUE(ok_a);
  EXPECT_TRUE(ok_b);
  EXPECT_TRUE(Stream::current(0).is_legacy_default()) << "other threads' guards do not leak here";
}

TEST(Streams, ProviderIsUsedWhenNoGuardIsActive) {
  SV_REQUIRE_GPU();
  ProviderReset reset;
  const Stream framework = Stream::create(0), guarded = Stream::create(0);
  set_current_stream_provider(&fake_provider, framework.handle());
  EXPECT_EQ(Stream::current(0), framework);
  const Tensor x = with_layout(random_cpu({3, 8, 8}, DType::UInt8, 1), Layout::Contiguous, Device::cuda(0));
  functional::vertical_flip(x);
  EXPECT_EQ(last_launch_stream(), framework);
  {
    StreamGuard g(guarded);
    EXPECT_EQ(Stream::current(0), guarded) << "a guard wins over the provider";
    functional::vertical_flip(x);
    EXPECT_EQ(last_launch_stream(), guarded);
    functional::vertical_flip(x, framework);
    EXPECT_EQ(last_launch_stream(), framework) << "an explicit stream wins over a guard";
  }
  set_current_stream_provider(nullptr, nullptr);
  EXPECT_TRUE(Stream::current(0).is_legacy_default());
  functional::vertical_flip(x);
  EXPECT_TRUE(last_launch_stream().is_legacy_default());
  framework.synchronize();
  guarded.synchronize();
}

// Stream-ordered allocation: outputs are allocated on the stream the op runs on.
TEST(Streams, OutputsAreAllocatedOnTheOpStream) {
  SV_REQUIRE_GPU();
  struct Recording final : Allocator {
    Allocator* inner = nullptr;
    StreamHandle last_alloc = reinterpret_cast<StreamHandle>(1), last_free = reinterpret_cast<StreamHandle>(1);
    void* allocate(std::size_t n, Device d, const Stream& s) override {
      last_alloc = s.handle();
      return inner->allocate(n, d, s);
    }
    void deallocate(void* p, std::size_t n, Device d, const Stream& s) noexcept override {
      last_free = s.handle();
      inner->deallocate(p, n, d, s);
    }
  } recording;
  recording.inner = &get_allocator(DeviceType::CUDA);
  const Tensor x = with_layout(random_cpu({3, 8, 8}, DType::Float32, 1), Layout::Contiguous, Device::cuda(0));
  const Stream s = Stream::create(0);
  s.wait(Stream::legacy_default(0));
  Allocator* previous = set_allocator(DeviceType::CUDA, &recording);
  {
    StreamGuard g(s);
    Tensor y = functional::normalize(x, {0.5}, {0.25});
  }
  set_allocator(DeviceType::CUDA, previous);
  EXPECT_EQ(recording.last_alloc, s.handle());
  EXPECT_EQ(recording.last_free, s.handle());
  s.synchronize();
}

// The op sees work queued before it on the same stream; forced onto another stream it does not
// (the negative control proves the check can fail).
TEST(Streams, OpIsOrderedAfterEarlierWorkOnItsStream) {
  SV_REQUIRE_GPU();
  const Stream s = Stream::create(0), other = Stream::create(0);
  const std::int64_t n = 3 * 32 * 48;
  Tensor x = empty({3, 32, 48}, DType::UInt8, Device::cuda(0), MemoryFormat::Contiguous, Stream::legacy_default(0));
  CUDA_OK(cudaMemset(x.data(), 0, n));
  CUDA_OK(cudaDeviceSynchronize());
  // Expected result: flip of the pattern the slow kernel writes.
  Tensor pattern = empty({3, 32, 48}, DType::UInt8, Device::cpu());
  for (std::int64_t i = 0; i < n; ++i) pattern.data_as<std::uint8_t>()[i] = static_cast<std::uint8_t>(9 + i % 7);
  const Tensor expected = functional::horizontal_flip(pattern);

  auto run = [&](std::optional<Stream> forced) {
    EXPECT_EQ(cudaMemsetAsync(x.data(), 0, n, s.handle()), cudaSuccess);
    spin_then_fill<<<1, 256, 0, s.handle()>>>(static_cast<std::uint8_t*>(x.data()), n, 100'000'000ull, 9);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    Tensor out;
    {
      StreamGuard g(s);
      out = functional::horizontal_flip(x, forced);
    }
    const Stream reader = forced ? *forced : s;
    const Tensor host = to_device(out, Device::cpu(), reader);
    s.synchronize();
    return bitwise_equal(expected, host);
  };
  EXPECT_TRUE(run(std::nullopt)) << "the op on s must see the slow kernel's writes";
  // compute-sanitizer's initcheck runs kernels one at a time, so the race the control relies on
  // cannot happen under it (gpu-check sets this variable for its sanitizer runs).
  if (std::getenv("STREAMVISION_UNDER_SANITIZER") != nullptr) return;
  EXPECT_FALSE(run(other)) << "negative control: on another stream the op runs before the write";
}

TEST(Streams, EventsAndWaits) {
  SV_REQUIRE_GPU();
  const Stream s = Stream::create(0), t = Stream::create(0);
  const Tensor x = with_layout(random_cpu({3, 64, 64}, DType::UInt8, 1), Layout::Contiguous, Device::cuda(0));
  Event start = Event::create(0, true), stop = Event::create(0, true);
  start.record(s);
  Tensor y = functional::horizontal_flip(x, s);
  stop.record(s);
  t.wait(stop);
  Tensor z = functional::horizontal_flip(y, t);  // ordered after y through the event
  t.synchronize();
  EXPECT_TRUE(stop.query());
  EXPECT_TRUE(s.query());
  EXPECT_GE(start.elapsed_ms(stop), 0.0f);
  EXPECT_TRUE(bitwise_equal(x, z));
  EXPECT_THROW(Event::create(0).record(Stream()), Error);
}

// Ops captured into a CUDA graph on the current stream of `device` replay with new input contents
// and give the eager results (scratch memory too is allocated and freed inside the graph).
void expect_ops_capturable_in_cuda_graphs(int device) {
  const Device gpu = Device::cuda(device);
  const Stream s = Stream::create(device);
  const Dims shape{2, 3, 40, 56};
  Tensor x = empty(shape, DType::UInt8, gpu, MemoryFormat::Contiguous, s);
  Tensor result = empty({2, 3, 20, 28}, DType::Float32, gpu, MemoryFormat::Contiguous, s);
  auto pipeline = [&](const Tensor& in) {
    const Tensor flipped = functional::vertical_flip(functional::horizontal_flip(in));
    const Tensor f = functional::resize(functional::to_dtype(flipped, DType::Float32, true), {20, 28});
    return functional::normalize(to_channels_last(f), {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225});
  };
  {
    StreamGuard g(s);
    copy_(x, random_cpu(shape, DType::UInt8, 1));  // warm-up: pools configured, kernels loaded
    copy_(result, pipeline(x));
  }
  s.synchronize();

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_OK(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeThreadLocal));
  {
    StreamGuard g(s);
    copy_(result, pipeline(x));  // intermediates are allocated and freed inside the graph
  }
  CUDA_OK(cudaStreamEndCapture(s.handle(), &graph));
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));

  for (std::uint64_t round = 0; round < 3; ++round) {
    const Tensor input = random_cpu(shape, DType::UInt8, 10 + round);
    copy_(x, input, s);
    CUDA_OK(cudaGraphLaunch(exec, s.handle()));
    s.synchronize();
    const Tensor eager = pipeline(with_layout(input, Layout::Contiguous, gpu));
    EXPECT_TRUE(bitwise_equal(eager, result)) << "round " << round;
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
}

TEST(Streams, OpsAreCapturableInCudaGraphs) {
  SV_REQUIRE_GPU();
  expect_ops_capturable_in_cuda_graphs(0);
}

// The same on the second device, with device 0 current: capture, allocation and replay happen on
// device 1 (tests for two devices that need no CUDA runtime of their own: multi_gpu_test.cpp).
TEST(MultiGpu, OpsOnDevice1AreCapturableInCudaGraphs) {
  SV_REQUIRE_TWO_GPUS();
  const Stream s0 = Stream::create(0);
  StreamGuard current0(s0);
  expect_ops_capturable_in_cuda_graphs(1);
  EXPECT_EQ(cuda_current_device(), 0);
}

}  // namespace
}  // namespace svt
