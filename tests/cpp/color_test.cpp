// The elementwise and per-pixel colour ops and adjust_sharpness on the CPU: hand-computed values,
// and references that transcribe torchvision's tensor code op by op, over dtypes, shapes (3-D to
// 5-D, odd sizes, degenerate batches), and layouts (contiguous, channels_last, sliced, strided).
// On CUDA: equal to the CPU bit for bit, and capturable into a CUDA graph (reductions, lookup
// tables and scratch included). autocontrast / equalize: color_equalize_test.cpp.
#if SV_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include <cmath>
#include <limits>
#include <random>

#include "color_test_utils.hpp"
#include "kernels/color.hpp"
#include "kernels/color_hsv.hpp"

namespace svt {
namespace {

using Ref = std::function<Tensor(const Tensor&)>;
using Op = std::function<Tensor(const Tensor&)>;

// op(input in every layout) == reference(contiguous input), bit for bit, for every dtype.
void check_against_reference(const std::function<Ref(DType)>& reference, const Op& op, std::uint64_t seed,
                             const std::vector<Dims>& shapes = color_shapes()) {
  for (const Dims& shape : shapes) {
    for (DType dtype : kImageDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      const Tensor expected = reference(dtype)(src);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor in = with_layout(src, layout, Device::cpu());
        const Tensor out = op(in);
        EXPECT_TRUE(bitwise_equal(expected, out));
        EXPECT_TRUE(bitwise_equal(src, in)) << "the input must not change";
        if (layout == Layout::ChannelsLast && out.numel() > 0 && out.data() != in.data() && in.size(-3) > 1) {
          EXPECT_TRUE(out.is_channels_last()) << out.str();
        }
      }
    }
  }
}

// ---- references (torchvision's Python, op by op) ---------------------------------------------

template <class T>
Calc<T> gray_ref(T r, T g, T b) {
  using F = Calc<T>;
  F l = keep<T>(to_calc(r) * static_cast<F>(0.2989));
  l = keep<T>(fmadd(to_calc(g), static_cast<F>(0.587), l));
  return keep<T>(fmadd(to_calc(b), static_cast<F>(0.114), l));
}

template <class T>
T blend_ref(T x, Calc<T> other, double ratio) {
  using F = Calc<T>;
  F v = keep<T>(to_calc(x) * static_cast<F>(ratio));
  v = keep<T>(fmadd(other, static_cast<F>(1.0 - ratio), v));
  return to_t<T>(clampf(v, F(0), static_cast<F>(max_of<T>())));
}

template <class T>
Calc<T> floored_gray(const std::vector<T>& p) {
  const Calc<T> g = gray_ref(p[0], p[1], p[2]);
  return is_int<T> ? std::floor(g) : g;
}

template <class T>
Tensor ref_grayscale(const Tensor& in, int out_channels) {
  return per_pixel<T>(in, out_channels, [&](std::int64_t, const std::vector<T>& p) {
    return std::vector<T>(static_cast<std::size_t>(out_channels), to_t<T>(gray_ref(p[0], p[1], p[2])));
  });
}

template <class T>
Tensor ref_saturation(const Tensor& in, double factor) {
  if (in.size(-3) == 1) return in;
  return per_pixel<T>(in, 3, [&](std::int64_t, const std::vector<T>& p) {
    const Calc<T> g = floored_gray(p);
    return std::vector<T>{blend_ref(p[0], g, factor), blend_ref(p[1], g, factor), blend_ref(p[2], g, factor)};
  });
}

// The mean of each image's (floored) grayscale image; integer sums are exact, float sums are
// accumulated in long double.
template <class T>
std::vector<Calc<T>> contrast_means(const Tensor& in) {
  const ImageIndex ii(in);
  std::vector<Calc<T>> means;
  for (std::int64_t n = 0; n < ii.images; ++n) {
    long double sum = 0;
    for (std::int64_t y = 0; y < ii.h; ++y) {
      for (std::int64_t x = 0; x < ii.w; ++x) {
        std::vector<T> p;
        for (std::int64_t c = 0; c < ii.c; ++c) p.push_back(at<T>(in, n, c, y, x));
        sum += ii.c == 3 ? floored_gray(p) : to_calc(p[0]);
      }
    }
    means.push_back(keep<T>(static_cast<Calc<T>>(static_cast<double>(sum / (ii.h * ii.w)))));
  }
  return means;
}

template <class T>
Tensor ref_contrast(const Tensor& in, double factor) {
  const std::vector<Calc<T>> means = contrast_means<T>(in);
  return per_pixel<T>(in, in.size(-3), [&](std::int64_t n, const std::vector<T>& p) {
    std::vector<T> out;
    for (T v : p) out.push_back(blend_ref(v, means[static_cast<std::size_t>(n)], factor));
    return out;
  });
}

template <class T>
Tensor ref_hue(const Tensor& in, double hue_factor) {
  if (in.size(-3) == 1 || in.numel() == 0) return in;
  return per_pixel<T>(in, 3, [&](std::int64_t, const std::vector<T>& p) {
    const float r = scale_to_float(p[0]), g = scale_to_float(p[1]), b = scale_to_float(p[2]);
    // _rgb_to_hsv
    const float maxc = std::max({r, g, b}), minc = std::min({r, g, b});
    const bool eqc = maxc == minc;
    const float cr = maxc - minc;
    const float s = cr / (eqc ? 1.0f : maxc);
    const float div = eqc ? 1.0f : cr;
    const float rc = (maxc - r) / div, gc = (maxc - g) / div, bc = (maxc - b) / div;
    const float hg = ((rc + 2.0f) - bc) * ((maxc == g && maxc != r) ? 1.0f : 0.0f);
    const float hr = (bc - gc) * (maxc == r ? 1.0f : 0.0f);
    const float hb = ((gc + 4.0f) - rc) * ((maxc != r && maxc != g) ? 1.0f : 0.0f);
    float h = std::fmod((hr + hg + hb) * static_cast<float>(1.0 / 6.0) + 1.0f, 1.0f);
    // h.add_(hue_factor).remainder_(1.0)
    h = h + static_cast<float>(hue_factor);
    float m = std::fmod(h, 1.0f);
    if (m < 0) m += 1.0f;
    h = m;
    // _hsv_to_rgb
    const float h6 = h * 6.0f;
    const float fl = std::floor(h6);
    const float f = h6 - fl;
    const int i = ((static_cast<int>(fl) % 6) + 6) % 6;
    const float v = maxc;
    const float q = clampf((1.0f - s * f) * v, 0.0f, 1.0f);
    const float t = clampf((s * f + (1.0f - s)) * v, 0.0f, 1.0f);
    const float pp = clampf((1.0f - s) * v, 0.0f, 1.0f);
    const float rgb[6][3] = {{v, t, pp}, {q, v, pp}, {pp, v, t}, {pp, q, v}, {t, pp, v}, {v, pp, q}};
    return std::vector<T>{scale_from_float<T>(rgb[i][0]), scale_from_float<T>(rgb[i][1]),
                          scale_from_float<T>(rgb[i][2])};
  });
}

template <class T>
T invert_ref(T x) {
  if constexpr (is_int<T>) {
    return static_cast<T>(static_cast<T>(max_of<T>()) - x);
  } else {
    return to_t<T>(Calc<T>(1) - to_calc(x));
  }
}

// ---- hand-computed values ---------------------------------------------------------------------

Tensor rgb_u8(const std::vector<std::vector<double>>& pixels) {  // [3, 1, N]
  std::vector<double> v;
  for (int c = 0; c < 3; ++c)
    for (const auto& p : pixels) v.push_back(p[static_cast<std::size_t>(c)]);
  return tensor_of({3, 1, static_cast<std::int64_t>(pixels.size())}, DType::UInt8, v);
}

TEST(ColorGrayscale, KnownValues) {
  // 0.2989 R + 0.587 G + 0.114 B in float32, truncated: white is 254 (the weights sum to 0.9999).
  const Tensor img = rgb_u8({{255, 255, 255}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {10, 20, 30}, {0, 0, 0}});
  EXPECT_EQ(values_of(functional::rgb_to_grayscale(img)), (std::vector<double>{254, 76, 149, 29, 18, 0}));
  const Tensor three = functional::rgb_to_grayscale(img, 3);
  EXPECT_EQ(Dims(three.shape()), (Dims{3, 1, 6}));
  EXPECT_EQ(values_of(three.select(0, 2)), (std::vector<double>{254, 76, 149, 29, 18, 0}));
  const Tensor f = tensor_of({3, 1, 1}, DType::Float32, {1.0, 1.0, 1.0});
  EXPECT_FLOAT_EQ(static_cast<float>(values_of(functional::rgb_to_grayscale(f))[0]), 0.9999f);
}

TEST(ColorGrayscale, MatchesReference) {
  for (int out_channels : {1, 3}) {
    check_against_reference(
        [&](DType dtype) -> Ref {
          return [dtype, out_channels](const Tensor& src) {
            Tensor r;
            with_dtype(dtype, [&](auto tag) {
              using T = typename decltype(tag)::type;
              r = src.size(-3) == 1 ? per_pixel<T>(src, out_channels, [&](std::int64_t, const std::vector<T>& p) {
                return std::vector<T>(static_cast<std::size_t>(out_channels), p[0]);
              })
                                    : ref_grayscale<T>(src, out_channels);
            });
            return r;
          };
        },
        [&](const Tensor& in) { return functional::rgb_to_grayscale(in, out_channels); }, 100 + out_channels);
  }
}

TEST(ColorGrayscale, GrayscaleToRgb) {
  const Tensor gray = random_cpu({2, 1, 5, 7}, DType::UInt8, 3);
  const Tensor rgb = functional::grayscale_to_rgb(with_layout(gray, Layout::Sliced, Device::cpu()));
  ASSERT_EQ(Dims(rgb.shape()), (Dims{2, 3, 5, 7}));
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(bitwise_equal(gray.select(1, 0), rgb.select(1, c)));
  const Tensor already = random_cpu({4, 5, 7}, DType::Float32, 4);
  EXPECT_EQ(functional::grayscale_to_rgb(already).data(), already.data()) << ">= 3 channels: the input itself";
  // A 1-channel rgb_to_grayscale is a copy (clone), never the input.
  const Tensor one = functional::rgb_to_grayscale(gray);
  EXPECT_NE(one.data(), gray.data());
  EXPECT_TRUE(bitwise_equal(gray, one));
}

TEST(ColorBrightness, KnownValuesAndReference) {
  const Tensor img = tensor_of({1, 1, 4}, DType::UInt8, {200, 100, 0, 255});
  EXPECT_EQ(values_of(functional::adjust_brightness(img, 1.5)), (std::vector<double>{255, 150, 0, 255}));
  EXPECT_EQ(values_of(functional::adjust_brightness(img, 0.5)), (std::vector<double>{100, 50, 0, 127}));
  const Tensor f = tensor_of({1, 1, 3}, DType::Float32, {-0.25, 0.5, 0.8});
  EXPECT_EQ(values_of(functional::adjust_brightness(f, 1.5)), (std::vector<double>{0.0, 0.75, 1.0}));
  for (double factor : {0.0, 0.37, 1.0, 2.3}) {
    check_against_reference(
        [&](DType dtype) -> Ref {
          return [dtype, factor](const Tensor& src) {
            Tensor r;
            with_dtype(dtype, [&](auto tag) {
              using T = typename decltype(tag)::type;
              r = per_element<T>(src, [&](T x) {
                using F = Calc<T>;
                return to_t<T>(clampf(keep<T>(to_calc(x) * static_cast<F>(factor)), F(0), static_cast<F>(max_of<T>())));
              });
            });
            return r;
          };
        },
        [&](const Tensor& in) { return functional::adjust_brightness(in, factor); }, 200);
  }
}

TEST(ColorSaturation, KnownValuesAndReference) {
  // Factor 0 gives the floored grayscale image; gray pixels stay; factor 2 pushes away from gray.
  const Tensor img = rgb_u8({{255, 0, 0}, {90, 90, 90}, {100, 150, 200}});
  EXPECT_EQ(values_of(functional::adjust_saturation(img, 0.0)),
            (std::vector<double>{76, 89, 140, 76, 89, 140, 76, 89, 140}));
  // (100, 150, 200): gray = 29.89 + 88.05 + 22.8 = 140.74 -> 140; 2x - 140 = 60, 160, 260 -> 255.
  EXPECT_EQ(values_of(functional::adjust_saturation(img, 2.0)),
            (std::vector<double>{255, 91, 60, 0, 91, 160, 0, 91, 255}));
  for (double factor : {0.0, 0.6, 1.0, 1.7}) {
    check_against_reference(
        [&](DType dtype) -> Ref {
          return [dtype, factor](const Tensor& src) {
            Tensor r;
            with_dtype(dtype, [&](auto tag) { r = ref_saturation<typename decltype(tag)::type>(src, factor); });
            return r;
          };
        },
        [&](const Tensor& in) { return functional::adjust_saturation(in, factor); }, 300);
  }
  const Tensor gray = random_cpu({2, 1, 4, 4}, DType::Float32, 9);
  EXPECT_EQ(functional::adjust_saturation(gray, 0.5).data(), gray.data()) << "1 channel: the input itself";
}

TEST(ColorContrast, KnownValues) {
  // One channel: mean of (10, 20, 30, 40) = 25; factor 0 -> 25 everywhere; factor 2 -> 2x - 25.
  const Tensor img = tensor_of({1, 2, 2}, DType::UInt8, {10, 20, 30, 40});
  EXPECT_EQ(values_of(functional::adjust_contrast(img, 0.0)), (std::vector<double>{25, 25, 25, 25}));
  EXPECT_EQ(values_of(functional::adjust_contrast(img, 2.0)), (std::vector<double>{0, 15, 35, 55}));
  // Per image of a batch: the second image's mean is 200.
  const Tensor batch = tensor_of({2, 1, 1, 2}, DType::UInt8, {0, 100, 150, 250});
  EXPECT_EQ(values_of(functional::adjust_contrast(batch, 0.5)), (std::vector<double>{25, 75, 175, 225}));
  // Three channels: the mean of the floored grayscale image (76 and 29 -> 52.5).
  const Tensor rgb = rgb_u8({{255, 0, 0}, {0, 0, 255}});
  EXPECT_EQ(values_of(functional::adjust_contrast(rgb, 0.0)), (std::vector<double>{52, 52, 52, 52, 52, 52}));
}

TEST(ColorContrast, MatchesReference) {
  std::uint64_t seed = 400;
  for (double factor : {0.0, 0.5, 1.0, 1.8}) {
    for (const Dims& shape : color_shapes()) {
      for (DType dtype : kImageDTypes) {
        const Tensor src = random_cpu(shape, dtype, seed++);
        Tensor expected;
        with_dtype(dtype, [&](auto tag) { expected = ref_contrast<typename decltype(tag)::type>(src, factor); });
        for (Layout layout : kAllLayouts) {
          SCOPED_TRACE(describe(shape, dtype, layout) + " factor " + std::to_string(factor));
          const Tensor in = with_layout(src, layout, Device::cpu());
          const Tensor out = functional::adjust_contrast(in, factor);
          if (!is_floating_point(dtype)) {
            EXPECT_TRUE(bitwise_equal(expected, out));  // integer sums are exact
          } else {
            // The float mean is summed in another order than the reference's.
            const Closeness c = closeness(expected, out);
            EXPECT_LE(c.max_abs, dtype == DType::Float16 ? 1e-3 : dtype == DType::BFloat16 ? 8e-3 : 1e-6);
          }
          EXPECT_TRUE(bitwise_equal(src, in));
        }
      }
    }
  }
}

TEST(ColorHue, KnownValues) {
  // Pure red shifted by a third is green, by a half cyan, by -1/3 blue; gray has no hue.
  const Tensor img = rgb_u8({{255, 0, 0}, {128, 128, 128}});
  EXPECT_EQ(values_of(functional::adjust_hue(img, 1.0 / 3.0)), (std::vector<double>{0, 128, 255, 128, 0, 128}));
  EXPECT_EQ(values_of(functional::adjust_hue(img, 0.5)), (std::vector<double>{0, 128, 255, 128, 255, 128}));
  EXPECT_EQ(values_of(functional::adjust_hue(img, -1.0 / 3.0)), (std::vector<double>{0, 128, 0, 128, 255, 128}));
  const Tensor f = tensor_of({3, 1, 1}, DType::Float32, {1.0, 0.5, 0.0});  // orange, h = 1/12
  const std::vector<double> shifted = values_of(functional::adjust_hue(f, 0.5));  // h = 7/12: azure
  EXPECT_NEAR(shifted[0], 0.0, 1e-6);
  EXPECT_NEAR(shifted[1], 0.5, 1e-6);
  EXPECT_NEAR(shifted[2], 1.0, 1e-6);
}

TEST(ColorHue, MatchesReference) {
  for (double factor : {-0.5, -0.2, 0.0, 0.13, 0.5}) {
    check_against_reference(
        [&](DType dtype) -> Ref {
          return [dtype, factor](const Tensor& src) {
            Tensor r;
            with_dtype(dtype, [&](auto tag) { r = ref_hue<typename decltype(tag)::type>(src, factor); });
            return r;
          };
        },
        [&](const Tensor& in) { return functional::adjust_hue(in, factor); }, 500);
  }
}

TEST(ColorGamma, KnownValuesAndReference) {
  const Tensor img = tensor_of({1, 1, 4}, DType::UInt8, {0, 128, 255, 64});
  EXPECT_EQ(values_of(functional::adjust_gamma(img, 1.0)), (std::vector<double>{0, 128, 255, 64}));
  EXPECT_EQ(values_of(functional::adjust_gamma(img, 0.0)), (std::vector<double>{255, 255, 255, 255}));
  // (128/255)^2 * 255.999 = 64.50 -> 64; (64/255)^2 -> 16.12 -> 16.
  EXPECT_EQ(values_of(functional::adjust_gamma(img, 2.0)), (std::vector<double>{0, 64, 255, 16}));
  // sqrt, and gain 2 clamps: sqrt(128/255) * 2 > 1.
  EXPECT_EQ(values_of(functional::adjust_gamma(img, 0.5, 2.0)), (std::vector<double>{0, 255, 255, 255}));
  std::uint64_t seed = 600;
  for (double gamma : {0.3, 0.5, 1.7, 2.0, 2.45}) {
    for (double gain : {1.0, 0.8}) {
      for (const Dims& shape : color_shapes()) {
        for (DType dtype : kImageDTypes) {
          const Tensor src = random_cpu(shape, dtype, seed++, 0.0, 1.0);
          Tensor expected;
          with_dtype(dtype, [&](auto tag) {
            using T = typename decltype(tag)::type;
            using F = Calc<T>;
            expected = per_element<T>(src, [&](T x) {
              const F v = is_int<T> ? static_cast<F>(scale_to_float(x)) : to_calc(x);
              F p = keep<T>(static_cast<F>(std::pow(v, static_cast<F>(gamma))));
              if (gain != 1.0) p = clampf(keep<T>(p * static_cast<F>(gain)), F(0), F(1));
              if constexpr (is_int<T>) return scale_from_float<T>(p);
              else return to_t<T>(p);
            });
          });
          for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast, Layout::Strided}) {
            SCOPED_TRACE(describe(shape, dtype, layout) + " gamma " + std::to_string(gamma));
            const Tensor out = functional::adjust_gamma(with_layout(src, layout, Device::cpu()), gamma, gain);
            // Our pow is portable (a few ulp) rather than libm's: integers may differ by 1 rarely.
            const Closeness c = closeness(expected, out);
            const double tol = dtype == DType::UInt8 || dtype == DType::UInt16 ? 1.0
                               : dtype == DType::Float16                       ? 1e-3
                               : dtype == DType::BFloat16                      ? 8e-3
                                                                               : 1e-6;
            EXPECT_LE(c.max_abs, tol);
            if (!is_floating_point(dtype)) EXPECT_GE(c.identical, 0.98);
          }
        }
      }
    }
  }
}

