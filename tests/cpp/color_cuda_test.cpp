// The colour, filter, noise and erase ops on CUDA: equal to the CPU engine bit for bit for every
// dtype, shape and layout; they run on the stream they are given; and they can be captured into
// a CUDA graph (reductions, scratch and all). Skipped without a GPU.
#if SV_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <functional>

#include "color_test_utils.hpp"

namespace svt {
namespace {

const Device kGpu = Device::cuda(0);

using UnaryOp = std::function<Tensor(const Tensor&)>;

std::vector<Dims> cuda_shapes() {
  std::vector<Dims> shapes = color_shapes();
  shapes.push_back({2, 3, 67, 259});   // several blocks per image, unaligned rows
  shapes.push_back({1, 3, 130, 256});  // aligned rows: vector paths
  return shapes;
}

// op on the CPU and on the GPU, same input in every layout, equal bit for bit.
void expect_cuda_equals_cpu(const std::string& what, const UnaryOp& op, std::uint64_t seed,
                            const std::vector<Dims>& shapes, std::initializer_list<DType> dtypes,
                            double lo = -0.25, double hi = 1.25) {
  for (const Dims& shape : shapes) {
    for (DType dtype : dtypes) {
      const Tensor src = random_cpu(shape, dtype, seed++, lo, hi);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(what + " " + describe(shape, dtype, layout));
        const Tensor expected = op(with_layout(src, layout, Device::cpu()));
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        const Tensor actual = op(gpu_in);
        EXPECT_TRUE(actual.device() == kGpu);
        EXPECT_TRUE(bitwise_equal(expected, actual));
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
}

#define SV_COLOR_DTYPE_LIST \
  { DType::UInt8, DType::UInt16, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64 }

TEST(ColorCuda, ElementwiseOpsEqualCpu) {
  SV_REQUIRE_GPU();
  const auto shapes = cuda_shapes();
  expect_cuda_equals_cpu("brightness", [](const Tensor& x) { return functional::adjust_brightness(x, 1.37); }, 1,
                         shapes, SV_COLOR_DTYPE_LIST);
  expect_cuda_equals_cpu("invert", [](const Tensor& x) { return functional::invert(x); }, 2, shapes, SV_COLOR_DTYPE_LIST);
  expect_cuda_equals_cpu("posterize", [](const Tensor& x) { return functional::posterize(x, 3); }, 3, shapes,
                         SV_COLOR_DTYPE_LIST);
  expect_cuda_equals_cpu("solarize", [](const Tensor& x) { return functional::solarize(x, 0.4 * max_value(x.dtype())); },
                         4, shapes, SV_COLOR_DTYPE_LIST);
  for (double gamma : {0.0, 0.5, 0.77, 2.0, 3.0, 2.2}) {
    for (double gain : {1.0, 1.3}) {
      expect_cuda_equals_cpu("gamma " + std::to_string(gamma),
                             [=](const Tensor& x) { return functional::adjust_gamma(x, gamma, gain); }, 5, shapes,
                             SV_COLOR_DTYPE_LIST);
    }
  }
}

TEST(ColorCuda, PixelOpsEqualCpu) {
  SV_REQUIRE_GPU();
  const auto shapes = cuda_shapes();
  expect_cuda_equals_cpu("grayscale", [](const Tensor& x) { return functional::rgb_to_grayscale(x); }, 10, shapes,
                         SV_COLOR_DTYPE_LIST);
  expect_cuda_equals_cpu("grayscale 3", [](const Tensor& x) { return functional::rgb_to_grayscale(x, 3); }, 11, shapes,
                         SV_COLOR_DTYPE_LIST);
  expect_cuda_equals_cpu("grayscale_to_rgb", [](const Tensor& x) { return functional::grayscale_to_rgb(x); }, 12,
                         shapes, SV_COLOR_DTYPE_LIST);
  for (double f : {0.0, 0.4, 1.9}) {
    expect_cuda_equals_cpu("saturation", [=](const Tensor& x) { return functional::adjust_saturation(x, f); }, 13,
                           shapes, SV_COLOR_DTYPE_LIST);
  }
  for (double f : {-0.5, -0.13, 0.0, 0.31, 0.5}) {
    expect_cuda_equals_cpu("hue", [=](const Tensor& x) { return functional::adjust_hue(x, f); }, 14, shapes,
                           SV_COLOR_DTYPE_LIST);
  }
  expect_cuda_equals_cpu("permute", [](const Tensor& x) {
    std::vector<std::int64_t> p;
    for (std::int64_t c = x.size(-3) - 1; c >= 0; --c) p.push_back(c);
    return functional::permute_channels(x, p);
  }, 15, shapes, {DType::UInt8, DType::Float64, DType::Bool});
}

TEST(ColorCuda, ReductionsEqualCpu) {
  SV_REQUIRE_GPU();
  std::vector<Dims> shapes = cuda_shapes();
  shapes.push_back({1, 3, 517, 1031});  // many chunks per image
  for (double f : {0.0, 0.6, 1.7}) {
    expect_cuda_equals_cpu("contrast", [=](const Tensor& x) { return functional::adjust_contrast(x, f); }, 20, shapes,
                           SV_COLOR_DTYPE_LIST);
  }
  expect_cuda_equals_cpu("autocontrast", [](const Tensor& x) { return functional::autocontrast(x); }, 21, shapes,
                         SV_COLOR_DTYPE_LIST);
  std::vector<Dims> eq_shapes = shapes;
  eq_shapes.push_back({2, 4, 33, 70});  // other channel counts run channel by channel
  eq_shapes.push_back({2, 2, 5, 9});
  eq_shapes.push_back({40, 61});        // 2-D: one channel
  expect_cuda_equals_cpu("equalize", [](const Tensor& x) { return functional::equalize(x); }, 22, eq_shapes,
                         SV_COLOR_DTYPE_LIST, 0.0, 1.0);
  expect_cuda_equals_cpu("equalize wild", [](const Tensor& x) { return functional::equalize(x); }, 23, shapes,
                         {DType::Float16, DType::Float32});
}

TEST(ColorCuda, BlurAndSharpnessEqualCpu) {
  SV_REQUIRE_GPU();
  const std::vector<Dims> shapes = {{3, 7, 9}, {2, 1, 9, 8}, {2, 2, 3, 11, 13}, {2, 3, 70, 130}, {1, 3, 150, 67}};
  struct Case {
    std::vector<std::int64_t> k;
    std::vector<double> sigma;
  };
  const std::vector<Case> cases = {{{3, 3}, {0.8}}, {{5, 1}, {1.5, 0.7}}, {{9, 9}, {3.0}}, {{1, 7}, {2.0}}};
  for (const Case& cs : cases) {
    expect_cuda_equals_cpu("blur", [&](const Tensor& x) { return functional::gaussian_blur(x, cs.k, cs.sigma); }, 30,
                           shapes, SV_COLOR_DTYPE_LIST, 0.0, 1.0);
  }
  // The benchmark's kernel (fused path) and a radius past the fused limit (fallback path).
  const std::vector<Dims> big = {{2, 3, 70, 130}, {1, 1, 150, 200}};
  expect_cuda_equals_cpu("blur 23",
                         [](const Tensor& x) { return functional::gaussian_blur(x, {23, 23}, std::vector<double>{5.0}); },
                         31, big, SV_COLOR_DTYPE_LIST, 0.0, 1.0);
  expect_cuda_equals_cpu("blur 67x65",
                         [](const Tensor& x) { return functional::gaussian_blur(x, {67, 65}, std::vector<double>{9.0}); },
                         32, big, {DType::UInt8, DType::Float32}, 0.0, 1.0);
  for (double f : {0.0, 0.5, 2.0}) {
    expect_cuda_equals_cpu("sharpness", [=](const Tensor& x) { return functional::adjust_sharpness(x, f); }, 33,
                           cuda_shapes(), SV_COLOR_DTYPE_LIST);
  }
}

TEST(ColorCuda, NoiseEqualsCpu) {
  SV_REQUIRE_GPU();
  std::vector<Dims> shapes = cuda_shapes();
  shapes.push_back({5});
  shapes.push_back({3, 1, 1, 1, 7});
  // A mean that 16-bit floats hold exactly: torch's CPU add rounds the mean to the image dtype,
  // its CUDA add does not, and each engine follows its device (kernels/noise.hpp).
  for (bool clip : {true, false}) {
    expect_cuda_equals_cpu("noise", [=](const Tensor& x) {
      return functional::gaussian_noise(x, 0.125, 0.3, clip, PhiloxState{1234, 99});
    }, 40, shapes, {DType::UInt8, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64});
  }
  // Statistics on the device too.
  const Tensor img = with_layout(tensor_of({4, 256, 256}, DType::Float32, std::vector<double>(4 * 256 * 256, 0.5)),
                                 Layout::Contiguous, kGpu);
  const std::vector<double> out = values_of(functional::gaussian_noise(img, 0.0, 0.1, false, PhiloxState{5, 0}));
  double mean = 0, var = 0;
  for (double v : out) mean += v - 0.5;
  mean /= static_cast<double>(out.size());
  for (double v : out) var += (v - 0.5 - mean) * (v - 0.5 - mean);
  EXPECT_NEAR(mean, 0.0, 2e-3);
  EXPECT_NEAR(std::sqrt(var / static_cast<double>(out.size() - 1)), 0.1, 1.5e-3);
}

TEST(ColorCuda, EraseEqualsCpu) {
  SV_REQUIRE_GPU();
  for (DType dtype : {DType::UInt8, DType::Float32, DType::Int64}) {
    const Tensor src = random_cpu({2, 3, 17, 40}, dtype, 50);
    const Tensor v = random_cpu({3, 5, 7}, DType::Float32, 51, 0.0, 100.0);  // cast to the image dtype
    for (Layout layout : kAllLayouts) {
      SCOPED_TRACE(describe(Dims(src.shape()), dtype, layout));
      const Tensor expected = functional::erase(with_layout(src, layout, Device::cpu()), 3, -9, 5, 7, v);
      const Tensor gpu_in = with_layout(src, layout, kGpu);
      EXPECT_TRUE(bitwise_equal(expected, functional::erase(gpu_in, 3, -9, 5, 7, with_layout(v, layout, kGpu))));
      EXPECT_TRUE(bitwise_equal(expected, functional::erase(gpu_in, 3, -9, 5, 7, v))) << "v on the CPU";
      EXPECT_TRUE(bitwise_equal(src, gpu_in));
      functional::erase(gpu_in, 3, -9, 5, 7, v, /*inplace=*/true);
      EXPECT_TRUE(bitwise_equal(expected, gpu_in));
    }
  }
}

TEST(ColorCuda, OpsRunOnTheGivenStream) {
  SV_REQUIRE_GPU();
  const Stream s = Stream::create(0);
  const Tensor x = with_layout(random_cpu({2, 3, 20, 30}, DType::UInt8, 60), Layout::Contiguous, kGpu);
  const std::vector<std::pair<std::string, UnaryOp>> ops = {
      {"grayscale", [&](const Tensor& t) { return functional::rgb_to_grayscale(t, 1, s); }},
      {"brightness", [&](const Tensor& t) { return functional::adjust_brightness(t, 0.5, s); }},
      {"saturation", [&](const Tensor& t) { return functional::adjust_saturation(t, 0.5, s); }},
      {"contrast", [&](const Tensor& t) { return functional::adjust_contrast(t, 0.5, s); }},
      {"hue", [&](const Tensor& t) { return functional::adjust_hue(t, 0.1, s); }},
      {"gamma", [&](const Tensor& t) { return functional::adjust_gamma(t, 2.2, 1.0, s); }},
      {"sharpness", [&](const Tensor& t) { return functional::adjust_sharpness(t, 2.0, s); }},
      {"invert", [&](const Tensor& t) { return functional::invert(t, s); }},
      {"posterize", [&](const Tensor& t) { return functional::posterize(t, 2, s); }},
      {"solarize", [&](const Tensor& t) { return functional::solarize(t, 100, s); }},
      {"autocontrast", [&](const Tensor& t) { return functional::autocontrast(t, s); }},
      {"equalize", [&](const Tensor& t) { return functional::equalize(t, s); }},
      {"permute", [&](const Tensor& t) { return functional::permute_channels(t, {2, 1, 0}, s); }},
      {"blur", [&](const Tensor& t) { return functional::gaussian_blur(t, {5, 5}, std::nullopt, s); }},
      {"noise", [&](const Tensor& t) { return functional::gaussian_noise(t, 0.0, 0.1, true, PhiloxState{}, s); }},
      {"erase", [&](const Tensor& t) { return functional::erase(t, 1, 1, 3, 3, t.slice(-1, 0, 1).slice(-2, 0, 1), false, s); }},
  };
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    const Tensor y = op(x);
    EXPECT_TRUE(last_launch_stream() == s);
  }
  {
    StreamGuard guard(s);  // the current stream when none is given
    functional::adjust_contrast(x, 0.3);
    EXPECT_TRUE(last_launch_stream() == s);
  }
  s.synchronize();
}

#if SV_WITH_CUDA
#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

// Reductions, lookup tables, blur weights, noise: all captured into one graph, replayed with
// new inputs, equal to the eager results.
TEST(ColorCuda, CapturableInCudaGraphs) {
  SV_REQUIRE_GPU();
  const Stream s = Stream::create(0);
  const Dims shape{2, 3, 90, 140};
  Tensor x = empty(shape, DType::UInt8, kGpu, MemoryFormat::Contiguous, s);
  Tensor result = empty(shape, DType::Float32, kGpu, MemoryFormat::Contiguous, s);
  auto pipeline = [&](const Tensor& in) {
    Tensor t = functional::adjust_contrast(in, 0.7);
    t = functional::equalize(functional::autocontrast(t));
    t = functional::adjust_hue(functional::adjust_saturation(t, 1.3), 0.1);
    t = functional::gaussian_blur(functional::adjust_gamma(t, 0.8), {23, 23}, std::vector<double>{5.0});
    t = functional::adjust_sharpness(functional::posterize(functional::solarize(t, 200), 6), 1.5);
    t = functional::gaussian_noise(functional::invert(t), 0.0, 0.05, true, PhiloxState{3, 4});
    t = functional::to_dtype(functional::grayscale_to_rgb(functional::rgb_to_grayscale(t)), DType::Float32, true);
    return functional::erase(t, 10, 10, 20, 30, t.slice(-1, 0, 1).slice(-2, 0, 1));
  };
  {
    StreamGuard g(s);
    copy_(x, random_cpu(shape, DType::UInt8, 1));  // warm-up
    copy_(result, pipeline(x));
  }
  s.synchronize();
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_OK(cudaStreamBeginCapture(s.handle(), cudaStreamCaptureModeThreadLocal));
  {
    StreamGuard g(s);
    copy_(result, pipeline(x));
  }
  CUDA_OK(cudaStreamEndCapture(s.handle(), &graph));
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (std::uint64_t round = 0; round < 3; ++round) {
    const Tensor input = random_cpu(shape, DType::UInt8, 10 + round);
    copy_(x, input, s);
    CUDA_OK(cudaGraphLaunch(exec, s.handle()));
    s.synchronize();
    const Tensor eager = pipeline(with_layout(input, Layout::Contiguous, kGpu));
    EXPECT_TRUE(bitwise_equal(eager, result)) << "round " << round;
    EXPECT_TRUE(bitwise_equal(pipeline(input), result)) << "CPU, round " << round;
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
}
#endif

}  // namespace
}  // namespace svt
