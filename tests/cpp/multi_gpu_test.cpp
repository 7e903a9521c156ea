// Two GPUs: an op runs on its input's device, on that device's current stream, whatever the
// calling thread's current device and the other device's guards; outputs and scratch memory are
// allocated on the input's device and the op's stream; a stream of another device is refused
// before anything runs (graph capture on the second device: stream_test.cu). Skipped, naming the
// device count, on machines with fewer than two GPUs (tests/python/test_multi_gpu.py: the same
// through PyTorch).
#include <vector>

#include "test_utils.hpp"

namespace svt {
namespace {

const Device kGpu1 = Device::cuda(1);

TEST(MultiGpu, OpRunsOnItsDevicesCurrentStreamWhateverTheCurrentDevice) {
  SV_REQUIRE_TWO_GPUS();
  const Tensor src = random_cpu({2, 3, 24, 40}, DType::Float32, 7);
  const Tensor x0 = with_layout(src, Layout::Contiguous, kGpu), x1 = with_layout(src, Layout::Contiguous, kGpu1);
  const Stream s0 = Stream::create(0), s1 = Stream::create(1);
  s0.wait(Stream::legacy_default(0));  // with_layout wrote the inputs on the default streams
  s1.wait(Stream::legacy_default(1));
  {
    StreamGuard g0(s0);  // device 0 current, s0 its current stream
    const Tensor y = functional::horizontal_flip(x1);
    EXPECT_EQ(last_launch_stream(), Stream::current(1)) << "device 0's guard must not capture device 1's op";
    EXPECT_FALSE(last_launch_stream() == s0);
    EXPECT_EQ(cuda_current_device(), 0) << "the op restores the current device";
    EXPECT_EQ(y.device(), kGpu1);
    EXPECT_TRUE(bitwise_equal(functional::horizontal_flip(src), y));
    {
      StreamGuard g1(s1);  // device 1 current now: device 0's ops still run on s0
      const Tensor z0 = functional::vertical_flip(x0);
      EXPECT_EQ(last_launch_stream(), s0);
      const Tensor z1 = functional::vertical_flip(x1);
      EXPECT_EQ(last_launch_stream(), s1);
      EXPECT_EQ(cuda_current_device(), 1);
      EXPECT_TRUE(bitwise_equal(functional::vertical_flip(src), z0));
      EXPECT_TRUE(bitwise_equal(functional::vertical_flip(src), z1));
    }
    EXPECT_EQ(cuda_current_device(), 0);
  }
  s0.synchronize();
  s1.synchronize();
}

// Every allocation of an op on a device-1 tensor (output and scratch) is on device 1 and on the
// op's stream, also when device 0 is current.
TEST(MultiGpu, OutputsAndScratchAreAllocatedOnTheInputsDevice) {
  SV_REQUIRE_TWO_GPUS();
  struct Recording final : Allocator {
    Allocator* inner = nullptr;
    std::vector<std::pair<Device, StreamHandle>> allocations;
    void* allocate(std::size_t n, Device d, const Stream& s) override {
      allocations.emplace_back(d, s.handle());
      return inner->allocate(n, d, s);
    }
    void deallocate(void* p, std::size_t n, Device d, const Stream& s) noexcept override { inner->deallocate(p, n, d, s); }
  } recording;
  recording.inner = &get_allocator(DeviceType::CUDA);
  const Tensor u8 = random_cpu({4, 3, 64, 96}, DType::UInt8, 11), f32 = random_cpu({4, 3, 64, 96}, DType::Float32, 12);
  const Tensor x = with_layout(u8, Layout::Contiguous, kGpu1), xf = with_layout(f32, Layout::Contiguous, kGpu1);
  const Stream s1 = Stream::create(1);
  s1.wait(Stream::legacy_default(1));  // with_layout wrote the inputs there
  Allocator* previous = set_allocator(DeviceType::CUDA, &recording);
  Tensor eq, small;
  const Stream s0 = Stream::create(0);
  {
    StreamGuard g(s0);  // device 0 current
    eq = functional::equalize(x, s1);                                                  // histograms
    small = functional::resize(xf, {40, 50}, InterpolationMode::Bilinear, std::nullopt, true, s1);  // weight tables
  }
  set_allocator(DeviceType::CUDA, previous);
  ASSERT_GE(recording.allocations.size(), 4u) << "two outputs and their scratch";
  for (const auto& [device, stream] : recording.allocations) {
    EXPECT_EQ(device, kGpu1);
    EXPECT_EQ(stream, s1.handle());
  }
  s1.synchronize();
  EXPECT_TRUE(bitwise_equal(functional::equalize(u8), eq));
  EXPECT_TRUE(bitwise_equal(functional::resize(f32, {40, 50}), small));
}

TEST(MultiGpu, StreamOfAnotherDeviceIsRefusedBeforeAnythingRuns) {
  SV_REQUIRE_TWO_GPUS();
  const Tensor src = random_cpu({3, 4, 5}, DType::Float32, 1);
  const Tensor x1 = with_layout(src, Layout::Contiguous, kGpu1);
  const Stream before = last_launch_stream();
  const std::string message = "expected a stream on the input's device cuda:1, got a stream on cuda:0";
  expect_error(ErrorKind::Value, "horizontal_flip: argument 'stream': " + message,
               [&] { functional::horizontal_flip(x1, Stream::create(0)); });
  expect_error(ErrorKind::Value, "normalize: argument 'stream': " + message,
               [&] { functional::normalize(x1, {0.5}, {0.25}, true, Stream::create(0)); }, x1, src);
  EXPECT_EQ(last_launch_stream(), before);
}


}  // namespace
}  // namespace svt
