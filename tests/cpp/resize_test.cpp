// resize / resized_crop on the CPU: hand-computed cases (nearest indices, bilinear lambdas, the
// antialias weights of a 2x downscale), an independent double-precision reference over dtypes,
// shapes, layouts and modes, the output-size rules, and bad input. On CUDA: equal to the CPU bit
// for bit in every mode, at extreme antialias ratios and for the fused uint8 bicubic kernel, and
// uint8 bilinear antialias equal to a host reference of its fixed-point arithmetic (skipped
// without a GPU).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "geometry_test_utils.hpp"
#if SV_WITH_CUDA
#include "cuda/resize.cuh"
#endif
#include "kernels/resize_weights.hpp"

namespace svt {
namespace {

// Whether torchvision resizes uint8 bilinear images on this CPU with torch's integer path (torch's
// CPU capability AVX2 or AVX512, ATEN_CPU_CAPABILITY overriding the CPU's) rather than in float32.
bool torchvision_uint8_bilinear_is_integer() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (const char* env = std::getenv("ATEN_CPU_CAPABILITY")) {
    const std::string_view v(env);
    if (v == "default") return false;
    if (v == "avx2" || v == "avx512") return true;
  }
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

// ---- reference (double precision, written from the definitions) -----------------------------

struct Taps {
  std::vector<std::int64_t> idx;
  std::vector<double> w;
};

double keys(double x, double a) {
  x = std::fabs(x);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Taps of output index i of one dimension for a mode.
Taps ref_taps(InterpolationMode mode, bool aa, std::int64_t in, std::int64_t out, std::int64_t i) {
  Taps t;
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  if (mode == InterpolationMode::Nearest || mode == InterpolationMode::NearestExact) {
    const float s = static_cast<float>(in) / static_cast<float>(out);  // torch computes these in float32
    const float f = mode == InterpolationMode::Nearest ? static_cast<float>(i) * s : (static_cast<float>(i) + 0.5f) * s;
    t.idx = {std::min<std::int64_t>(static_cast<std::int64_t>(std::floor(f)), in - 1)};
    t.w = {1.0};
    return t;
  }
  if (aa) {
    const bool cubic = mode == InterpolationMode::Bicubic;
    const double stretch = std::max(scale, 1.0), support = (cubic ? 2.0 : 1.0) * stretch;
    const double center = scale * (static_cast<double>(i) + 0.5);
    const std::int64_t lo = std::max<std::int64_t>(static_cast<std::int64_t>(center - support + 0.5), 0);
    const std::int64_t hi = std::min<std::int64_t>(static_cast<std::int64_t>(center + support + 0.5), in);
    double total = 0;
    for (std::int64_t k = lo; k < hi; ++k) {
      const double x = (static_cast<double>(k) - center + 0.5) / stretch;
      const double v = cubic ? keys(x, -0.5) : std::max(0.0, 1.0 - std::fabs(x));
      t.idx.push_back(k);
      t.w.push_back(v);
      total += v;
    }
    for (double& v : t.w) v /= total;
    return t;
  }
  const double src = scale * (static_cast<double>(i) + 0.5) - 0.5;
  if (mode == InterpolationMode::Bilinear) {
    const double s = std::max(src, 0.0);
    const std::int64_t i0 = static_cast<std::int64_t>(s);
    const double l = s - static_cast<double>(i0);
    t.idx = {i0, std::min(i0 + 1, in - 1)};
    t.w = {1 - l, l};
    return t;
  }
  const std::int64_t i0 = static_cast<std::int64_t>(std::floor(src));
  const double frac = src - static_cast<double>(i0);
  for (int k = 0; k < 4; ++k) {
    t.idx.push_back(std::clamp<std::int64_t>(i0 - 1 + k, 0, in - 1));
    t.w.push_back(keys(frac + 1 - k, -0.75));
  }
  return t;
}

// Separable resample in double of planes [P][H][W] (flattened), along one dimension.
std::vector<double> resample_axis(const std::vector<double>& src, std::int64_t planes, std::int64_t h, std::int64_t w,
                                  std::int64_t out_size, bool horizontal, const std::function<Taps(std::int64_t)>& taps,
                                  const std::function<double(double)>& finish) {
  const std::int64_t oh = horizontal ? h : out_size, ow = horizontal ? out_size : w;
  std::vector<double> dst(static_cast<std::size_t>(planes * oh * ow));
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t y = 0; y < oh; ++y)
      for (std::int64_t x = 0; x < ow; ++x) {
        const Taps t = taps(horizontal ? x : y);
        double acc = 0;
        for (std::size_t k = 0; k < t.idx.size(); ++k) {
          const std::int64_t sy = horizontal ? y : t.idx[k], sx = horizontal ? t.idx[k] : x;
          acc += t.w[k] * src[static_cast<std::size_t>((p * h + sy) * w + sx)];
        }
        dst[static_cast<std::size_t>((p * oh + y) * ow + x)] = finish(acc);
      }
  return dst;
}

// The reference result in double, before the conversion to the image dtype (for torch's integer path
// already rounded, half up).
std::vector<double> reference_resize(const Tensor& in, std::int64_t oh, std::int64_t ow, InterpolationMode mode, bool aa) {
  const std::int64_t h = in.size(-2), w = in.size(-1), planes = in.numel() / std::max<std::int64_t>(h * w, 1);
  std::vector<double> src;
  for_each_index(in.shape(), [&](const std::int64_t* idx) { src.push_back(value_at(in, idx)); });
  const bool u8_int = in.dtype() == DType::UInt8 &&
                      (mode == InterpolationMode::Bicubic ||
                       (mode == InterpolationMode::Bilinear && torchvision_uint8_bilinear_is_integer()));
  auto identity = [](double v) { return v; };
  // torch's CPU integer path (uint8 bicubic, and bilinear where torchvision takes it) rounds
  // half up and clamps after each pass and skips a dimension that keeps its size.
  auto to_u8 = [](double v) { return std::clamp(std::floor(v + 0.5), 0.0, 255.0); };
  const std::function<double(double)> finish = u8_int ? std::function<double(double)>(to_u8) : identity;
  std::vector<double> mid = src;
  std::int64_t mw = w;
  if (ow != w || !u8_int) {
    mid = resample_axis(src, planes, h, w, ow, true, [&](std::int64_t i) { return ref_taps(mode, aa, w, ow, i); }, finish);
    mw = ow;
  }
  if (oh == h && u8_int) return mid;
  return resample_axis(mid, planes, h, mw, oh, false, [&](std::int64_t i) { return ref_taps(mode, aa, h, oh, i); }, finish);
}

// Compares `out` with the double reference under the dtype's conversion rule.
void expect_close(const Tensor& out, const std::vector<double>& ref, InterpolationMode mode) {
  const Tensor c = contiguous_copy(out);
  ASSERT_EQ(static_cast<std::size_t>(c.numel()), ref.size());
  std::int64_t i = 0, exact = 0;
  double worst = 0;
  const bool nearest = mode == InterpolationMode::Nearest || mode == InterpolationMode::NearestExact;
  for_each_index(c.shape(), [&](const std::int64_t* idx) {
    const double got = value_at(c, idx), r = ref[static_cast<std::size_t>(i++)];
    double expected = r;
    switch (c.dtype()) {
      case DType::UInt8: expected = std::clamp(std::nearbyint(r), 0.0, 255.0); break;
      case DType::UInt16: expected = std::clamp(std::trunc(r), 0.0, 65535.0); break;
      default: break;
    }
    const double d = std::fabs(got - expected);
    worst = std::max(worst, d);
    exact += d == 0;
  });
  if (c.numel() == 0) return;
  double tol = 0;
  switch (c.dtype()) {
    case DType::Float64: tol = 1e-9; break;
    case DType::Float32: tol = 2e-5; break;
    case DType::Float16: tol = 4e-3; break;
    case DType::BFloat16: tol = 3e-2; break;
    default: tol = 1; break;
  }
  if (nearest) tol = 0;
  EXPECT_LE(worst, tol) << "max abs difference";
  // Integer results sit on rounding (or, for uint16, truncation) boundaries where a double
  // reference and float arithmetic may land on either side; most must still agree.
  if (!is_floating_point(c.dtype()) && c.numel() >= 100) {
    EXPECT_GE(static_cast<double>(exact) / static_cast<double>(c.numel()), 0.9);
  }
}

// ---- hand-computed ------------------------------------------------------------------------

Tensor row_image(DType dtype, const std::vector<double>& v) {
  Tensor t = empty({1, 1, static_cast<std::int64_t>(v.size())}, dtype, Device::cpu());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::int64_t idx[3] = {0, 0, static_cast<std::int64_t>(i)};
    if (dtype == DType::UInt8) store<std::uint8_t>(t, idx, static_cast<std::uint8_t>(v[i]));
    else store<float>(t, idx, static_cast<float>(v[i]));
  }
  return t;
}

std::vector<double> row_values(const Tensor& t) {
  std::vector<double> v;
  for_each_index(t.shape(), [&](const std::int64_t* idx) { v.push_back(value_at(t, idx)); });
  return v;
}

TEST(Resize, NearestIndices) {
  const Tensor img = row_image(DType::UInt8, {10, 11, 12, 13, 14});
  // scale 5/3: floor(i * 1.667) = 0, 1, 3; floor((i + 0.5) * 1.667) = 0, 2, 4.
  EXPECT_EQ(row_values(functional::resize(img, std::vector<std::int64_t>{1, 3}, InterpolationMode::Nearest)),
            (std::vector<double>{10, 11, 13}));
  EXPECT_EQ(row_values(functional::resize(img, std::vector<std::int64_t>{1, 3}, InterpolationMode::NearestExact)),
            (std::vector<double>{10, 12, 14}));
  // PIL code 0 is nearest.
  EXPECT_EQ(row_values(functional::resize(img, std::vector<std::int64_t>{1, 3}, interpolation_mode_from_int(0))),
            (std::vector<double>{10, 11, 13}));
}

TEST(Resize, BilinearUpscaleLambdas) {
  // 2 -> 4: src = 0.5 (i + 0.5) - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, 1.25 (last pixel).
  const Tensor img = row_image(DType::Float32, {0, 8});
  EXPECT_EQ(row_values(functional::resize(img, std::vector<std::int64_t>{1, 4}, InterpolationMode::Bilinear, std::nullopt, false)),
            (std::vector<double>{0, 2, 6, 8}));
}

TEST(Resize, Uint8BilinearRoundsAsTorchvisionOnThisCpu) {
  // 4 -> 2 without antialias: sources 0.5 and 2.5, so each output is the mean of two pixels:
  // 0.5 and 4.5. torch's integer path takes int16 weights 16384 / 2^15 each and rounds half up
  // ((16384 * (0 + 1) + 2^14) >> 15 = 1, (16384 * (2 + 7) + 2^14) >> 15 = 5); the float path
  // rounds half to even (0, 4).
  const Tensor u8 = row_image(DType::UInt8, {0, 1, 2, 7});
  const auto v = row_values(functional::resize(u8, std::vector<std::int64_t>{1, 2}, InterpolationMode::Bilinear, std::nullopt, false));
  EXPECT_EQ(v, torchvision_uint8_bilinear_is_integer() ? (std::vector<double>{1, 5}) : (std::vector<double>{0, 4}));
  // Antialiased 6 -> 2: the triangle stretched by 3 gives output 0 the weights 2/3, 1, 2/3, 1/3
  // (/ 8/3) on pixels 0..3 and output 1 the weights 1/3, 2/3, 1, 2/3 on pixels 2..5. The largest,
  // 3/8, sets precision 16: weights 16384, 24576, 16384, 8192 and 8192, 16384, 24576, 16384. On
  // (2, 0, 0, 0, 0, 4): 0.5 -> (2 * 16384 + 2^15) >> 16 = 1 and 1 -> (4 * 16384 + 2^15) >> 16 = 1.
  // (The float path's weights are not exact quarters, so its 0.5 may land on either side.)
  if (torchvision_uint8_bilinear_is_integer()) {
    const Tensor row = row_image(DType::UInt8, {2, 0, 0, 0, 0, 4});
    EXPECT_EQ(row_values(functional::resize(row, std::vector<std::int64_t>{1, 2}, InterpolationMode::Bilinear, std::nullopt, true)),
              (std::vector<double>{1, 1}));
  }
}

TEST(Resize, AntialiasTwoTimesDownscaleWeights) {
  // 4 -> 2, triangle filter stretched by 2: output 0 has taps 0..2 with weights (3, 3, 1) / 7,
  // output 1 taps 1..3 with (1, 3, 3) / 7.
  const Tensor u8 = row_image(DType::UInt8, {0, 7, 14, 21});
  EXPECT_EQ(row_values(functional::resize(u8, std::vector<std::int64_t>{1, 2})), (std::vector<double>{5, 16}));
  const Tensor f32 = row_image(DType::Float32, {0, 7, 14, 21});
  const auto v = row_values(functional::resize(f32, std::vector<std::int64_t>{1, 2}));
  EXPECT_NEAR(v[0], 5.0, 2e-6);
  EXPECT_NEAR(v[1], 16.0, 4e-6);
  // 2-D: the separable product W x W^T.
  Tensor sq = empty({1, 4, 4}, DType::Float32, Device::cpu());
  for (int i = 0; i < 16; ++i) sq.data_as<float>()[i] = static_cast<float>(i * i % 7);
  const Tensor out = contiguous_copy(functional::resize(sq, std::vector<std::int64_t>{2, 2}));
  const double wm[2][4] = {{3 / 7.0, 3 / 7.0, 1 / 7.0, 0}, {0, 1 / 7.0, 3 / 7.0, 3 / 7.0}};
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x) {
      double e = 0;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) e += wm[y][a] * wm[x][b] * ((a * 4 + b) * (a * 4 + b) % 7);
      EXPECT_NEAR(out.data_as<float>()[y * 2 + x], e, 1e-5) << y << "," << x;
    }
}