TEST(ColorInvertPosterizeSolarize, KnownValues) {
  const Tensor u8 = tensor_of({1, 1, 4}, DType::UInt8, {0, 100, 200, 255});
  EXPECT_EQ(values_of(functional::invert(u8)), (std::vector<double>{255, 155, 55, 0}));
  EXPECT_EQ(values_of(functional::posterize(u8, 2)), (std::vector<double>{0, 64, 192, 192}));
  EXPECT_EQ(values_of(functional::posterize(u8, 0)), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(functional::posterize(u8, 8).data(), u8.data()) << "bits >= value bits: the input itself";
  EXPECT_EQ(values_of(functional::solarize(u8, 128)), (std::vector<double>{0, 100, 55, 0}));
  const Tensor u16 = tensor_of({1, 1, 2}, DType::UInt16, {1000, 65535});
  EXPECT_EQ(values_of(functional::invert(u16)), (std::vector<double>{64535, 0}));
  EXPECT_EQ(values_of(functional::posterize(u16, 4)), (std::vector<double>{0, 61440}));
  const Tensor f = tensor_of({1, 1, 4}, DType::Float32, {0.0, 0.3, 0.7, 1.0});
  EXPECT_EQ(values_of(functional::invert(f)), (std::vector<double>{1.0, 1.0f - 0.3f, 1.0f - 0.7f, 0.0}));
  // floor(x * 4).clamp(0, 3) / 4
  EXPECT_EQ(values_of(functional::posterize(f, 2)), (std::vector<double>{0.0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(values_of(functional::solarize(f, 0.5)), (std::vector<double>{0.0, 0.3f, 1.0f - 0.7f, 0.0}));
}

TEST(ColorInvertPosterizeSolarize, MatchReference) {
  check_against_reference(
      [](DType dtype) -> Ref {
        return [dtype](const Tensor& src) {
          Tensor r;
          with_dtype(dtype, [&](auto tag) {
            using T = typename decltype(tag)::type;
            r = per_element<T>(src, [](T x) { return invert_ref(x); });
          });
          return r;
        };
      },
      [](const Tensor& in) { return functional::invert(in); }, 700);
  for (int bits : {1, 3, 5, 7}) {
    check_against_reference(
        [bits](DType dtype) -> Ref {
          return [dtype, bits](const Tensor& src) {
            Tensor r;
            with_dtype(dtype, [&](auto tag) {
              using T = typename decltype(tag)::type;
              r = per_element<T>(src, [bits](T x) -> T {
                if constexpr (is_int<T>) {
                  const int vb = sizeof(T) * 8;
                  return static_cast<T>(x & (((1 << bits) - 1) << (vb - bits)));
                } else {
                  using F = Calc<T>;
                  const F levels = static_cast<F>(1 << bits);
                  const F v = std::floor(keep<T>(to_calc(x) * levels));
                  return to_t<T>(keep<T>(clampf(v, F(0), levels - 1) * static_cast<F>(1.0 / (1 << bits))));
                }
              });
            });
            return r;
          };
        },
        [bits](const Tensor& in) { return functional::posterize(in, bits); }, 800);
  }
  for (double rel : {0.0, 0.3, 0.5, 0.99, 1.0}) {
    check_against_reference(
        [rel](DType dtype) -> Ref {
          return [dtype, rel](const Tensor& src) {
            Tensor r;
            with_dtype(dtype, [&](auto tag) {
              using T = typename decltype(tag)::type;
              const double threshold = rel * max_of<T>();
              r = per_element<T>(src, [threshold](T x) -> T {
                if constexpr (is_int<T>) {
                  return static_cast<float>(x) >= static_cast<float>(threshold) ? invert_ref(x) : x;
                } else {
                  return to_calc(x) >= to_calc(to_t<T>(static_cast<Calc<T>>(threshold))) ? invert_ref(x) : x;
                }
              });
            });
            return r;
          };
        },
        [rel](const Tensor& in) { return functional::solarize(in, rel * max_value(in.dtype())); }, 900);
  }
}

// The CPU engine compares 1- and 2-byte integers with solarize's level in the image's own type
// (cpu/color.cpp): every value of int8, uint8, int16 and uint16, in rising and falling order,
// against float32's x >= threshold, for thresholds below, inside, between and at the ends of each
// type's range. On a GPU the CUDA result equals it too.
template <class T>
void expect_solarize_of_every_value(DType dtype) {
  const std::int64_t lowest = std::numeric_limits<T>::lowest(), highest = std::numeric_limits<T>::max();
  const std::int64_t count = highest - lowest + 1;
  Tensor img = empty({1, 2, count}, dtype, Device::cpu());
  T* v = static_cast<T*>(img.data());
  for (std::int64_t i = 0; i < count; ++i) {
    v[i] = static_cast<T>(lowest + i);
    v[count + i] = static_cast<T>(highest - i);
  }
  const double lo = static_cast<double>(lowest), hi = static_cast<double>(highest);
  for (double t : {lo - 3.5, lo - 1.0, lo, lo + 0.5, -0.5, 0.0, 0.25, 1.0, 100.0, std::floor(hi / 2) + 0.5, hi - 1.0,
                   hi - 0.5, hi}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)) + " threshold " + std::to_string(t));
    const Tensor out = functional::solarize(img, t);
    const T* o = static_cast<const T*>(out.data());
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < 2 * count; ++i) {
      const T expected = static_cast<float>(v[i]) >= static_cast<float>(t) ? static_cast<T>(highest - v[i]) : v[i];
      if (o[i] != expected && wrong++ == 0) ADD_FAILURE() << "value " << +v[i] << ": " << +o[i] << ", expected " << +expected;
    }
    EXPECT_EQ(wrong, 0);
    if (built_with_cuda() && cuda_is_available()) {
      EXPECT_TRUE(bitwise_equal(out, functional::solarize(to_device(img, kGpu), t)));
    }
  }
}

