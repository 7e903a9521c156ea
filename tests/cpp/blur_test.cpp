// gaussian_blur on the CPU, checked against torchvision's formulation (one 2-D convolution with
// the outer-product kernel over a reflect-padded image, here in double), which our separable
// float implementation must match within rounding; on CUDA, equal to the CPU bit for bit.
#include <cmath>

#include "color_test_utils.hpp"

namespace svt {
namespace {

std::vector<double> kernel1d(int k, double sigma) {
  std::vector<double> w(static_cast<std::size_t>(k));
  double sum = 0;
  for (int i = 0; i < k; ++i) {
    const double x = (i - (k - 1) / 2.0) / sigma;
    w[static_cast<std::size_t>(i)] = std::exp(-0.5 * x * x);
    sum += w[static_cast<std::size_t>(i)];
  }
  for (double& v : w) v /= sum;
  return w;
}

std::int64_t reflect(std::int64_t i, std::int64_t n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

// torchvision: pad (reflect), conv2d with ky[:, None] * kx[None, :], round for integers.
template <class T>
Tensor ref_blur(const Tensor& in, int kx, int ky, double sx, double sy) {
  const std::vector<double> wx = kernel1d(kx, sx), wy = kernel1d(ky, sy);
  const ImageIndex ii(in);
  Tensor out = empty(Dims(in.shape()), in.dtype(), Device::cpu());
  for (std::int64_t n = 0; n < ii.images; ++n) {
    for (std::int64_t c = 0; c < ii.c; ++c) {
      for (std::int64_t y = 0; y < ii.h; ++y) {
        for (std::int64_t x = 0; x < ii.w; ++x) {
          double acc = 0;
          for (int i = 0; i < ky; ++i) {
            for (int j = 0; j < kx; ++j) {
              const T v = at<T>(in, n, c, reflect(y + i - ky / 2, ii.h), reflect(x + j - kx / 2, ii.w));
              acc += wy[static_cast<std::size_t>(i)] * wx[static_cast<std::size_t>(j)] * static_cast<double>(to_calc(v));
            }
          }
          T r;
          if constexpr (is_int<T>) r = static_cast<T>(std::nearbyint(acc));
          else r = to_t<T>(static_cast<Calc<T>>(acc));
          set<T>(out, n, c, y, x, r);
        }
      }
    }
  }
  return out;
}

double blur_tolerance(DType dtype) {
  switch (dtype) {
    case DType::UInt8:
    case DType::UInt16: return 1.0;
    case DType::Float16: return 2e-3;  // weights rounded to half, as torch builds them
    case DType::BFloat16: return 1.6e-2;
    case DType::Float32: return 2e-6;
    default: return 1e-12;
  }
}

TEST(GaussianBlur, ImpulseResponse) {
  // A unit impulse spreads into the outer product of the 1-D kernels.
  Tensor img = tensor_of({1, 9, 9}, DType::Float32, std::vector<double>(81, 0.0));
  img.data_as<float>()[4 * 9 + 4] = 1.0f;
  const std::vector<double> w = kernel1d(3, 1.0);  // 0.274, 0.452, 0.274
  const std::vector<double> out = values_of(functional::gaussian_blur(img, {3, 3}, std::vector<double>{1.0}));
  for (int y = 0; y < 9; ++y) {
    for (int x = 0; x < 9; ++x) {
      const bool near = std::abs(y - 4) <= 1 && std::abs(x - 4) <= 1;
      const double want = near ? w[static_cast<std::size_t>(y - 3)] * w[static_cast<std::size_t>(x - 3)] : 0.0;
      EXPECT_NEAR(out[static_cast<std::size_t>(y * 9 + x)], want, 1e-7) << y << "," << x;
    }
  }
  // uint8 rounds half to even: 255 * (0.4519^2, 0.4519 * 0.2741, 0.2741^2) = 52.07, 31.58, 19.15.
  Tensor u8 = tensor_of({1, 5, 5}, DType::UInt8, std::vector<double>(25, 0.0));
  u8.data_as<std::uint8_t>()[12] = 255;
  const std::vector<double> r = values_of(functional::gaussian_blur(u8, {3, 3}, std::vector<double>{1.0}));
  EXPECT_EQ(r[12], 52);
  EXPECT_EQ(r[11], 32);
  EXPECT_EQ(r[7], 32);
  EXPECT_EQ(r[6], 19);
  EXPECT_EQ(r[0], 0);
  // Reflect-101 at the border: an impulse in the corner counts twice in its neighbour's taps.
  Tensor corner = tensor_of({1, 4, 4}, DType::Float64, std::vector<double>(16, 0.0));
  corner.data_as<double>()[0] = 1.0;
  const std::vector<double> c = values_of(functional::gaussian_blur(corner, {3, 1}, std::vector<double>{1.0, 1.0}));
  EXPECT_NEAR(c[0], w[1], 1e-15);
  EXPECT_NEAR(c[1], w[0], 1e-15);
  EXPECT_NEAR(c[4], 0.0, 1e-15);  // ky = 1: rows do not mix
}

TEST(GaussianBlur, MatchesTwoDimensionalConvolution) {
  struct Case {
    std::vector<std::int64_t> k;
    std::optional<std::vector<double>> sigma;
  };
  const std::vector<Case> cases = {
      {{3, 3}, std::nullopt},
      {{5, 3}, std::vector<double>{1.5, 0.7}},
      {{1, 7}, std::vector<double>{2.0}},
      {{9, 9}, std::vector<double>{3.0}},
  };
  std::uint64_t seed = 1500;
  for (const Case& cs : cases) {
    const int kx = static_cast<int>(cs.k[0]), ky = static_cast<int>(cs.k[1]);
    const double sx = cs.sigma ? (*cs.sigma)[0] : kx * 0.15 + 0.35;
    const double sy = cs.sigma ? (*cs.sigma)[cs.sigma->size() - 1] : ky * 0.15 + 0.35;
    for (const Dims& shape : {Dims{3, 7, 9}, Dims{2, 1, 9, 8}, Dims{2, 2, 3, 11, 13}, Dims{1, 3, 20, 37}}) {
      for (DType dtype : kImageDTypes) {
        const Tensor src = random_cpu(shape, dtype, seed++, 0.0, 1.0);
        Tensor expected;
        with_dtype(dtype, [&](auto tag) { expected = ref_blur<typename decltype(tag)::type>(src, kx, ky, sx, sy); });
        for (Layout layout : kAllLayouts) {
          SCOPED_TRACE(describe(shape, dtype, layout) + " k " + std::to_string(kx) + "x" + std::to_string(ky));
          const Tensor in = with_layout(src, layout, Device::cpu());
          const Tensor out = functional::gaussian_blur(in, cs.k, cs.sigma);
          const Closeness c = closeness(expected, out);
          EXPECT_LE(c.max_abs, blur_tolerance(dtype));
          if (!is_floating_point(dtype)) EXPECT_GE(c.identical, 0.99);
          EXPECT_TRUE(bitwise_equal(src, in));
          if (layout == Layout::ChannelsLast && shape[shape.size() - 3] > 1) EXPECT_TRUE(out.is_channels_last());
        }
      }
    }
  }
}

TEST(GaussianBlur, LargeKernelOnBenchmarkLikeSizes) {
  // kernel 23, sigma 5 (the benchmark's), radius 11 < 12 rows.
  const Tensor src = random_cpu({1, 3, 12, 40}, DType::UInt8, 5);
  const Tensor out = functional::gaussian_blur(src, {23, 23}, std::vector<double>{5.0});
  const Closeness c = closeness(ref_blur<std::uint8_t>(src, 23, 23, 5.0, 5.0), out);
  EXPECT_LE(c.max_abs, 1.0);
  EXPECT_GE(c.identical, 0.99);
  // A 1x1 kernel is the identity.
  EXPECT_TRUE(bitwise_equal(src, functional::gaussian_blur(src, {1, 1})));
}

TEST(GaussianBlur, BadInput) {
  const Tensor img = random_cpu({3, 8, 10}, DType::UInt8, 1);
  expect_error(ErrorKind::Value, "odd and positive", [&] { functional::gaussian_blur(img, {4, 3}); });
  expect_error(ErrorKind::Value, "odd and positive", [&] { functional::gaussian_blur(img, {3, -3}); });
  expect_error(ErrorKind::Value, "odd and positive", [&] { functional::gaussian_blur(img, {0, 3}); });
  expect_error(ErrorKind::Value, "length 2", [&] { functional::gaussian_blur(img, {3}); });
  expect_error(ErrorKind::Value, "positive values", [&] { functional::gaussian_blur(img, {3, 3}, std::vector<double>{0.0}); });
  expect_error(ErrorKind::Value, "positive values",
               [&] { functional::gaussian_blur(img, {3, 3}, std::vector<double>{1.0, -1.0}); });
  expect_error(ErrorKind::Value, "sigma", [&] { functional::gaussian_blur(img, {3, 3}, std::vector<double>{1, 2, 3}); });
  // Reflect padding must be smaller than the image (torch raises a RuntimeError).
  expect_error(ErrorKind::Runtime, "reflect", [&] { functional::gaussian_blur(img, {21, 3}); });
  expect_error(ErrorKind::Runtime, "reflect", [&] { functional::gaussian_blur(img, {3, 17}); });
  EXPECT_NO_THROW(functional::gaussian_blur(img, {19, 15}));
  // Empty images come back as they are, even with a kernel too large for them.
  const Tensor none = random_cpu({0, 3, 2, 2}, DType::Float32, 1);
  EXPECT_EQ(functional::gaussian_blur(none, {9, 9}).data(), none.data());
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(GaussianBlur, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  const std::vector<Dims> shapes = {{3, 7, 9}, {2, 1, 9, 8}, {2, 2, 3, 11, 13}, {2, 3, 70, 130}, {1, 3, 150, 67}};
  struct Case {
    std::vector<std::int64_t> k;
    std::vector<double> sigma;
  };
  const std::vector<Case> cases = {{{3, 3}, {0.8}}, {{5, 1}, {1.5, 0.7}}, {{9, 9}, {3.0}}, {{1, 7}, {2.0}}};
  for (const Case& cs : cases) {
    expect_cuda_equals_cpu("blur", [&](const Tensor& x) { return functional::gaussian_blur(x, cs.k, cs.sigma); }, 30,
                           shapes, kImageDTypes, 0.0, 1.0);
  }
  // The benchmark's kernel (fused path) and a radius past the fused limit (fallback path).
  const std::vector<Dims> big = {{2, 3, 70, 130}, {1, 1, 150, 200}};
  expect_cuda_equals_cpu("blur 23",
                         [](const Tensor& x) { return functional::gaussian_blur(x, {23, 23}, std::vector<double>{5.0}); },
                         31, big, kImageDTypes, 0.0, 1.0);
  expect_cuda_equals_cpu("blur 67x65",
                         [](const Tensor& x) { return functional::gaussian_blur(x, {67, 65}, std::vector<double>{9.0}); },
                         32, big, {DType::UInt8, DType::Float32}, 0.0, 1.0);
}

}  // namespace
}  // namespace svt
