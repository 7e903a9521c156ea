// What every op does with streams and devices, checked across the op families: each runs on the
// stream it is given (else the current one), and refuses a stream of another device or bad
// arguments before it launches or writes anything. Skipped without a GPU. The streams themselves
// (guards, ordering, allocation, graph capture): stream_test.cu; two devices: multi_gpu_test.cpp.
#include "color_test_utils.hpp"

namespace svt {
namespace {

TEST(CudaOpStreams, ColorFilterNoiseAndEraseOpsRunOnTheGivenStream) {
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

TEST(CudaOpStreams, GeometryOpsRunOnTheOpsStreamAndCheckBeforeWriting) {
  SV_REQUIRE_GPU();
  const Tensor gpu = with_layout(random_cpu({2, 3, 40, 50}, DType::UInt8, 3), Layout::Contiguous, kGpu);
  const Stream s = Stream::create(0);
  functional::resize(gpu, std::vector<std::int64_t>{20, 20}, InterpolationMode::Bilinear, std::nullopt, true, s);
  EXPECT_EQ(last_launch_stream(), s);
  functional::resize(gpu, std::vector<std::int64_t>{20, 20}, InterpolationMode::Bicubic, std::nullopt, true, s);
  EXPECT_EQ(last_launch_stream(), s);
  functional::pad(gpu, {2}, std::nullopt, PaddingMode::Reflect, s);
  EXPECT_EQ(last_launch_stream(), s);
  functional::rotate(gpu, 30, InterpolationMode::Bilinear, true, std::nullopt, std::vector<double>{9}, s);
  EXPECT_EQ(last_launch_stream(), s);
  {
    const Stream guarded = Stream::create(0);
    StreamGuard guard(guarded);
    functional::crop(gpu, -1, 1, 10, 10);  // reaches outside: a pad kernel (inside, a view launches nothing)
    EXPECT_EQ(last_launch_stream(), guarded);
    functional::perspective(gpu, std::nullopt, std::nullopt, InterpolationMode::Nearest, std::nullopt,
                            std::vector<double>{1, 0.1, 0, 0, 1, 0, 0.001, 0});
    EXPECT_EQ(last_launch_stream(), guarded);
    guarded.synchronize();
  }
  s.synchronize();
  // Bad arguments raise before any launch.
  const Stream before = last_launch_stream();
  expect_error(ErrorKind::Value, "fill", [&] { functional::affine(gpu, 1, {0, 0}, 1, {0}, InterpolationMode::Nearest, std::vector<double>{1, 2}); });
  expect_error(ErrorKind::Runtime, "reflect", [&] { functional::pad(gpu, {60}, std::nullopt, PaddingMode::Reflect); });
  expect_error(ErrorKind::Value, "displacement", [&] {
    functional::elastic(gpu, empty({1, 40, 50, 2}, DType::Float32, Device::cpu()));
  });
  EXPECT_EQ(last_launch_stream(), before);
}

TEST(CudaOpStreams, ErrorsNameDevicesAndWriteNothing) {
  SV_REQUIRE_GPU();
  const Tensor src = random_cpu({3, 4, 5}, DType::Float32, 1);
  const Tensor gpu = with_layout(src, Layout::Contiguous, kGpu);
  EXPECT_THROW(functional::normalize(gpu, {0.5}, {0.0}, true), Error);
  EXPECT_TRUE(bitwise_equal(src, gpu));
  // An invalid stream is refused (a stream of another device: multi_gpu_test.cpp).
  EXPECT_THROW(functional::horizontal_flip(gpu, Stream()), Error);
}

}  // namespace
}  // namespace svt
