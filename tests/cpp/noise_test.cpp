// gaussian_noise and Generator on the CPU: the noise has the requested mean and standard
// deviation, follows torchvision's per-dtype formula given the normals, is reproducible from a
// seed and offset, does not depend on the layout, and bad input consumes no randomness. On CUDA:
// equal to the CPU bit for bit, with the same statistics (skipped without a GPU).
#include <algorithm>
#include <cmath>
#include <thread>

#include "color_test_utils.hpp"

namespace svt {
namespace {

struct Moments {
  double mean = 0, stddev = 0, within1 = 0, within2 = 0;
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.stddev += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(m.stddev / static_cast<double>(v.size() - 1));
  for (double x : v) {
    m.within1 += std::abs(x - m.mean) <= m.stddev;
    m.within2 += std::abs(x - m.mean) <= 2 * m.stddev;
  }
  m.within1 /= static_cast<double>(v.size());
  m.within2 /= static_cast<double>(v.size());
  return m;
}

TEST(GaussianNoise, MeanAndStandardDeviation) {
  const Tensor img = tensor_of({1, 3, 256, 256}, DType::Float32, std::vector<double>(3 * 256 * 256, 0.5));
  Generator gen(1234);
  const std::vector<double> out = values_of(functional::gaussian_noise(img, 0.05, 0.1, false, &gen));
  std::vector<double> noise(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) noise[i] = out[i] - 0.5;
  const Moments m = moments(noise);
  EXPECT_NEAR(m.mean, 0.05, 2e-3);  // 5 standard errors
  EXPECT_NEAR(m.stddev, 0.1, 1.5e-3);
  EXPECT_NEAR(m.within1, 0.6827, 0.01);
  EXPECT_NEAR(m.within2, 0.9545, 0.005);

  // uint8: noise = trunc(mean * 255 + randn * sigma * 255) added in int16.
  const Tensor u8 = tensor_of({3, 200, 200}, DType::UInt8, std::vector<double>(3 * 200 * 200, 128));
  const std::vector<double> u = values_of(functional::gaussian_noise(u8, 0.0, 0.1, true, &gen));
  std::vector<double> un(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) un[i] = u[i] - 128;
  const Moments mu = moments(un);
  EXPECT_NEAR(mu.mean, 0.0, 0.4);
  EXPECT_NEAR(mu.stddev, 25.5, 0.8);
  EXPECT_EQ(gen.offset(), (3u * 256 * 256 + 3) / 4 + (3u * 200 * 200 + 3) / 4);
}

TEST(GaussianNoise, FollowsTorchvisionFormulaGivenTheNormals) {
  // float64 zeros with mean 0, sigma 1 and no clip give the raw normals z.
  const PhiloxState state{77, 5};
  const Dims shape{2, 3, 5, 7};
  const std::vector<double> z =
      values_of(functional::gaussian_noise(tensor_of(shape, DType::Float64, std::vector<double>(210, 0.0)), 0.0, 1.0,
                                           false, state));
  const Tensor u8 = random_cpu(shape, DType::UInt8, 3);
  const std::vector<double> x = values_of(u8);
  for (bool clip : {true, false}) {
    const std::vector<double> got = values_of(functional::gaussian_noise(u8, 0.1, 0.3, clip, state));
    for (std::size_t i = 0; i < z.size(); ++i) {
      const float noise = static_cast<float>(0.1 * 255) + static_cast<float>(z[i]) * static_cast<float>(0.3 * 255);
      int y = static_cast<std::int16_t>(static_cast<std::int16_t>(x[i]) + static_cast<std::int16_t>(noise));
      y = clip ? std::clamp(y, 0, 255) : static_cast<std::uint8_t>(y);
      ASSERT_EQ(got[i], y) << i;
    }
  }
  const Tensor f = random_cpu(shape, DType::Float32, 4);
  const std::vector<double> fx = values_of(f);
  const std::vector<double> fg = values_of(functional::gaussian_noise(f, -0.2, 0.7, true, state));
  for (std::size_t i = 0; i < z.size(); ++i) {
    const float noise = -0.2f + static_cast<float>(z[i]) * 0.7f;
    ASSERT_EQ(fg[i], clampf(static_cast<float>(fx[i]) + noise, 0.0f, 1.0f)) << i;
  }
  const Tensor h = random_cpu(shape, DType::Float16, 5);
  const std::vector<double> hx = values_of(h);
  const std::vector<double> hg = values_of(functional::gaussian_noise(h, 0.1, 0.2, false, state));
  for (std::size_t i = 0; i < z.size(); ++i) {
    auto r = [](float v) { return static_cast<float>(Half(v)); };
    const float noise = r(r(0.1f) + r(r(static_cast<float>(z[i])) * 0.2f));  // torch's CPU add: mean in half
    ASSERT_EQ(hg[i], r(static_cast<float>(hx[i]) + noise)) << i;
  }
}

TEST(GaussianNoise, ReproducibleAndLayoutIndependent) {
  const Tensor src = random_cpu({2, 3, 9, 11}, DType::Float32, 8);
  const PhiloxState state{42, 1000};
  const Tensor a = functional::gaussian_noise(src, 0.0, 0.2, true, state);
  for (Layout layout : kAllLayouts) {
    SCOPED_TRACE(layout_name(layout));
    const Tensor in = with_layout(src, layout, Device::cpu());
    EXPECT_TRUE(bitwise_equal(a, functional::gaussian_noise(in, 0.0, 0.2, true, state)));
    EXPECT_TRUE(bitwise_equal(src, in));
  }
  EXPECT_FALSE(bitwise_equal(a, functional::gaussian_noise(src, 0.0, 0.2, true, PhiloxState{43, 1000})));
  EXPECT_FALSE(bitwise_equal(a, functional::gaussian_noise(src, 0.0, 0.2, true, PhiloxState{42, 1001})));
  // Element i depends only on (seed, offset, i): a larger image starts with the same values.
  const Tensor z = tensor_of({1, 1, 8}, DType::Float64, std::vector<double>(8, 0.0));
  const Tensor z2 = tensor_of({1, 2, 8}, DType::Float64, std::vector<double>(16, 0.0));
  const std::vector<double> small = values_of(functional::gaussian_noise(z, 0, 1, false, state));
  const std::vector<double> big = values_of(functional::gaussian_noise(z2, 0, 1, false, state));
  EXPECT_EQ(small, std::vector<double>(big.begin(), big.begin() + 8));
  // Offsets count counters of four values: offset + 1 continues four elements later.
  const std::vector<double> next = values_of(functional::gaussian_noise(z, 0, 1, false, PhiloxState{42, 1001}));
  EXPECT_EQ(std::vector<double>(small.begin() + 4, small.end()), std::vector<double>(next.begin(), next.begin() + 4));

  // The generator advances: consecutive calls differ, manual_seed replays.
  Generator gen(9);
  const Tensor g1 = functional::gaussian_noise(src, 0.0, 0.2, true, &gen);
  const Tensor g2 = functional::gaussian_noise(src, 0.0, 0.2, true, &gen);
  EXPECT_FALSE(bitwise_equal(g1, g2));
  gen.manual_seed(9);
  EXPECT_TRUE(bitwise_equal(g1, functional::gaussian_noise(src, 0.0, 0.2, true, &gen)));
  EXPECT_TRUE(bitwise_equal(g1, functional::gaussian_noise(src, 0.0, 0.2, true, PhiloxState{9, 0})));
  // The default generator is used when none is given, and advances too.
  const std::uint64_t before = Generator::default_generator().offset();
  functional::gaussian_noise(src);
  EXPECT_EQ(Generator::default_generator().offset(), before + functional::gaussian_noise_counters(src));
}

TEST(GaussianNoise, ClipAndDtypes) {
  const Tensor f = random_cpu({3, 16, 16}, DType::BFloat16, 1);
  for (double v : values_of(functional::gaussian_noise(f, 0.0, 0.5, true))) {
    EXPECT_GE(v, 0.0);
    EXPECT_LE(v, 1.0);
  }
  const std::vector<double> unclipped = values_of(functional::gaussian_noise(f, 0.0, 0.5, false));
  EXPECT_TRUE(std::any_of(unclipped.begin(), unclipped.end(), [](double v) { return v < 0 || v > 1; }));
  // uint8 without clip wraps like torch's int16 -> uint8 cast.
  const Tensor bright = tensor_of({1, 1, 64}, DType::UInt8, std::vector<double>(64, 250));
  const std::vector<double> wrapped = values_of(functional::gaussian_noise(bright, 0.0, 0.2, false));
  EXPECT_TRUE(std::any_of(wrapped.begin(), wrapped.end(), [](double v) { return v < 100; }));
}

TEST(GaussianNoise, GeneratorIsThreadSafe) {
  Generator gen(11);
  constexpr int kThreads = 4, kCalls = 1000;
  std::vector<std::vector<std::uint64_t>> offsets(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) offsets[static_cast<std::size_t>(t)].push_back(gen.next(3).offset);
    });
  }
  for (auto& th : threads) th.join();
  std::vector<std::uint64_t> all;
  for (const auto& o : offsets) all.insert(all.end(), o.begin(), o.end());
  std::sort(all.begin(), all.end());
  for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], 3 * i) << "reservations overlap or leave gaps";
  EXPECT_EQ(gen.offset(), 3u * kThreads * kCalls);
  EXPECT_EQ(gen.seed(), 11u);
}

TEST(GaussianNoise, BadInputConsumesNothing) {
  Generator gen(3);
  const Tensor img = random_cpu({3, 4, 4}, DType::Float32, 1);
  expect_error(ErrorKind::Value, "sigma", [&] { functional::gaussian_noise(img, 0.0, -0.1, true, &gen); });
  expect_error(ErrorKind::Value, "uint8 or float", [&] {
    functional::gaussian_noise(random_cpu({3, 4, 4}, DType::UInt16, 1), 0.0, 0.1, true, &gen);
  });
  expect_error(ErrorKind::Value, "uint8 or float", [&] {
    functional::gaussian_noise(random_cpu({3, 4, 4}, DType::Int16, 1), 0.0, 0.1, true, &gen);
  });
  EXPECT_EQ(gen.offset(), 0u);
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(GaussianNoise, CudaEqualsCpu) {
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

}  // namespace
}  // namespace svt