TEST(ColorInvertPosterizeSolarize, SolarizeEveryIntegerValueAndLevel) {
  expect_solarize_of_every_value<std::int8_t>(DType::Int8);
  expect_solarize_of_every_value<std::uint8_t>(DType::UInt8);
  expect_solarize_of_every_value<std::int16_t>(DType::Int16);
  expect_solarize_of_every_value<std::uint16_t>(DType::UInt16);
}

// The word forms the CUDA engine applies to 16-byte vectors (kernels/color.hpp) equal the ops
// byte by byte, for every byte value in every position and levels across and beyond [0, 255].
TEST(ColorInvertPosterizeSolarize, WordFormsEqualByteForms) {
  std::mt19937 rng(17);
  std::vector<std::uint32_t> words;
  for (std::uint32_t v = 0; v < 256; ++v) {
    words.push_back(v * 0x01010101u);
    words.push_back(v | ((255 - v) << 8) | (((v + 1) & 255) << 16) | (((v * 7) & 255) << 24));
  }
  for (int k = 0; k < 4000; ++k) words.push_back(static_cast<std::uint32_t>(rng()));
  const auto expect_bytewise = [&](const std::string& what, auto op, auto byte_op) {
    for (std::uint32_t w : words) {
      std::uint32_t expected = 0;
      for (int b = 0; b < 4; ++b) expected |= static_cast<std::uint32_t>(byte_op((w >> (8 * b)) & 255u)) << (8 * b);
      ASSERT_EQ(op.quad(w), expected) << what << " of 0x" << std::hex << w;
    }
  };
  using kernels::InvertOp;
  expect_bytewise("invert uint8", InvertOp<std::uint8_t>{},
                  [](std::uint32_t v) { return static_cast<std::uint8_t>(InvertOp<std::uint8_t>{}(v, 0)); });
  expect_bytewise("invert int8", InvertOp<std::int8_t>{}, [](std::uint32_t v) {
    return static_cast<std::uint8_t>(InvertOp<std::int8_t>{}(static_cast<std::int8_t>(v), 0));
  });
  for (int bits = 0; bits <= 8; ++bits) {
    const auto u8 = kernels::make_posterize_op<std::uint8_t>(bits);
    expect_bytewise("posterize uint8 " + std::to_string(bits), u8,
                    [&](std::uint32_t v) { return u8(static_cast<std::uint8_t>(v), 0); });
    const auto i8 = kernels::make_posterize_op<std::int8_t>(bits);
    expect_bytewise("posterize int8 " + std::to_string(bits), i8,
                    [&](std::uint32_t v) { return static_cast<std::uint8_t>(i8(static_cast<std::int8_t>(v), 0)); });
  }
  for (double t : {-3.0, 0.0, 0.5, 1.0, 1.5, 64.0, 127.0, 127.5, 128.0, 129.0, 200.2, 254.0, 255.0, 255.5, 256.0, 300.0,
                   std::nan("")}) {
    const auto op = kernels::make_solarize_op<std::uint8_t>(t);
    expect_bytewise("solarize uint8 " + std::to_string(t), op,
                    [&](std::uint32_t v) { return op(static_cast<std::uint8_t>(v), 0); });
  }
}