// Output i's antialias taps and float weights of dimension d (kernels::aa_weights, into w), and
// the precision of their fixed-point form in the CUDA uint8 kernels (kernels::fixed_precision of
// the largest |weight|).
int fixed_point_taps(const kernels::AaDim<float>& d, int i, int& first, int& count, std::vector<float>& w) {
  kernels::aa_weights(d, i, first, count, w.data());
  float peak = 0;
  for (int j = 0; j < count; ++j) peak = std::max(peak, std::fabs(w[static_cast<std::size_t>(j)]));
  return kernels::fixed_precision(peak);
}

// The CUDA uint8 antialias's fixed-point weights (kernels::fixed_precision), for every output row
// of downscales from 1x to 1000x and upscales: each int16 weight within half a step of its float
// weight, none out of int16's range, and no sum of 255 * |q| that could overflow int32.
TEST(Resize, FixedPointAntialiasWeightsStayInRange) {
  for (const auto [in, out] : {std::pair{4, 2}, std::pair{1080, 224}, std::pair{1920, 960}, std::pair{300, 299},
                               std::pair{3000, 3}, std::pair{5000, 5}, std::pair{7, 40}, std::pair{2, 1}}) {
    for (const kernels::ResampleFilter filter : {kernels::ResampleFilter::Triangle, kernels::ResampleFilter::Cubic}) {
      const auto d = kernels::make_aa_dim<float>(in, out, filter);
      std::vector<float> w(static_cast<std::size_t>(d.max_taps));
      for (int i = 0; i < out; ++i) {
        int xmin = 0, xsize = 0;
        const int p = fixed_point_taps(d, i, xmin, xsize, w);
        ASSERT_TRUE(p >= 0 && p <= 22) << in << " -> " << out << " row " << i;
        std::int64_t magnitude = 0;
        for (int j = 0; j < xsize; ++j) {
          const double wj = w[static_cast<std::size_t>(j)];
          const std::int16_t q = kernels::int16_weight(wj, p);
          EXPECT_LE(std::fabs(q / static_cast<double>(1 << p) - wj), 0.5 / (1 << p) + 1e-12) << in << " -> " << out;
          magnitude += std::abs(static_cast<int>(q));
        }
        EXPECT_LT(255 * magnitude, std::int64_t{1} << 31) << in << " -> " << out << " row " << i;
        EXPECT_EQ(kernels::fixed_unit(p) * static_cast<float>(1 << p), 1.0f);
      }
    }
  }
}

