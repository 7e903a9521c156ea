// CUDA results equal CPU results bit for bit, for every op, dtype, shape and layout.
#include <random>

#include "test_utils.hpp"

namespace svt {
namespace {

const Device kGpu = Device::cuda(0);

TEST(CudaOps, FlipsEqualCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 1000;
  for (const Dims& shape : test_shapes()) {
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        EXPECT_TRUE(bitwise_equal(functional::horizontal_flip(cpu_in), functional::horizontal_flip(gpu_in)));
        EXPECT_TRUE(bitwise_equal(functional::vertical_flip(cpu_in), functional::vertical_flip(gpu_in)));
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
}

TEST(CudaOps, ToDtypeEqualsCpuForEveryPair) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 2000;
  for (const Dims& shape : {Dims{2, 3, 17, 35}, Dims{3, 64, 128}}) {
    for (int a = 0; a < kNumDTypes; ++a) {
      const DType from = static_cast<DType>(a);
      const Tensor src = random_cpu(shape, from, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (int b = 0; b < kNumDTypes; ++b) {
          const DType to = static_cast<DType>(b);
          for (bool scale : {false, true}) {
            SCOPED_TRACE(describe(shape, from, layout) + " -> " + dtype_name(to) + (scale ? " scale" : ""));
            Tensor expected;
            try {
              expected = functional::to_dtype(cpu_in, to, scale);
            } catch (const Error&) {
              EXPECT_THROW(functional::to_dtype(gpu_in, to, scale), Error);
              continue;
            }
            ASSERT_TRUE(bitwise_equal(expected, functional::to_dtype(gpu_in, to, scale)));
          }
        }
      }
    }
  }
}

TEST(CudaOps, NormalizeEqualsCpu) {
  SV_REQUIRE_GPU();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> mean_d(-0.5, 0.9), std_d(0.05, 1.5);
  std::uint64_t seed = 3000;
  std::vector<Dims> shapes = test_shapes();
  shapes.push_back({2, 40, 9, 11});  // more channels than the small parameter block
  for (const Dims& shape : shapes) {
    const std::size_t channels = static_cast<std::size_t>(shape[shape.size() - 3]);
    std::vector<double> mean(channels), std(channels);
    for (auto& m : mean) m = mean_d(rng);
    for (auto& s : std) s = std_d(rng);
    for (DType dtype : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor expected = functional::normalize(with_layout(src, layout, Device::cpu()), mean, std);
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        EXPECT_TRUE(bitwise_equal(expected, functional::normalize(gpu_in, mean, std)));
        functional::normalize(gpu_in, mean, std, /*inplace=*/true);
        EXPECT_TRUE(bitwise_equal(expected, gpu_in));
      }
    }
  }
}

TEST(CudaOps, LayoutConversionAndCopiesEqualCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 4000;
  for (const Dims& shape : test_shapes()) {
    for (DType dtype : {DType::UInt8, DType::Float16, DType::Float32, DType::Int64}) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        const Tensor cl = to_channels_last(gpu_in);
        EXPECT_TRUE(cl.is_channels_last() || cl.numel() == 0 || shape.size() < 3);
        EXPECT_TRUE(bitwise_equal(src, cl));
        EXPECT_TRUE(bitwise_equal(src, contiguous(cl)));
        // Host -> strided device destination, device -> strided host destination.
        const Tensor dst = with_layout(random_cpu(shape, dtype, seed++), Layout::Sliced, kGpu);
        copy_(dst, with_layout(src, layout, Device::cpu()));
        EXPECT_TRUE(bitwise_equal(src, dst));
        const Tensor host_dst = with_layout(random_cpu(shape, dtype, seed++), Layout::Strided, Device::cpu());
        copy_(host_dst, gpu_in);
        EXPECT_TRUE(bitwise_equal(src, host_dst));
      }
    }
  }
}

// Above 2^30 elements the CUDA engine launches in pieces; the channel bookkeeping of
// normalize must continue across them.
TEST(CudaOps, LargeTensorsSplitIntoPieces) {
  SV_REQUIRE_GPU();
  const Dims shape{5, 3, 8192, 9000};  // 1.1e9 elements
  Tensor x = empty(shape, DType::UInt8, kGpu);
  // Content: a ramp per row, written by a cheap CPU->GPU copy of one channel plane pattern.
  const Tensor plane = random_cpu({1, 1, 8192, 9000}, DType::UInt8, 1);
  for (int n = 0; n < 5; ++n)
    for (int c = 0; c < 3; ++c) copy_(x.slice(0, n, n + 1).slice(1, c, c + 1), plane);
  const Tensor flipped = functional::horizontal_flip(x);
  const Tensor normalized = functional::normalize(functional::to_dtype(x, DType::Float16, true), {0.1, 0.2, 0.3}, {1.0, 2.0, 4.0});
  // Spot checks against the CPU on the last image, where the pieces end.
  const Tensor last_cpu = to_cpu(flipped.slice(0, 4, 5));
  EXPECT_TRUE(bitwise_equal(functional::horizontal_flip(plane), last_cpu.slice(1, 2, 3)));
  const Tensor expected_norm = functional::normalize(functional::to_dtype(to_cpu(x.slice(0, 4, 5)), DType::Float16, true),
                                                     {0.1, 0.2, 0.3}, {1.0, 2.0, 4.0});
  EXPECT_TRUE(bitwise_equal(expected_norm, normalized.slice(0, 4, 5)));
}

TEST(CudaOps, ErrorsNameDevicesAndWriteNothing) {
  SV_REQUIRE_GPU();
  const Tensor src = random_cpu({3, 4, 5}, DType::Float32, 1);
  const Tensor gpu = with_layout(src, Layout::Contiguous, kGpu);
  EXPECT_THROW(functional::normalize(gpu, {0.5}, {0.0}, true), Error);
  EXPECT_TRUE(bitwise_equal(src, gpu));
  if (cuda_device_count() > 1) {
    EXPECT_THROW(functional::horizontal_flip(gpu, Stream::create(1)), Error);
  }
  // A stream on another device than the input's is refused.
  EXPECT_THROW(functional::horizontal_flip(gpu, Stream()), Error);
}

}  // namespace
}  // namespace svt