// The four-pixel forms of the uint8 pixel ops (kernels/color.hpp, color_hsv.hpp) equal the ops
// pixel by pixel. On the host they convert the plain way; their GPU conversions are checked by
// Color.PixelQuadsEveryColourCudaEqualsCpu.
TEST(ColorPixelOps, QuadFormsEqualPixelForms) {
  std::mt19937 rng(23);
  const auto expect_pixelwise = [&](const std::string& what, const auto& op) {
    using Op = std::decay_t<decltype(op)>;
    for (int trial = 0; trial < 3000; ++trial) {
      std::uint32_t x[3], y[Op::kOut];
      for (auto& w : x) w = static_cast<std::uint32_t>(rng());
      if (trial % 7 == 0) x[1] = x[2] = x[0];  // gray pixels: ties everywhere
      if (trial % 11 == 0) x[2] = x[0];
      op.quad(0, x, y);
      for (int k = 0; k < 4; ++k) {
        const std::uint8_t in[3] = {static_cast<std::uint8_t>(x[0] >> (8 * k)), static_cast<std::uint8_t>(x[1] >> (8 * k)),
                                    static_cast<std::uint8_t>(x[2] >> (8 * k))};
        std::uint8_t out[Op::kOut];
        op(0, in, out);
        for (int c = 0; c < Op::kOut; ++c) {
          ASSERT_EQ(static_cast<int>((y[c] >> (8 * k)) & 255u), static_cast<int>(out[c]))
              << what << ": pixel (" << int(in[0]) << ", " << int(in[1]) << ", " << int(in[2]) << "), channel " << c;
        }
      }
    }
  };
  expect_pixelwise("grayscale", kernels::GrayscaleOp<std::uint8_t, 1>{});
  expect_pixelwise("grayscale 3", kernels::GrayscaleOp<std::uint8_t, 3>{});
  for (double f : {0.0, 0.4, 1.0, 1.9, 40.0, 1e30, std::numeric_limits<double>::infinity()}) {
    expect_pixelwise("saturation " + std::to_string(f),
                     kernels::SaturationOp<std::uint8_t>{kernels::BlendFactors<std::uint8_t>::make(f)});
  }
  for (double f : {-0.5, -0.13, 0.0, 0.31, 0.5}) {
    expect_pixelwise("hue " + std::to_string(f), kernels::make_hue_op<std::uint8_t>(f));
  }
}

// adjust_gamma's inlined path (positive finite values, +0, and the called pow_rare for the
// rest: kernels/color.hpp) equals pmath::pow_ bit for bit, for float and double, over ordinary,
// tiny, huge and special values and exponents on either side of 0, integer ones included.
TEST(ColorGamma, InlinedPathEqualsPow) {
  std::mt19937 rng(29);
  const auto check = [&](auto zero) {
    using F = decltype(zero);
    const F inf = std::numeric_limits<F>::infinity();
    std::vector<F> xs{F(0), -F(0), F(1), F(-1), F(0.5), F(-2), inf, -inf, std::numeric_limits<F>::quiet_NaN(),
                      std::numeric_limits<F>::denorm_min(), std::numeric_limits<F>::min(), std::numeric_limits<F>::max()};
    std::uniform_real_distribution<double> u(-3.0, 3.0);
    for (int k = 0; k < 20000; ++k) xs.push_back(static_cast<F>(std::ldexp(u(rng), static_cast<int>(u(rng) * 20))));
    for (double gamma : {0.8, 2.2, 0.3, -1.5, -2.0, 4.0, 5.0, 1e-3, 40.0}) {
      const auto op = kernels::make_gamma_op<F>(gamma, 1.0);
      ASSERT_EQ(op.kind, (kernels::GammaOp<F>::kPow)) << gamma;
      for (F x : xs) {
        const F expected = kernels::pmath::pow_(x, op.gamma), actual = op.pow_gamma(x);
        if (std::isnan(expected)) {
          ASSERT_TRUE(std::isnan(actual)) << "x " << x << " gamma " << gamma;
        } else {
          ASSERT_EQ(kernels::pmath::to_bits(expected), kernels::pmath::to_bits(actual)) << "x " << x << " gamma " << gamma;
        }
      }
    }
  };
  check(0.0f);
  check(0.0);
}