TEST(Resize, OutputSizeRules) {
  using functional::resized_output_size;
  EXPECT_EQ(resized_output_size(480, 640, std::vector<std::int64_t>{256}), (std::vector<std::int64_t>{256, 341}));
  EXPECT_EQ(resized_output_size(640, 480, std::vector<std::int64_t>{256}), (std::vector<std::int64_t>{341, 256}));
  EXPECT_EQ(resized_output_size(480, 640, std::vector<std::int64_t>{256}, 300), (std::vector<std::int64_t>{225, 300}));
  EXPECT_EQ(resized_output_size(480, 640, std::nullopt, 100), (std::vector<std::int64_t>{75, 100}));
  EXPECT_EQ(resized_output_size(480, 640, std::vector<std::int64_t>{100, 50}), (std::vector<std::int64_t>{100, 50}));
  EXPECT_EQ(resized_output_size(5, 5, std::vector<std::int64_t>{3}), (std::vector<std::int64_t>{3, 3}));
  // Same size: the input itself comes back.
  const Tensor img = random_cpu({3, 8, 6}, DType::UInt8, 1);
  EXPECT_EQ(functional::resize(img, std::vector<std::int64_t>{6}).data(), img.data());
  EXPECT_EQ(functional::resize(img, std::vector<std::int64_t>{8, 6}, InterpolationMode::Box).data(), img.data());
}

struct ResizeCase {
  std::int64_t oh, ow;
};

TEST(Resize, MatchesReferenceForEveryDtypeShapeLayoutAndMode) {
  const std::vector<Dims> shapes{{3, 5, 7},  {2, 3, 9, 13}, {2, 1, 1, 6, 11}, {1, 1, 37},
                                 {3, 17, 1}, {2, 4, 11, 14}, {1, 3, 40, 52},   {0, 3, 4, 5}};
  std::uint64_t seed = 31;
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1];
    const std::vector<ResizeCase> cases{{h * 2 + 1, w + 3}, {std::max<std::int64_t>(h / 2, 1), std::max<std::int64_t>(w / 3, 1)},
                                        {std::max<std::int64_t>(h - 1, 1), w * 2}, {1, 1}, {h + 7, std::max<std::int64_t>(w / 4, 1)}};
    for (DType dtype : kImageDTypes) {
      const Tensor src = dtype == DType::UInt16 ? random_cpu(shape, DType::UInt16, seed++) : random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor in = with_layout(src, layout, Device::cpu());
        for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::NearestExact, InterpolationMode::Bilinear,
                                       InterpolationMode::Bicubic}) {
          for (bool aa : {true, false}) {
            const bool uses_aa = aa && (mode == InterpolationMode::Bilinear || mode == InterpolationMode::Bicubic);
            if (aa && !uses_aa) continue;
            for (const ResizeCase& rc : cases) {
              if (rc.oh == h && rc.ow == w) continue;
              SCOPED_TRACE(describe(shape, dtype, layout) + " " + interpolation_mode_name(mode) + (aa ? " aa" : "") + " -> " +
                           std::to_string(rc.oh) + "x" + std::to_string(rc.ow));
              const Tensor out = functional::resize(in, std::vector<std::int64_t>{rc.oh, rc.ow}, mode, std::nullopt, aa);
              ASSERT_EQ(out.size(-2), rc.oh);
              ASSERT_EQ(out.size(-1), rc.ow);
              expect_close(out, reference_resize(src, rc.oh, rc.ow, mode, aa), mode);
              expect_layout_kept(out, shape, layout);
            }
          }
        }
        EXPECT_TRUE(bitwise_equal(src, in)) << "the input must not change";
      }
    }
  }
}