// The CPU engine's float adjust_gamma (cpu/color.cpp: pow_select in a vectorised loop, the gain
// as a select) gives pmath::pow_'s bits for every value: random ones over many binades, the
// special values, in runs long enough for the vector loop and its tail; with and without gain.
TEST(ColorGamma, CpuEngineEqualsPow) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<float> values{0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -2.0f, 7.5f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(), 3e-39f, std::numeric_limits<float>::max()};
  while (values.size() < 3 * 37 * 41) values.push_back(static_cast<float>(std::ldexp(u(rng), static_cast<int>(u(rng) * 30))));
  Tensor img = empty({3, 37, 41}, DType::Float32, Device::cpu());
  std::copy(values.begin(), values.end(), static_cast<float*>(img.data()));
  for (double gamma : {0.8, 2.2, 0.45, 7.0, 4.0}) {
    for (double gain : {1.0, 1.3}) {
      const Tensor out = functional::adjust_gamma(img, gamma, gain);
      const float* o = static_cast<const float*>(out.data());
      const float g = static_cast<float>(gamma);
      for (std::size_t k = 0; k < values.size(); ++k) {
        float expected = kernels::pmath::pow_(values[k], g);
        if (gain != 1.0) expected = kernels::clamp_value(expected * static_cast<float>(gain), 0.0f, 1.0f);
        if (std::isnan(expected)) {
          ASSERT_TRUE(std::isnan(o[k])) << "x " << values[k] << " gamma " << gamma;
        } else {
          ASSERT_EQ(kernels::pmath::to_bits(expected), kernels::pmath::to_bits(o[k]))
              << "x " << values[k] << " gamma " << gamma << " gain " << gain;
        }
      }
    }
  }
}

// Every uint8 colour through the CPU's adjust_hue (a vectorised loop over the finite path, with
// host-only selects: kernels/color_hsv.hpp) equals the general path applied pixel by pixel:
// to_dtype's scales (x * (1 / 255) in float32; back, r * 255.999 truncated), shift<false> (four
// IEEE divisions, integer sectors).
TEST(ColorHue, EveryUint8ColourEqualsTheGeneralPath) {
  Tensor img = empty({3, 4096, 4096}, DType::UInt8, Device::cpu());
  auto* planes = static_cast<std::uint8_t*>(img.data());
  constexpr std::int64_t kPlane = 4096 * 4096;
  for (std::int64_t i = 0; i < kPlane; ++i) {
    planes[i] = static_cast<std::uint8_t>(i >> 16);
    planes[kPlane + i] = static_cast<std::uint8_t>(i >> 8);
    planes[2 * kPlane + i] = static_cast<std::uint8_t>(i);
  }
  const float to_unit = static_cast<float>(1.0 / 255.0), to_byte = static_cast<float>(256.0 - 1e-3);
  // -0x1.56ac02p-5: (255, 64, 0)'s hue plus this rounds to 1 in the remainder (sector 6).
  for (double factor : {-0.31, 0.07, -0x1.56ac02p-5}) {
    const auto op = kernels::make_hue_op<float>(factor);
    const Tensor out = functional::adjust_hue(img, factor);
    const auto* o = static_cast<const std::uint8_t*>(out.data());
    for (std::int64_t i = 0; i < kPlane; ++i) {
      float rgb[3];
      op.shift<false>(planes[i] * to_unit, planes[kPlane + i] * to_unit, planes[2 * kPlane + i] * to_unit, rgb[0], rgb[1],
                      rgb[2]);
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(static_cast<int>(rgb[c] * to_byte), o[c * kPlane + i])
            << "factor " << factor << ", colour " << i << ", channel " << c;
      }
    }
  }
}

// Float adjust_hue takes the finite path (kernels/color_hsv.hpp) for pixels whose channels are +0
// or in [2^-64, 1]: it must give the general path's bits there. Random values, values near the
// 2^-64 bound and near 1, ties of two and three channels, zeros; several factors.
TEST(ColorHue, FloatFinitePathEqualsGeneralPath) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-64, 0);
  const auto value = [&](int kind) {
    switch (kind % 6) {
      case 0: return unit(rng);
      case 1: return std::ldexp(0.5f + 0.5f * unit(rng), exponent(rng));  // any binade down to 2^-64
      case 2: return std::nextafter(1.0f, 0.0f) * (1.0f - unit(rng) * 1e-6f);
      case 3: return 0.0f;
      case 4: return 1.0f;
      default: return std::ldexp(1.0f, -64) * (1.0f + unit(rng));
    }
  };
  int ordinary = 0;
  for (double factor : {-0.5, -0.17, 0.0, 0.1, 0.33, 0.5}) {
    const auto op = kernels::make_hue_op<float>(factor);
    for (int trial = 0; trial < 40000; ++trial) {
      float x[3] = {value(static_cast<int>(rng())), value(static_cast<int>(rng())), value(static_cast<int>(rng()))};
      if (trial % 5 == 0) x[1] = x[0];
      if (trial % 7 == 0) x[2] = x[0];
      if (!(kernels::hue_ordinary(x[0]) && kernels::hue_ordinary(x[1]) && kernels::hue_ordinary(x[2]))) continue;
      ++ordinary;
      float fast[3], general[3];
      op.shift<true>(x[0], x[1], x[2], fast[0], fast[1], fast[2]);
      op.shift<false>(x[0], x[1], x[2], general[0], general[1], general[2]);
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(kernels::pmath::to_bits(general[c]), kernels::pmath::to_bits(fast[c]))
            << "factor " << factor << ", pixel (" << x[0] << ", " << x[1] << ", " << x[2] << "), channel " << c;
      }
    }
  }
  EXPECT_GT(ordinary, 200000);
  // The bound itself: -0, NaN, values above 1 and below 2^-64 are not ordinary.
  EXPECT_TRUE(kernels::hue_ordinary(0.0f) && kernels::hue_ordinary(1.0f) && kernels::hue_ordinary(std::ldexp(1.0f, -64)));
  EXPECT_FALSE(kernels::hue_ordinary(-0.0f) || kernels::hue_ordinary(std::nextafter(1.0f, 2.0f)) ||
               kernels::hue_ordinary(std::ldexp(1.0f, -65)) || kernels::hue_ordinary(std::nanf("")));
}

// The CPU takes the finite path for whole float32 rows whose every value is ordinary (a
// vectorised loop, cpu/pixels.hpp) and the general path for other rows: either way each pixel gets
// the general path's bits. Rows with one extraordinary value (NaN, -0, above 1, below 2^-64, inf)
// at a random place among ordinary ones, in every layout.
TEST(ColorHue, FloatRowsEqualTheGeneralPathPixelByPixel) {
  std::mt19937 rng(47);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float extraordinary[] = {std::nanf(""), -0.0f, 1.5f, std::ldexp(1.0f, -70), std::numeric_limits<float>::infinity()};
  const std::int64_t h = 40, w = 67;
  Tensor src = empty({2, 3, h, w}, DType::Float32, Device::cpu());
  auto* v = static_cast<float*>(src.data());
  for (std::int64_t i = 0; i < src.numel(); ++i) v[i] = unit(rng);
  for (std::int64_t n = 0; n < 2; ++n) {
    for (std::int64_t y = 0; y < h; y += 3) {  // every third row gets one
      const std::int64_t c = static_cast<std::int64_t>(rng() % 3), x = static_cast<std::int64_t>(rng() % w);
      v[((n * 3 + c) * h + y) * w + x] = extraordinary[(y / 3) % 5];
    }
  }
  for (double factor : {-0.23, 0.4}) {
    const auto op = kernels::make_hue_op<float>(factor);
    for (Layout layout : kAllLayouts) {
      SCOPED_TRACE(layout_name(layout));
      const Tensor out = contiguous_copy(functional::adjust_hue(with_layout(src, layout, Device::cpu()), factor));
      const auto* o = static_cast<const float*>(out.data());
      for (std::int64_t n = 0; n < 2; ++n) {
        for (std::int64_t p = 0; p < h * w; ++p) {
          const float x[3] = {v[(n * 3 + 0) * h * w + p], v[(n * 3 + 1) * h * w + p], v[(n * 3 + 2) * h * w + p]};
          float y[3];
          op(n, x, y);
          for (int c = 0; c < 3; ++c) {
            ASSERT_EQ(kernels::pmath::to_bits(y[c]), kernels::pmath::to_bits(o[(n * 3 + c) * h * w + p]))
                << "factor " << factor << ", image " << n << ", pixel " << p << ", channel " << c;
          }
        }
      }
    }
  }
}

TEST(ColorPermuteChannels, ReordersChannels) {
  const Tensor src = random_cpu({2, 3, 5, 7}, DType::UInt8, 21);
  for (Layout layout : kAllLayouts) {
    SCOPED_TRACE(layout_name(layout));
    const Tensor in = with_layout(src, layout, Device::cpu());
    const Tensor out = functional::permute_channels(in, {2, 0, -2});  // -2 is channel 1
    for (int k = 0; k < 3; ++k) {
      const int from = k == 0 ? 2 : (k == 1 ? 0 : 1);
      EXPECT_TRUE(bitwise_equal(src.select(1, from), out.select(1, k)));
    }
  }
  const Tensor many = random_cpu({4, 3, 6}, DType::Float64, 22);
  const Tensor out = functional::permute_channels(many, {3, 3, 0, 1});  // repeats are allowed (indexing)
  EXPECT_TRUE(bitwise_equal(many.select(0, 3), out.select(0, 1)));
  EXPECT_TRUE(bitwise_equal(many.select(0, 1), out.select(0, 3)));
}

// Channels-last images take a one-pass pixel permutation: every element size, 3 and 4 channels,
// repeated and negative indices, batches and a sliced window; the output keeps channels-last.
TEST(ColorPermuteChannels, ChannelsLastPixelsEveryItemSize) {
  std::uint64_t seed = 40;
  for (DType dtype : {DType::UInt8, DType::UInt16, DType::Float32, DType::Float64}) {
    for (const Dims& shape : {Dims{3, 5, 37}, Dims{2, 3, 4, 9}, Dims{4, 6, 33}, Dims{2, 2, 4, 7, 5}}) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      const std::int64_t c = shape[shape.size() - 3];
      const std::vector<std::int64_t> perm = c == 3 ? std::vector<std::int64_t>{2, -3, 1} : std::vector<std::int64_t>{3, 3, -4, 1};
      for (Layout layout : {Layout::ChannelsLast, Layout::Sliced}) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor in = with_layout(src, layout, Device::cpu());
        const Tensor out = functional::permute_channels(in, perm);
        for (std::int64_t k = 0; k < c; ++k) {
          const std::int64_t from = perm[static_cast<std::size_t>(k)] < 0 ? perm[static_cast<std::size_t>(k)] + c : perm[static_cast<std::size_t>(k)];
          EXPECT_TRUE(bitwise_equal(src.select(-3, from), out.select(-3, k)));
        }
        EXPECT_TRUE(bitwise_equal(src, in));
      }
    }
  }
}

// ---- adjust_sharpness ----------------------------------------------------------------------------

template <class T>
Tensor ref_sharpness(const Tensor& in, double factor) {
  using F = Calc<T>;
  using K = std::conditional_t<is_int<T>, float, T>;
  const F a = to_calc(K(1.0 / 13.0));
  const F b = to_calc(K(5.0 / 13.0));
  const F alpha = static_cast<F>(1.0 - factor);
  const ImageIndex ii(in);
  Tensor out = empty(Dims(in.shape()), in.dtype(), Device::cpu());
  for (std::int64_t n = 0; n < ii.images; ++n) {
    for (std::int64_t c = 0; c < ii.c; ++c) {
      for (std::int64_t y = 0; y < ii.h; ++y) {
        for (std::int64_t x = 0; x < ii.w; ++x) {
          F v = to_calc(at<T>(in, n, c, y, x));
          if (y > 0 && x > 0 && y < ii.h - 1 && x < ii.w - 1) {
            F acc = 0;  // conv2d, row-major taps
            for (int dy = -1; dy <= 1; ++dy)
              for (int dx = -1; dx <= 1; ++dx) acc = fmadd(dy == 0 && dx == 0 ? b : a, to_calc(at<T>(in, n, c, y + dy, x + dx)), acc);
            const F blurred = is_int<T> ? std::nearbyint(acc) : keep<T>(acc);
            v = keep<T>(fmadd(keep<T>(blurred - v), alpha, v));  // view.add_(blurred - view, alpha)
          }
          set<T>(out, n, c, y, x, to_t<T>(clampf(v, F(0), static_cast<F>(max_of<T>()))));
        }
      }
    }
  }
  return out;
}

TEST(ColorSharpness, KnownValues) {
  // Centre 130 among zeros: blur = 130 * 5 / 13 = 50; factor 2: 130 - (50 - 130) = 210.
  const Tensor img = tensor_of({1, 3, 3}, DType::UInt8, {0, 0, 0, 0, 130, 0, 0, 0, 0});
  EXPECT_EQ(values_of(functional::adjust_sharpness(img, 2.0)), (std::vector<double>{0, 0, 0, 0, 210, 0, 0, 0, 0}));
  EXPECT_EQ(values_of(functional::adjust_sharpness(img, 0.0)), (std::vector<double>{0, 0, 0, 0, 50, 0, 0, 0, 0}));
  // A constant image is unchanged; borders keep their values but are clamped (floats).
  const Tensor flat = tensor_of({1, 4, 4}, DType::UInt8, std::vector<double>(16, 77));
  EXPECT_EQ(values_of(functional::adjust_sharpness(flat, 3.0)), std::vector<double>(16, 77));
  const Tensor f = tensor_of({1, 3, 3}, DType::Float32, {1.25, 0, 0, 0, 0.5, 0, 0, 0, -0.5});
  const std::vector<double> fo = values_of(functional::adjust_sharpness(f, 1.0));
  EXPECT_EQ(fo[0], 1.0);
  EXPECT_EQ(fo[8], 0.0);
  EXPECT_EQ(fo[4], 0.5);
  // H or W <= 2: the input itself.
  const Tensor thin = random_cpu({3, 2, 9}, DType::UInt8, 2);
  EXPECT_EQ(functional::adjust_sharpness(thin, 2.0).data(), thin.data());
}

TEST(ColorSharpness, MatchesReference) {
  std::uint64_t seed = 1600;
  for (double factor : {0.0, 0.5, 2.0}) {
    for (const Dims& shape : color_shapes()) {
      for (DType dtype : kImageDTypes) {
        const Tensor src = random_cpu(shape, dtype, seed++);
        if (src.numel() == 0 || shape[shape.size() - 1] <= 2 || shape[shape.size() - 2] <= 2) continue;
        Tensor expected;
        with_dtype(dtype, [&](auto tag) { expected = ref_sharpness<typename decltype(tag)::type>(src, factor); });
        for (Layout layout : kAllLayouts) {
          SCOPED_TRACE(describe(shape, dtype, layout));
          const Tensor in = with_layout(src, layout, Device::cpu());
          EXPECT_TRUE(bitwise_equal(expected, functional::adjust_sharpness(in, factor)));
          EXPECT_TRUE(bitwise_equal(src, in));
        }
      }
    }
  }
}

// ---- any colour op ------------------------------------------------------------------------------

TEST(ColorOps, EmptyBatchesAndInputIdentity) {
  const Tensor empty_batch = random_cpu({0, 3, 4, 5}, DType::UInt8, 1);
  EXPECT_EQ(Dims(functional::adjust_brightness(empty_batch, 1.2).shape()), Dims(empty_batch.shape()));
  EXPECT_EQ(Dims(functional::rgb_to_grayscale(empty_batch).shape()), (Dims{0, 1, 4, 5}));
  EXPECT_EQ(functional::adjust_hue(empty_batch, 0.1).data(), empty_batch.data());
  EXPECT_EQ(functional::autocontrast(empty_batch).data(), empty_batch.data());
  EXPECT_EQ(functional::equalize(empty_batch).data(), empty_batch.data());
  EXPECT_EQ(Dims(functional::adjust_contrast(empty_batch, 0.3).shape()), Dims(empty_batch.shape()));
}