TEST(Resize, ResizedCropEqualsCropThenResize) {
  const Tensor src = random_cpu({2, 3, 20, 24}, DType::Float32, 41);
  for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast}) {
    const Tensor in = with_layout(src, layout, Device::cpu());
    for (const auto& win : std::vector<std::array<std::int64_t, 4>>{{2, 3, 10, 12}, {-3, 5, 12, 25}}) {
      const Tensor expected = functional::resize(functional::crop(in, win[0], win[1], win[2], win[3]), std::vector<std::int64_t>{7, 9});
      EXPECT_TRUE(bitwise_equal(expected, functional::resized_crop(in, win[0], win[1], win[2], win[3], {7, 9})));
    }
    // Same size as the window: the crop itself.
    EXPECT_TRUE(bitwise_equal(functional::crop(in, 1, 1, 5, 6), functional::resized_crop(in, 1, 1, 5, 6, {5, 6})));
  }
}

TEST(Resize, BadInput) {
  const Tensor img = random_cpu({3, 8, 6}, DType::UInt8, 2);
  using V = std::vector<std::int64_t>;
  // The phrases torchvision's own tests match (TestResize).
  expect_error(ErrorKind::Value, "max_size should only be passed if size is None or specifies",
               [&] { functional::resize(img, V{4, 4}, InterpolationMode::Bilinear, 10); });
  expect_error(ErrorKind::Value, "size should be an int or a sequence of length 1",
               [&] { functional::resize(img, V{1, 2, 3}, InterpolationMode::Bilinear, 10); });
  expect_error(ErrorKind::Value, "must be strictly greater than the requested size",
               [&] { functional::resize(img, V{4}, InterpolationMode::Bilinear, 4); });
  expect_error(ErrorKind::Value, "max_size must be an integer when size is None", [&] { functional::resize(img, std::nullopt); });
  expect_error(ErrorKind::Value, "size", [&] { functional::resize(img, V{1, 2, 3}); });
  expect_error(ErrorKind::NotImplemented, "got box", [&] { functional::resize(img, V{4}, InterpolationMode::Box); });
  expect_error(ErrorKind::NotImplemented, "got hamming", [&] { functional::resize(img, V{4}, InterpolationMode::Hamming); });
  expect_error(ErrorKind::NotImplemented, "got lanczos", [&] { functional::resize(img, V{4}, interpolation_mode_from_int(1)); });
  expect_error(ErrorKind::Value, "pil_code", [&] { interpolation_mode_from_int(7); });
  expect_error(ErrorKind::Runtime, "greater than 0", [&] { functional::resize(img, V{0, 4}); });
  expect_error(ErrorKind::Runtime, "greater than 0", [&] { functional::resize(img, V{-3}); });
  expect_error(ErrorKind::Runtime, "greater than 0", [&] { functional::resize(random_cpu({3, 0, 6}, DType::UInt8, 1), V{4, 4}); });
  EXPECT_EQ(functional::resize(random_cpu({0, 3, 5, 6}, DType::UInt8, 1), V{4, 4}).numel(), 0);
  expect_error(ErrorKind::Value, "at least 3 dims", [&] { functional::resize(random_cpu({8, 6}, DType::UInt8, 1), V{4}); });
  expect_error(ErrorKind::UnsupportedDType, "int32", [&] { functional::resize(random_cpu({3, 8, 6}, DType::Int32, 1), V{4}); });
  expect_error(ErrorKind::NotImplemented, "box", [&] { functional::resized_crop(img, 0, 0, 4, 4, {2}, InterpolationMode::Box); });
  EXPECT_EQ(interpolation_mode_from_int(4), InterpolationMode::Box);
  EXPECT_EQ(interpolation_mode_from_string("nearest-exact"), InterpolationMode::NearestExact);
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Resize, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  std::vector<Dims> shapes{{3, 5, 7}, {2, 3, 9, 13}, {2, 1, 2, 6, 11}, {1, 1, 37}, {3, 17, 1}, {2, 4, 67, 301}, {1, 3, 270, 480}, {0, 3, 4, 5}};
  std::uint64_t seed = 6000;
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1];
    const std::vector<std::vector<std::int64_t>> sizes{{h * 2 + 1, w + 3}, {std::max<std::int64_t>(h / 3, 1), std::max<std::int64_t>(w / 5, 1)},
                                                       {h, w * 2}, {std::max<std::int64_t>(h - 1, 1), w}, {1, 1}, {224, 224}};
    for (DType dtype : kImageDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::NearestExact, InterpolationMode::Bilinear,
                                       InterpolationMode::Bicubic}) {
          // uint8 bilinear: the CPU engine follows torchvision's CPU result (torch's integer
          // path), the CUDA engine torchvision's CUDA result; they differ by design.
          if (dtype == DType::UInt8 && mode == InterpolationMode::Bilinear) continue;
          for (bool aa : {true, false}) {
            if (aa && (mode == InterpolationMode::Nearest || mode == InterpolationMode::NearestExact)) continue;
            for (const auto& size : sizes) {
              if (size[0] == h && size[1] == w) continue;
              SCOPED_TRACE(describe(shape, dtype, layout) + " " + interpolation_mode_name(mode) + (aa ? " aa -> " : " -> ") +
                           std::to_string(size[0]) + "x" + std::to_string(size[1]));
              const Tensor expected = functional::resize(cpu_in, size, mode, std::nullopt, aa);
              const Tensor actual = functional::resize(gpu_in, size, mode, std::nullopt, aa);
              ASSERT_TRUE(bitwise_equal(expected, actual));
              expect_layout_kept(actual, shape, layout);
            }
          }
        }
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
  // A crop of a larger image resized from a view.
  const Tensor big = random_cpu({2, 3, 100, 90}, DType::Float32, 61);
  const Tensor gbig = with_layout(big, Layout::ChannelsLast, kGpu);
  EXPECT_TRUE(bitwise_equal(functional::resized_crop(big, 7, 9, 50, 61, {32, 32}), functional::resized_crop(gbig, 7, 9, 50, 61, {32, 32})));
}

// uint8 bilinear antialias on CUDA goes through resized_crop_batch's tiled kernel (cuda/batch.cu,
// byte quads) wherever it applies: [C, H, W] and [N, C, H, W] images with unit-stride rows,
// downscales, upscales and mixed ones, one to four channels. The reference is the antialias
// kernel itself (cuda/resize_antialias.cu; both sum the vertical pass in fixed point): bit for
// bit, for every layout (channels_last and strided rows, and a span too wide for a tile, stay on
// that kernel), and the input unchanged.
#if SV_WITH_CUDA
TEST(Resize, Uint8BilinearAntialiasByTilesEqualsTheAntialiasKernel) {
  SV_REQUIRE_GPU();
  const std::vector<Dims> shapes{{3, 37, 53}, {2, 1, 64, 80}, {2, 4, 45, 301}, {1, 3, 270, 480}, {2, 2, 3, 1000}, {1, 3, 1080, 1920}};
  std::uint64_t seed = 6800;
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1];
    const std::vector<std::vector<std::int64_t>> sizes{{std::max<std::int64_t>(h / 3, 1), std::max<std::int64_t>(w / 5, 1)},
                                                       {h * 2 + 1, w + 3}, {std::max<std::int64_t>(h - 1, 1), w / 2 + 1},
                                                       {1, 1}, {224, 224}};
    const Tensor src = random_cpu(shape, DType::UInt8, seed++);
    for (Layout layout : kAllLayouts) {
      const Tensor in = with_layout(src, layout, kGpu);
      for (const auto& size : sizes) {
        SCOPED_TRACE(describe(shape, DType::UInt8, layout) + " -> " + std::to_string(size[0]) + "x" + std::to_string(size[1]));
        const Tensor actual = functional::resize(in, size, InterpolationMode::Bilinear, std::nullopt, true);
        const Tensor expected = empty(Dims(actual.shape()), DType::UInt8, kGpu,
                                      actual.is_contiguous() ? MemoryFormat::Contiguous : MemoryFormat::ChannelsLast);
        cuda::resize_antialias(in, expected, InterpolationMode::Bilinear, Stream::current(0));
        ASSERT_TRUE(bitwise_equal(expected, actual));
      }
      EXPECT_TRUE(bitwise_equal(src, in)) << "the input must not change";
    }
  }
}
#endif