// Leading dims that do not merge into one batch dim (a permuted 5-D batch): the image ops copy
// the input to a contiguous layout first and give the same results.
TEST(ColorOps, NonMergeableLeadingDims) {
  const Tensor base = random_cpu({2, 2, 3, 6, 7}, DType::UInt8, 31);
  const Tensor permuted = base.permute({1, 0, 2, 3, 4});
  const Tensor dense = contiguous_copy(permuted);
  const std::vector<std::pair<std::string, Op>> ops = {
      {"grayscale", [](const Tensor& x) { return functional::rgb_to_grayscale(x); }},
      {"saturation", [](const Tensor& x) { return functional::adjust_saturation(x, 0.3); }},
      {"contrast", [](const Tensor& x) { return functional::adjust_contrast(x, 0.3); }},
      {"hue", [](const Tensor& x) { return functional::adjust_hue(x, 0.2); }},
      {"sharpness", [](const Tensor& x) { return functional::adjust_sharpness(x, 2.0); }},
      {"autocontrast", [](const Tensor& x) { return functional::autocontrast(x); }},
      {"equalize", [](const Tensor& x) { return functional::equalize(x); }},
      {"blur", [](const Tensor& x) { return functional::gaussian_blur(x, {3, 5}); }},
      {"permute", [](const Tensor& x) { return functional::permute_channels(x, {1, 2, 0}); }},
  };
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(bitwise_equal(op(dense), op(permuted)));
  }
}

TEST(ColorOps, BadInputChangesNothing) {
  const Tensor img = random_cpu({2, 3, 6, 7}, DType::UInt8, 5);
  const Tensor keep = contiguous_copy(img);
  const Tensor four = random_cpu({4, 6, 7}, DType::Float32, 6);
  expect_error(ErrorKind::Value, "hue_factor", [&] { functional::adjust_hue(img, 0.6); }, img, keep);
  expect_error(ErrorKind::Value, "hue_factor", [&] { functional::adjust_hue(img, -0.51); }, img, keep);
  expect_error(ErrorKind::Value, "hue_factor", [&] { functional::adjust_hue(img, std::nan("")); }, img, keep);
  expect_error(ErrorKind::Type, "1 or 3 channels", [&] { functional::adjust_hue(four, 0.1); });
  expect_error(ErrorKind::Value, "gamma", [&] { functional::adjust_gamma(img, -0.5); }, img, keep);
  expect_error(ErrorKind::Type, "bits", [&] { functional::posterize(img, 9); }, img, keep);
  expect_error(ErrorKind::Type, "bits", [&] { functional::posterize(img, -1); }, img, keep);
  expect_error(ErrorKind::Type, "threshold", [&] { functional::solarize(img, 256.0); }, img, keep);
  expect_error(ErrorKind::Type, "threshold", [&] { functional::solarize(four, 1.5); });
  expect_error(ErrorKind::Value, "brightness_factor", [&] { functional::adjust_brightness(img, -1.0); }, img, keep);
  expect_error(ErrorKind::Value, "saturation_factor", [&] { functional::adjust_saturation(img, -0.1); });
  expect_error(ErrorKind::Value, "contrast_factor", [&] { functional::adjust_contrast(img, -2.0); });
  expect_error(ErrorKind::Value, "sharpness_factor", [&] { functional::adjust_sharpness(img, -2.0); });
  expect_error(ErrorKind::Type, "1 or 3 channels", [&] { functional::adjust_brightness(four, 0.5); });
  expect_error(ErrorKind::Type, "1 or 3 channels", [&] { functional::adjust_saturation(four, 0.5); });
  expect_error(ErrorKind::Type, "1 or 3 channels", [&] { functional::adjust_contrast(four, 0.5); });
  expect_error(ErrorKind::Type, "1 or 3 channels", [&] { functional::adjust_sharpness(four, 0.5); });
  expect_error(ErrorKind::Type, "1 or 3 channels", [&] { functional::autocontrast(four); });
  expect_error(ErrorKind::Value, "num_output_channels", [&] { functional::rgb_to_grayscale(img, 2); });
  expect_error(ErrorKind::Value, "channels", [&] { functional::rgb_to_grayscale(four); });
  expect_error(ErrorKind::Value, "channels", [&] { functional::grayscale_to_rgb(random_cpu({2, 3, 3}, DType::UInt8, 1)); });
  expect_error(ErrorKind::Value, "permutation", [&] { functional::permute_channels(img, {0, 1}); });
  expect_error(ErrorKind::Value, "permutation", [&] { functional::permute_channels(img, {0, 1, 3}); });
  expect_error(ErrorKind::Value, "at least 3 dims", [&] { functional::adjust_contrast(random_cpu({4, 4}, DType::UInt8, 1), 1.0); });
  // Unsupported dtypes name the supported ones.
  expect_error(ErrorKind::UnsupportedDType, "uint16", [&] { functional::adjust_brightness(random_cpu({3, 2, 2}, DType::Int32, 1), 1.0); });
  EXPECT_TRUE(bitwise_equal(keep, img));
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Color, ElementwiseOpsCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  const auto shapes = cuda_shapes();
  expect_cuda_equals_cpu("brightness", [](const Tensor& x) { return functional::adjust_brightness(x, 1.37); }, 1,
                         shapes, kImageDTypes);
  expect_cuda_equals_cpu("invert", [](const Tensor& x) { return functional::invert(x); }, 2, shapes, kImageDTypes);
  expect_cuda_equals_cpu("posterize", [](const Tensor& x) { return functional::posterize(x, 3); }, 3, shapes,
                         kImageDTypes);
  for (double rel : {0.0, 0.4, 0.5, 1.0}) {
    expect_cuda_equals_cpu("solarize " + std::to_string(rel),
                           [rel](const Tensor& x) { return functional::solarize(x, rel * max_value(x.dtype())); }, 4,
                           shapes, kImageDTypes);
  }
  for (double gamma : {0.0, 0.5, 0.77, 2.0, 3.0, 2.2}) {
    for (double gain : {1.0, 1.3}) {
      expect_cuda_equals_cpu("gamma " + std::to_string(gamma),
                             [=](const Tensor& x) { return functional::adjust_gamma(x, gamma, gain); }, 5, shapes,
                             kImageDTypes);
    }
  }
}

TEST(Color, PixelOpsCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  const auto shapes = cuda_shapes();
  expect_cuda_equals_cpu("grayscale", [](const Tensor& x) { return functional::rgb_to_grayscale(x); }, 10, shapes,
                         kImageDTypes);
  expect_cuda_equals_cpu("grayscale 3", [](const Tensor& x) { return functional::rgb_to_grayscale(x, 3); }, 11, shapes,
                         kImageDTypes);
  expect_cuda_equals_cpu("grayscale_to_rgb", [](const Tensor& x) { return functional::grayscale_to_rgb(x); }, 12,
                         shapes, kImageDTypes);
  for (double f : {0.0, 0.4, 1.9, 40.0, std::numeric_limits<double>::infinity()}) {
    expect_cuda_equals_cpu("saturation", [=](const Tensor& x) { return functional::adjust_saturation(x, f); }, 13,
                           shapes, kImageDTypes);
  }
  for (double f : {-0.5, -0.13, 0.0, 0.31, 0.5}) {
    expect_cuda_equals_cpu("hue", [=](const Tensor& x) { return functional::adjust_hue(x, f); }, 14, shapes,
                           kImageDTypes);
  }
  expect_cuda_equals_cpu("permute", [](const Tensor& x) {
    std::vector<std::int64_t> p;
    for (std::int64_t c = x.size(-3) - 1; c >= 0; --c) p.push_back(c);
    return functional::permute_channels(x, p);
  }, 15, shapes, {DType::UInt8, DType::Float64, DType::Bool});
}