// The CUDA engine's uint8 antialiased bilinear arithmetic written out plainly on the host, for a
// contiguous [C, H, W] image: each output row's vertical weights in fixed point
// (kernels::fixed_precision of their largest |weight|), the bytes summed exactly in integers and
// scaled by 2^-p, then the float horizontal filter (first product, then fused multiply-adds in
// tap order) and resize_output's rounding.
Tensor uint8_antialias_reference(const Tensor& src, std::int64_t out_h, std::int64_t out_w) {
  const std::int64_t channels = src.size(0), h = src.size(1), w = src.size(2);
  const auto dy = kernels::make_aa_dim<float>(h, out_h, kernels::ResampleFilter::Triangle);
  const auto dx = kernels::make_aa_dim<float>(w, out_w, kernels::ResampleFilter::Triangle);
  Tensor out = empty({channels, out_h, out_w}, DType::UInt8, Device::cpu());
  const auto* in = src.data_as<std::uint8_t>();
  auto* o = out.data_as<std::uint8_t>();
  std::vector<float> wy(static_cast<std::size_t>(dy.max_taps)), wx(static_cast<std::size_t>(dx.max_taps)), sums(static_cast<std::size_t>(w));
  for (std::int64_t c = 0; c < channels; ++c) {
    for (int oy = 0; oy < out_h; ++oy) {
      int ymin = 0, ysize = 0;
      const int precision = fixed_point_taps(dy, oy, ymin, ysize, wy);
      for (std::int64_t x = 0; x < w; ++x) {
        std::int64_t sum = 0;
        for (int j = 0; j < ysize; ++j) {
          sum += kernels::int16_weight(wy[static_cast<std::size_t>(j)], precision) * in[(c * h + ymin + j) * w + x];
        }
        sums[static_cast<std::size_t>(x)] = static_cast<float>(sum) * kernels::fixed_unit(precision);
      }
      for (int ox = 0; ox < out_w; ++ox) {
        int xmin = 0, xsize = 0;
        kernels::aa_weights(dx, ox, xmin, xsize, wx.data());
        const float s = kernels::weighted_sum(wx.data(), 1, xsize, sums.data() + xmin, 1);
        o[(c * out_h + oy) * out_w + ox] = kernels::resize_output<std::uint8_t>(s);
      }
    }
  }
  return out;
}

// CUDA uint8 bilinear antialias against that reference, through every schedule: tiles (whole and
// partial tiles, down- and upscales), the antialias kernel (channels_last and strided rows, a
// 1080p image at a mild scale) and both kinds of rows (byte quads, elements).
TEST(Resize, Uint8BilinearAntialiasCudaEqualsTheFixedPointReference) {
  SV_REQUIRE_GPU();
  struct Case {
    Dims shape;
    std::vector<std::vector<std::int64_t>> sizes;
  };
  const std::vector<Case> cases{{{3, 37, 53}, {{12, 10}, {75, 56}, {1, 1}, {36, 20}}},
                                {{2, 64, 301}, {{21, 60}, {64, 100}}},
                                {{3, 270, 480}, {{224, 224}, {135, 240}, {56, 64}}},
                                {{3, 1080, 1920}, {{224, 224}, {540, 960}}}};
  std::uint64_t seed = 6900;
  for (const Case& c : cases) {
    const Tensor src = random_cpu(c.shape, DType::UInt8, seed++);
    for (const auto& size : c.sizes) {
      const Tensor expected = uint8_antialias_reference(src, size[0], size[1]);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(c.shape, DType::UInt8, layout) + " -> " + std::to_string(size[0]) + "x" + std::to_string(size[1]));
        const Tensor in = with_layout(src, layout, kGpu);
        ASSERT_TRUE(bitwise_equal(expected, to_cpu(functional::resize(in, size, InterpolationMode::Bilinear, std::nullopt, true))));
      }
    }
  }
}

// Antialiased resize at the benchmark's size and at extreme ratios: tall row bands, wide filter
// spans (a whole 3000-row column or 5000-element row per output), and more planes than one grid
// dimension holds. Channels-last rows whose one-column span passes the usual 48 KiB of shared
// memory (3 x 3577 float64, 4 x 4023 uint16: found by the stability run) opt in to more, and one
// past even that (3 x 12000 float64) is resized plane by plane from a planar copy.
TEST(Resize, AntialiasLargeRatiosCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  struct Case {
    Dims shape;
    std::vector<std::int64_t> size;
    std::vector<DType> dtypes;
  };
  const std::vector<Case> cases{{{2, 3, 1080, 1920}, {224, 224}, {DType::UInt8, DType::Float32}},
                                {{1, 1, 3000, 2}, {1, 1}, {DType::UInt8, DType::Float64}},
                                {{1, 1, 2, 5000}, {2, 3}, {DType::Float32, DType::Float64}},
                                {{70000, 1, 3, 3}, {2, 2}, {DType::UInt8}},
                                {{2, 3, 1, 3577}, {1, 2}, {DType::Float64}},
                                {{1, 4, 5, 4023}, {2, 3}, {DType::UInt16, DType::Float32}},
                                {{1, 3, 2, 12000}, {2, 1}, {DType::Float64}}};
  std::uint64_t seed = 6500;
  for (const Case& c : cases) {
    for (DType dtype : c.dtypes) {
      const Tensor src = random_cpu(c.shape, dtype, seed++);
      for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast}) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (InterpolationMode mode : {InterpolationMode::Bilinear, InterpolationMode::Bicubic}) {
          if (dtype == DType::UInt8 && mode == InterpolationMode::Bilinear) continue;  // CPU: torch's CPU integer path
          SCOPED_TRACE(describe(c.shape, dtype, layout) + " " + interpolation_mode_name(mode));
          ASSERT_TRUE(bitwise_equal(functional::resize(cpu_in, c.size, mode, std::nullopt, true),
                                    functional::resize(gpu_in, c.size, mode, std::nullopt, true)));
        }
      }
    }
  }
}

// uint8 bicubic (torch's CPU integer path) at the benchmark's size with and without antialias,
// and upscaled: the fused kernel's bands, ring slots and staged rows against the CPU engine.
TEST(Resize, Uint8BicubicCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  // Also: one dimension up and one down, 1-row and 1-column outputs, odd sizes (the direct
  // kernel without antialias: taps clamped at both edges).
  const std::vector<std::pair<Dims, std::vector<std::int64_t>>> cases{
      {{2, 3, 1080, 1920}, {224, 224}}, {{2, 3, 45, 70}, {301, 97}}, {{1, 2, 7, 300}, {23, 11}},
      {{3, 1, 250, 3}, {1, 40}},         {{1, 4, 2, 2}, {5, 1}}};
  std::uint64_t seed = 6600;
  for (const auto& [shape, size] : cases) {
    const Tensor src = random_cpu(shape, DType::UInt8, seed++);
    for (Layout layout : kAllLayouts) {
      const Tensor cpu_in = with_layout(src, layout, Device::cpu());
      const Tensor gpu_in = with_layout(src, layout, kGpu);
      for (bool aa : {true, false}) {
        SCOPED_TRACE(describe(shape, DType::UInt8, layout) + (aa ? " aa" : ""));
        ASSERT_TRUE(bitwise_equal(functional::resize(cpu_in, size, InterpolationMode::Bicubic, std::nullopt, aa),
                                  functional::resize(gpu_in, size, InterpolationMode::Bicubic, std::nullopt, aa)));
      }
    }
  }
}

}  // namespace
}  // namespace svt