// Every uint8 colour once (a 3x4096x4096 image, pixel p = (p & 255, (p >> 8) & 255, p >> 16)):
// the uint8 pixel ops' four-pixel GPU forms, with their conversions through byte_word.hpp and
// adjust_hue's shortcuts for finite values, equal the CPU for every input they can see.
TEST(Color, PixelQuadsEveryColourCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  constexpr std::int64_t kSide = 4096;
  Tensor cpu = empty({3, kSide, kSide}, DType::UInt8, Device::cpu());
  auto* data = static_cast<std::uint8_t*>(cpu.data());
  for (std::int64_t p = 0; p < kSide * kSide; ++p) {
    data[p] = static_cast<std::uint8_t>(p);
    data[kSide * kSide + p] = static_cast<std::uint8_t>(p >> 8);
    data[2 * kSide * kSide + p] = static_cast<std::uint8_t>(p >> 16);
  }
  const Tensor gpu = to_device(cpu, kGpu);
  const auto expect_equal = [&](const std::string& what, const UnaryOp& op) {
    SCOPED_TRACE(what);
    EXPECT_TRUE(bitwise_equal(op(cpu), op(gpu)));
  };
  expect_equal("grayscale", [](const Tensor& x) { return functional::rgb_to_grayscale(x); });
  expect_equal("grayscale 3", [](const Tensor& x) { return functional::rgb_to_grayscale(x, 3); });
  // Factors in [0, 1] take the quad form without clamps (kernels::SaturationOp's Convex), the
  // others the clamped one; 1 - 1e-7 and 1 are its edges.
  for (double f : {0.0, 0.4, 0.6, 1.0 - 1e-7, 1.0, 1.0 + 1e-7, 1.9, 40.0}) {
    expect_equal("saturation " + std::to_string(f), [f](const Tensor& x) { return functional::adjust_saturation(x, f); });
  }
  // -0x1.56ac02p-5 and -0x1.919192p-2: the hues of (255, 64, 0) and (30, 200, 90) plus these round
  // to 1 in the remainder (sector 6, torch's sector 0 with f = 0; kernels::hsv_to_rgb_word).
  for (double f : {-0.5, -0.21, 0.0, 0.1, 0.37, 0.5, -0x1.56ac02p-5, -0x1.919192p-2}) {
    expect_equal("hue " + std::to_string(f), [f](const Tensor& x) { return functional::adjust_hue(x, f); });
  }
  // Channels last takes pixel_map_kernel's element path, whose uint8 adjust_hue forms the quad
  // form's word one pixel at a time (kernels::hsv_to_rgb_word).
  const Tensor cpu_last = with_layout(cpu, Layout::ChannelsLast, Device::cpu());
  const Tensor gpu_last = with_layout(cpu, Layout::ChannelsLast, kGpu);
  for (double f : {-0.37, 0.21}) {
    SCOPED_TRACE("hue channels last " + std::to_string(f));
    EXPECT_TRUE(bitwise_equal(functional::adjust_hue(cpu_last, f), functional::adjust_hue(gpu_last, f)));
  }
}

// float32 adjust_gamma through every mantissa: the values 0.5 + k 2^-24 hold each of the 2^23
// mantissas once, so log2's reduced argument m (and the GPU's division (m - 1) / (m + 1), on the
// fast path without its range check: pmath::divide_unit) takes every value it can. Then a few
// binades either side and the special values, for exponents below and above 1 (7: an odd integer).
TEST(Color, GammaEveryMantissaCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  constexpr std::int64_t kMantissas = std::int64_t{1} << 23;
  const std::vector<float> extra{0.0f, -0.0f, 1.0f, -1.0f, 1e-30f, 3e-39f, 7.5f, 1e30f,
                                 std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN(), -0.25f};
  Tensor cpu = empty({1, 1, 2 * kMantissas + static_cast<std::int64_t>(extra.size())}, DType::Float32, Device::cpu());
  auto* data = static_cast<float*>(cpu.data());
  for (std::int64_t k = 0; k < kMantissas; ++k) {
    data[k] = 0.5f + static_cast<float>(k) * 0x1p-24f;
    data[kMantissas + k] = std::ldexp(data[k], static_cast<int>(k % 41) - 20);
  }
  std::copy(extra.begin(), extra.end(), data + 2 * kMantissas);
  const Tensor gpu = to_device(cpu, kGpu);
  for (double gamma : {0.8, 2.2, 0.45, 7.0}) {
    SCOPED_TRACE("gamma " + std::to_string(gamma));
    EXPECT_TRUE(bitwise_equal(functional::adjust_gamma(cpu, gamma), functional::adjust_gamma(gpu, gamma)));
  }
}

// float32 adjust_hue on the GPU, finite path (two divisions without the range check) and general
// path: channels in every binade from 2^-70 to 1, ties, zeros, ones and values outside [0, 1]
// (negative, -0, above 1, NaN, inf), CUDA equal to the CPU bit for bit.
TEST(Color, HueFloatEveryBinadeCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  constexpr std::int64_t kSide = 1024;
  Tensor cpu = empty({2, 3, kSide, kSide}, DType::Float32, Device::cpu());
  auto* data = static_cast<float*>(cpu.data());
  std::mt19937 rng(37);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float special[] = {0.0f, -0.0f, 1.0f, -0.5f, 1.5f, std::numeric_limits<float>::infinity(), std::nanf("")};
  const std::int64_t plane = kSide * kSide;
  for (std::int64_t n = 0; n < 2; ++n) {
    for (std::int64_t p = 0; p < plane; ++p) {
      float* px = data + n * 3 * plane + p;
      for (int c = 0; c < 3; ++c) {
        const std::uint32_t pick = static_cast<std::uint32_t>(rng());
        float v = std::ldexp(0.5f + 0.5f * unit(rng), -static_cast<int>(pick % 71));  // 2^-70 .. 1
        if (n == 1 && pick % 97 == 0) v = special[(pick >> 8) % 7];  // the second image: some specials
        if (pick % 13 == 0) v = px[0];                                 // ties with channel 0
        px[c * plane] = v;
      }
    }
  }
  const Tensor gpu = to_device(cpu, kGpu);
  for (double f : {-0.5, -0.21, 0.0, 0.1, 0.37, 0.5}) {
    SCOPED_TRACE("hue " + std::to_string(f));
    EXPECT_TRUE(bitwise_equal(functional::adjust_hue(cpu, f), functional::adjust_hue(gpu, f)));
  }
}

TEST(Color, SharpnessCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  for (double f : {0.0, 0.5, 2.0}) {
    expect_cuda_equals_cpu("sharpness", [=](const Tensor& x) { return functional::adjust_sharpness(x, f); }, 33,
                           cuda_shapes(), kImageDTypes);
  }
}

// The CUDA quad kernel (four columns a thread, strips of 32 rows, neighbours by warp shuffle) takes
// planes whose rows start on a 4-element boundary; the rest go to the per-pixel kernel. Both must
// equal the CPU bit for bit: heights around the strip size, one to three rows, widths of one quad,
// of a warp's 128 columns and past a block's 512, rows read from a wider buffer at an aligned
// column offset (quads, row pitch not the width) and at an odd one (per-pixel), factors that clamp.
TEST(Color, SharpnessQuadsCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  const std::vector<Dims> shapes{{1, 1, 1, 4},   {1, 1, 2, 8},    {1, 3, 3, 4},    {2, 3, 33, 132},
                                 {1, 1, 65, 2052}, {1, 3, 64, 512}, {3, 1, 31, 136}, {1, 1, 97, 128}};
  std::uint64_t seed = 500;
  for (const Dims& shape : shapes) {
    for (DType dtype : kImageDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (std::int64_t offset : {0, 4, 1}) {
        // The image as columns [offset, offset + w) of a buffer 8 columns wider (offset 0 with
        // the same width: a contiguous tensor).
        Dims big = shape;
        if (offset > 0) big[3] += 8;
        const Tensor buffer_cpu = random_cpu(big, dtype, seed++);
        Tensor view_cpu = buffer_cpu.slice(3, offset, offset + shape[3]);
        for_each_index(src.shape(), [&](const std::int64_t* idx) { store_bits(view_cpu, idx, load_bits(src, idx)); });
        const Tensor buffer_gpu = to_device(buffer_cpu, kGpu);
        const Tensor view_gpu = buffer_gpu.slice(3, offset, offset + shape[3]);
        for (double factor : {0.0, 0.5, 2.0, 9.0}) {
          SCOPED_TRACE(describe(shape, dtype, Layout::Contiguous) + " column offset " + std::to_string(offset) +
                       " factor " + std::to_string(factor));
          const Tensor expected = functional::adjust_sharpness(view_cpu, factor);
          const Tensor actual = functional::adjust_sharpness(view_gpu, factor);
          EXPECT_TRUE(bitwise_equal(expected, actual));
        }
        EXPECT_TRUE(bitwise_equal(buffer_cpu, buffer_gpu)) << "the input buffer must not change";
      }
    }
  }
}

#if SV_WITH_CUDA
// Reductions, lookup tables, blur weights, noise: all captured into one graph, replayed with
// new inputs, equal to the eager results.
TEST(Color, CapturableInCudaGraphs) {
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
