// affine / rotate / perspective / elastic on the CPU: hand-computed cases (right-angle rotations,
// integer shifts, identities), a double-precision reference of torchvision's grid_sample
// pipeline over dtypes, shapes, layouts, modes and fills, perspective coefficients as
// torchvision 0.26 computes them, float16 elastic in float32, and bad input.
#include <cmath>
#include <functional>

#include "geometry_test_utils.hpp"

namespace svt {
namespace {

// Source pixel coordinate of output pixel (x, y).
using SourceFn = std::function<void(double x, double y, double& sx, double& sy)>;

// torchvision's grid_sample(align_corners=False, zeros) + fill blend, in double, as values
// before the conversion to the image dtype.
std::vector<double> reference_warp(const Tensor& in, std::int64_t oh, std::int64_t ow, const SourceFn& source, bool nearest,
                                   const Fill& fill) {
  const int rank = in.dim();
  const std::int64_t h = in.size(-2), w = in.size(-1), c = in.size(-3);
  Dims shape(in.shape());
  shape[rank - 2] = oh;
  shape[rank - 1] = ow;
  std::vector<double> out;
  for_each_index(shape, [&](const std::int64_t* idx) {
    double sx, sy;
    source(static_cast<double>(idx[rank - 1]), static_cast<double>(idx[rank - 2]), sx, sy);
    std::int64_t src[kMaxRank];
    std::copy(idx, idx + rank, src);
    auto at = [&](std::int64_t y, std::int64_t x, double& mask) {
      if (y < 0 || y >= h || x < 0 || x >= w) return 0.0;
      mask += 1;
      src[rank - 2] = y;
      src[rank - 1] = x;
      return value_at(in, src);
    };
    double v = 0, mask = 0;
    if (nearest) {
      v = at(static_cast<std::int64_t>(std::nearbyint(sy)), static_cast<std::int64_t>(std::nearbyint(sx)), mask);
    } else {
      const double fx = std::floor(sx), fy = std::floor(sy), ax = sx - fx, ay = sy - fy;
      const auto x0 = static_cast<std::int64_t>(fx), y0 = static_cast<std::int64_t>(fy);
      double m = 0;
      v = (1 - ax) * (1 - ay) * at(y0, x0, m) + ax * (1 - ay) * at(y0, x0 + 1, m) + (1 - ax) * ay * at(y0 + 1, x0, m) +
          ax * ay * at(y0 + 1, x0 + 1, m);
      mask = 0;
      for (int k = 0; k < 4; ++k) {
        const std::int64_t yy = y0 + k / 2, xx = x0 + k % 2;
        if (yy >= 0 && yy < h && xx >= 0 && xx < w) mask += (k % 2 ? ax : 1 - ax) * (k / 2 ? ay : 1 - ay);
      }
    }
    if (fill) {
      const double f = (*fill)[fill->size() == 1 ? 0 : static_cast<std::size_t>(idx[rank - 3])];
      v = nearest ? (mask < 0.5 ? f : v) : mask * (v - f) + f;
    }
    (void)c;
    out.push_back(v);
  });
  return out;
}

// Integer images round half to even and saturate.
void expect_warp_close(const Tensor& out, const std::vector<double>& ref, bool nearest) {
  const Tensor c = contiguous_copy(out);
  ASSERT_EQ(static_cast<std::size_t>(c.numel()), ref.size());
  std::int64_t i = 0, exact = 0;
  double worst = 0;
  for_each_index(c.shape(), [&](const std::int64_t* idx) {
    // The reference value as the image dtype holds it.
    double r = ref[static_cast<std::size_t>(i++)];
    switch (c.dtype()) {
      case DType::UInt8: r = std::clamp(std::nearbyint(r), 0.0, 255.0); break;
      case DType::UInt16: r = std::clamp(std::nearbyint(r), 0.0, 65535.0); break;
      case DType::Float16: r = static_cast<float>(Half(static_cast<float>(r))); break;
      case DType::BFloat16: r = static_cast<float>(BFloat16(static_cast<float>(r))); break;
      case DType::Float32: r = static_cast<float>(r); break;
      default: break;
    }
    const double d = std::fabs(value_at(c, idx) - r);
    worst = std::max(worst, d);
    exact += d <= (c.dtype() == DType::Float64 ? 1e-9 : 0.0);
  });
  if (c.numel() == 0) return;
  // float16 / bfloat16 images get a 16-bit grid (as in torchvision; elastic samples float16 in
  // float32): source points move by up to half a 16-bit ulp of the normalised coordinate, so
  // they only roughly follow the reference.
  const bool half_grid = c.dtype() == DType::Float16 || c.dtype() == DType::BFloat16;
  if (nearest) {
    // A source point within rounding of a pixel boundary may pick either neighbour.
    EXPECT_GE(static_cast<double>(exact) / static_cast<double>(c.numel()), half_grid ? 0.8 : 0.97);
    return;
  }
  double tol = 1;
  switch (c.dtype()) {
    case DType::Float64: tol = 1e-9; break;
    case DType::Float32: tol = 1e-4; break;
    case DType::Float16: tol = 5e-2; break;
    case DType::BFloat16: tol = 0.3; break;
    default: break;
  }
  EXPECT_LE(worst, tol);
  if (!is_floating_point(c.dtype()) && c.numel() >= 100) EXPECT_GE(static_cast<double>(exact) / static_cast<double>(c.numel()), 0.9);
}

SourceFn affine_source(const std::array<double, 6>& m, std::int64_t w, std::int64_t h, std::int64_t ow, std::int64_t oh) {
  return [=](double x, double y, double& sx, double& sy) {
    const double cx = x - (ow - 1) / 2.0, cy = y - (oh - 1) / 2.0;
    sx = m[0] * cx + m[1] * cy + m[2] + (w - 1) / 2.0;
    sy = m[3] * cx + m[4] * cy + m[5] + (h - 1) / 2.0;
  };
}

std::vector<int> u8_values(const Tensor& t) {
  const Tensor c = contiguous_copy(t);
  return std::vector<int>(c.data_as<std::uint8_t>(), c.data_as<std::uint8_t>() + c.numel());
}

Tensor u8_image(std::int64_t h, std::int64_t w, int first = 1) {
  Tensor t = empty({1, h, w}, DType::UInt8, Device::cpu());
  for (std::int64_t i = 0; i < h * w; ++i) t.data_as<std::uint8_t>()[i] = static_cast<std::uint8_t>(first + i);
  return t;
}

// ---- hand-computed ------------------------------------------------------------------------

TEST(Warp, RightAngleRotations) {
  const Tensor img = u8_image(2, 3);  // [[1,2,3],[4,5,6]]
  EXPECT_EQ(u8_values(functional::rotate(img, 90, InterpolationMode::Nearest, true)), (std::vector<int>{3, 6, 2, 5, 1, 4}));
  EXPECT_EQ(u8_values(functional::rotate(img, 180)), (std::vector<int>{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(u8_values(functional::rotate(img, -90, InterpolationMode::Nearest, true)), (std::vector<int>{4, 1, 5, 2, 6, 3}));
  EXPECT_EQ(u8_values(functional::rotate(img, 720)), (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(functional::rotate(img, 90, InterpolationMode::Nearest, true).size(-1), 2);
  // The general warp gives the same right-angle rotation (nearest and bilinear) on a square image.
  const Tensor sq = random_cpu({2, 3, 5, 5}, DType::UInt8, 3);
  for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast}) {
    const Tensor in = with_layout(sq, layout, Device::cpu());
    const Tensor fast = functional::rotate(in, 90);
    EXPECT_TRUE(bitwise_equal(fast, functional::rotate(in, 90, InterpolationMode::Nearest, false, std::vector<double>{2.5, 2.5})));
    EXPECT_TRUE(bitwise_equal(fast, functional::rotate(in, 90, InterpolationMode::Bilinear, false, std::vector<double>{2.5, 2.5})));
    // Fast paths work for any dtype.
    const Tensor i64 = random_cpu({3, 4, 4}, DType::Int64, 4);
    EXPECT_TRUE(bitwise_equal(functional::rotate(functional::rotate(i64, 90), 270), i64));
  }
}

TEST(Warp, IntegerShiftsAndIdentities) {
  const Tensor img = u8_image(3, 4);  // 1..12
  // translate (2, 1): out[y][x] = in[y - 1][x - 2].
  EXPECT_EQ(u8_values(functional::affine(img, 0, {2, 1}, 1, {0})), (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6}));
  EXPECT_EQ(u8_values(functional::affine(img, 0, {2, 1}, 1, {0}, InterpolationMode::Nearest, std::vector<double>{7})),
            (std::vector<int>{7, 7, 7, 7, 7, 7, 1, 2, 7, 7, 5, 6}));
  EXPECT_EQ(u8_values(functional::affine(img, 0, {2, 1}, 1, {0}, InterpolationMode::Bilinear)),
            (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6}));
  // The same shift as a perspective map, from points and from coefficients.
  const functional::Points start{{0, 0}, {3, 0}, {3, 2}, {0, 2}}, end{{2, 1}, {5, 1}, {5, 3}, {2, 3}};
  const auto coeffs = functional::perspective_coefficients(start, end);
  const std::array<double, 8> expected{1, 0, -2, 0, 1, -1, 0, 0};
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(coeffs[k], expected[k], 1e-6) << k;
  EXPECT_EQ(u8_values(functional::perspective(img, start, end, InterpolationMode::Nearest)),
            (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6}));
  EXPECT_EQ(u8_values(functional::perspective(img, std::nullopt, std::nullopt, InterpolationMode::Bilinear, std::nullopt,
                                              std::vector<double>(expected.begin(), expected.end()))),
            (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6}));
  // Identities.
  const Tensor f = random_cpu({2, 3, 7, 9}, DType::Float32, 8);
  const Tensor same = functional::affine(f, 0, {0, 0}, 1, {0, 0}, InterpolationMode::Bilinear);
  const Tensor zero_disp = empty({1, 7, 9, 2}, DType::Float32, Device::cpu());
  std::fill(zero_disp.data_as<float>(), zero_disp.data_as<float>() + zero_disp.numel(), 0.0f);
  const Tensor el = functional::elastic(f, zero_disp);
  const Tensor fc = contiguous_copy(f), sc = contiguous_copy(same), ec = contiguous_copy(el);
  for (std::int64_t i = 0; i < f.numel(); ++i) {
    EXPECT_NEAR(sc.data_as<float>()[i], fc.data_as<float>()[i], 1e-6);
    EXPECT_NEAR(ec.data_as<float>()[i], fc.data_as<float>()[i], 1e-6);
  }
  EXPECT_TRUE(bitwise_equal(img, functional::affine(img, 0, {0, 0}, 1, {0}, InterpolationMode::Bilinear)));
  // A displacement of 2 / W in x reads one pixel to the right.
  Tensor shift = empty({1, 3, 4, 2}, DType::Float64, Device::cpu());
  for (std::int64_t i = 0; i < shift.numel(); ++i) shift.data_as<double>()[i] = i % 2 == 0 ? 0.5 : 0.0;
  EXPECT_EQ(u8_values(functional::elastic(img, shift, InterpolationMode::Nearest)), (std::vector<int>{2, 3, 4, 0, 6, 7, 8, 0, 10, 11, 12, 0}));
}

TEST(Warp, FillBlendsByTheCoverageMask) {
  Tensor ones = empty({1, 9, 12}, DType::Float32, Device::cpu());
  std::fill(ones.data_as<float>(), ones.data_as<float>() + ones.numel(), 1.0f);
  const Tensor plain = contiguous_copy(functional::rotate(ones, 30, InterpolationMode::Bilinear));
  const Tensor filled = contiguous_copy(functional::rotate(ones, 30, InterpolationMode::Bilinear, false, std::nullopt, std::vector<double>{0.25}));
  int partial = 0;
  for (std::int64_t i = 0; i < plain.numel(); ++i) {
    // grid_sample of ones with zero padding is the mask itself; torchvision then blends that
    // (already zero-padded) sample: (sampled - fill) * mask + fill.
    const float mask = plain.data_as<float>()[i];
    EXPECT_NEAR(filled.data_as<float>()[i], (mask - 0.25f) * mask + 0.25f, 1e-6);
    partial += mask > 0.01f && mask < 0.99f;
  }
  EXPECT_GT(partial, 0);
}

TEST(Warp, RotateExpandSize) {
  const Tensor img = random_cpu({3, 20, 40}, DType::UInt8, 2);
  const Tensor out = functional::rotate(img, 30, InterpolationMode::Nearest, true);
  EXPECT_EQ(out.size(-2), 38);
  EXPECT_EQ(out.size(-1), 46);
  EXPECT_EQ(functional::rotate(img, 90, InterpolationMode::Nearest, true).size(-1), 20);
  // 90 degrees without expand on a non-square image is a general warp of the same size.
  EXPECT_EQ(functional::rotate(img, 90).size(-1), 40);
}

// ---- perspective coefficients -------------------------------------------------------------

// torchvision 0.26's _get_perspective_coeffs (torch 2.11, x86 MKL) for point sets a
// RandomPerspective on small images or a user can give: ordinary ones, the identity and small
// sets whose exact solution has zeros (torch's rounding noise included), a nearly singular set
// that it solves, and float points (float32 rows).
TEST(Warp, PerspectiveCoefficientsMatchTorchvision) {
  struct Case {
    functional::Points start, end;
    std::array<double, 8> expected;
  };
  const std::vector<Case> cases{
      {{{0, 0}, {33, 0}, {33, 25}, {0, 25}}, {{3, 2}, {32, 3}, {30, 24}, {2, 25}},
       {0x1.05bdcp+0, 0x1.6c2964p-5, -0x1.93fdecp+1, -0x1.22542ap-5, 0x1.071c46p+0, -0x1.f300aap+0, -0x1.83149ap-9, -0x1.ee1e48p-10}},
      {{{3, 2}, {32, 3}, {30, 24}, {2, 25}}, {{5, 5}, {30, 3}, {33, 19}, {4, 25}},
       {0x1.1d6d6ap+0, 0x1.ce3c12p-6, -0x1.484df0p+1, 0x1.3c12d6p-3, 0x1.87202ap+0, -0x1.93da80p+2, -0x1.2f0fdcp-9, 0x1.957eb2p-7}},
      {{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, {{0, 0}, {1, 0}, {1, 1}, {0, 1}},
       {1.0, 0x1.a8f6d2p-53, -0x1.1f42a8p-52, 0x1.6a09e6p-54, 1.0, -0x1.1a1fa8p-53, 0x1.4214c8p-52, 0x1.f7675ep-55}},
      {{{0, 0}, {2, 0}, {2, 1}, {0, 1}}, {{0, 0}, {1, 0}, {2, 1}, {1, 1}},
       {2.0, -2.0, 0x1.0f912ap-50, 0x1.3988e2p-52, 1.0, -0x1.155070p-54, 0x1.670674p-54, -0x1.99da1cp-52}},
      {{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, {{0, 0}, {1, 0}, {1, 1}, {1, 1}},
       {-0x1.f8a060p-53, 0x1.3988e2p-53, -0x1p-103, 0x1.e9c58ap-55, -0x1.3988e2p-52, -0x1p-103, -1.0, 0.0}},
      {{{3, 2}, {3, 3}, {2, 0}, {1, 3}}, {{3, 3}, {1, 2}, {1, 2}, {1, 1}},
       {-3.0, -0x1.2971f4p-49, 3.0, -2.0, 0x1.5b04f2p-50, 2.0, -1.0, 0.0}},
      {{{0.5, 1.25}, {40.1, 2.7}, {38.9, 30.3}, {1.1, 29.9}}, {{2.2, 0.3}, {39.5, 1.5}, {41.7, 31.1}, {0.25, 28.4}},
       {0x1.27743ap+0, 0x1.ba4bb0p-4, -0x1.08beb6p+1, 0x1.aa547ap-8, 0x1.3356fcp+0, 0x1.c44744p-1, 0x1.0aa934p-9, 0x1.86eceep-8}},
  };
  for (const Case& c : cases) {
    const auto coeffs = functional::perspective_coefficients(c.start, c.end);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(coeffs[k], c.expected[k]) << "coefficient " << k << " of case " << (&c - cases.data());
  }
  // Sets whose R has an exactly zero diagonal element: torch.linalg.lstsq raises (a RuntimeError).
  const std::vector<std::pair<functional::Points, functional::Points>> singular{
      {functional::Points(4, {0, 0}), functional::Points(4, {0, 0})},
      {{{0, 0}, {1, 0}, {2, 0}, {3, 0}}, {{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
      {{{0, 0}, {1, 1}, {2, 2}, {3, 3}}, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}},
      {{{3, 0}, {3, 3}, {0, 3}, {0, 0}}, {{1, 1}, {3, 3}, {2, 1}, {2, 1}}},
      {{{0, 0}, {0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}}},
  };
  for (const auto& [start, end] : singular) {
    expect_error(ErrorKind::Runtime, "full rank", [&] { functional::perspective_coefficients(start, end); });
  }
}

// ---- float16 elastic ------------------------------------------------------------------------

// torchvision samples a float16 image in float32 (grid, taps and fill blend) and rounds only the
// result: elastic on float16 is the float32 elastic of the same values, rounded.
TEST(Warp, Float16ElasticSamplesInFloat32) {
  const Tensor half = random_cpu({2, 3, 11, 14}, DType::Float16, 21, 0.0, 1.0);
  const Tensor disp = random_cpu({1, 11, 14, 2}, DType::Float32, 22, -0.2, 0.2);
  const Tensor as_float = functional::to_dtype(half, DType::Float32);
  for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::Bilinear}) {
    for (const Fill& fill : {Fill{}, Fill{std::vector<double>{0.3, 0.6, 0.9}}}) {
      const Tensor expected = functional::to_dtype(functional::elastic(as_float, disp, mode, fill), DType::Float16);
      EXPECT_TRUE(bitwise_equal(expected, functional::elastic(half, disp, mode, fill))) << interpolation_mode_name(mode);
    }
  }
}

// ---- reference over dtypes, shapes, layouts ---------------------------------------------------

TEST(Warp, MatchesReferenceForEveryDtypeShapeLayoutAndMode) {
  const std::vector<Dims> shapes{{3, 5, 7}, {2, 3, 9, 13}, {2, 1, 2, 6, 11}, {1, 1, 37}, {3, 17, 1}, {1, 4, 21, 18}, {0, 3, 4, 5}};
  std::uint64_t seed = 51;
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1], c = shape[shape.size() - 3];
    std::vector<double> per_channel;
    for (std::int64_t k = 0; k < c; ++k) per_channel.push_back(0.2 + 0.1 * static_cast<double>(k));
    const std::vector<Fill> fills{std::nullopt, std::vector<double>{0.5}, per_channel};
    Tensor disp = random_cpu({1, h, w, 2}, DType::Float32, seed++, -0.3, 0.3);
    for (DType dtype : kGeometryDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor in = with_layout(src, layout, Device::cpu());
        for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::Bilinear}) {
          const bool nearest = mode == InterpolationMode::Nearest;
          for (const Fill& fill : fills) {
            // Integer images take integer-valued fills in this test (the comparison rounds).
            Fill f = fill;
            if (f && !is_floating_point(dtype)) {
              for (double& v : *f) v = std::round(v * 100);
            }
            const std::string what = describe(shape, dtype, layout) + " " + interpolation_mode_name(mode) + (f ? " fill" : "");
            {
              SCOPED_TRACE(what + " affine");
              const auto m = functional::inverse_affine_matrix({0.7, -1.2}, 33.0, {1.5, -0.5}, 1.2, {5.0, -8.0});
              const Tensor out = functional::affine(in, 33.0, {1.5, -0.5}, 1.2, {5.0, -8.0}, mode, f,
                                                    std::vector<double>{0.7 + w * 0.5, -1.2 + h * 0.5});
              expect_warp_close(out, reference_warp(src, h, w, affine_source(m, w, h, w, h), nearest, f), nearest);
            }
            {
              SCOPED_TRACE(what + " rotate expand");
              const auto m = functional::inverse_affine_matrix({0, 0}, -47.0, {0, 0}, 1.0, {0, 0});
              const Tensor out = functional::rotate(in, 47.0, mode, true, std::nullopt, f);
              expect_warp_close(out, reference_warp(src, out.size(-2), out.size(-1),
                                                    affine_source(m, w, h, out.size(-1), out.size(-2)), nearest, f),
                                nearest);
            }
            {
              SCOPED_TRACE(what + " perspective");
              const std::vector<double> k{1.1, 0.05, -0.7, -0.08, 0.93, 0.4, 0.004, -0.006};
              const Tensor out = functional::perspective(in, std::nullopt, std::nullopt, mode, f, k);
              const SourceFn s = [&](double x, double y, double& sx, double& sy) {
                const double px = x + 0.5, py = y + 0.5, d = k[6] * px + k[7] * py + 1;
                sx = (k[0] * px + k[1] * py + k[2]) / d - 0.5;
                sy = (k[3] * px + k[4] * py + k[5]) / d - 0.5;
              };
              expect_warp_close(out, reference_warp(src, h, w, s, nearest, f), nearest);
            }
            {
              SCOPED_TRACE(what + " elastic");
              const Tensor out = functional::elastic(in, disp, mode, f);
              const SourceFn s = [&](double x, double y, double& sx, double& sy) {
                const std::int64_t i0[4] = {0, static_cast<std::int64_t>(y), static_cast<std::int64_t>(x), 0};
                const std::int64_t i1[4] = {0, static_cast<std::int64_t>(y), static_cast<std::int64_t>(x), 1};
                sx = x + static_cast<double>(load<float>(disp, i0)) * static_cast<double>(w) / 2;
                sy = y + static_cast<double>(load<float>(disp, i1)) * static_cast<double>(h) / 2;
              };
              expect_warp_close(out, reference_warp(src, h, w, s, nearest, f), nearest);
            }
          }
        }
        EXPECT_TRUE(bitwise_equal(src, in)) << "the input must not change";
      }
    }
  }
}

TEST(Warp, BadInput) {
  const Tensor img = random_cpu({3, 8, 6}, DType::UInt8, 2);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  expect_error(ErrorKind::Value, "bicubic", [&] { functional::affine(img, 10, {0, 0}, 1, {0}, InterpolationMode::Bicubic); });
  expect_error(ErrorKind::Value, "nearest-exact", [&] { functional::rotate(img, 10, InterpolationMode::NearestExact); });
  expect_error(ErrorKind::Value, "box", [&] { functional::perspective(img, std::nullopt, std::nullopt, interpolation_mode_from_int(4), std::nullopt, std::vector<double>(8, 0.1)); });
  expect_error(ErrorKind::Value, "fill", [&] { functional::affine(img, 10, {0, 0}, 1, {0}, InterpolationMode::Nearest, std::vector<double>{1, 2}); });
  expect_error(ErrorKind::Value, "fill", [&] { functional::rotate(img, 10, InterpolationMode::Nearest, false, std::nullopt, std::vector<double>{}); });
  expect_error(ErrorKind::Value, "angle", [&] { functional::affine(img, inf, {0, 0}, 1, {0}); });
  expect_error(ErrorKind::Value, "angle", [&] { functional::rotate(img, nan); });
  expect_error(ErrorKind::Value, "translate", [&] { functional::affine(img, 1, {0, inf}, 1, {0}); });
  expect_error(ErrorKind::Value, "translate", [&] { functional::affine(img, 1, {0}, 1, {0}); });
  expect_error(ErrorKind::Value, "scale", [&] { functional::affine(img, 1, {0, 0}, 0, {0}); });
  expect_error(ErrorKind::Value, "shear", [&] { functional::affine(img, 1, {0, 0}, 1, {0, 1, 2}); });
  expect_error(ErrorKind::Value, "center", [&] { functional::rotate(img, 10, InterpolationMode::Nearest, false, std::vector<double>{1}); });
  // The messages hold what torchvision 0.26's tests match.
  expect_error(ErrorKind::Value, "coefficients should have 8 float values", [&] { functional::perspective(img, std::nullopt, std::nullopt, InterpolationMode::Bilinear, std::nullopt, std::vector<double>(7, 0.0)); });
  expect_error(ErrorKind::Value, "startpoints/endpoints and the coefficients shouldn't be defined concurrently", [&] {
    functional::perspective(img, functional::Points(4, {0, 0}), functional::Points(4, {0, 0}), InterpolationMode::Bilinear,
                            std::nullopt, std::vector<double>(8, 0.0));
  });
  expect_error(ErrorKind::Value, "coefficients", [&] { functional::perspective(img, std::nullopt, std::nullopt, InterpolationMode::Bilinear, std::nullopt, std::vector<double>{1, 0, 0, 0, 1, 0, nan, 0}); });
  expect_error(ErrorKind::Value, "four corners", [&] { functional::perspective(img, functional::Points(3, {0, 0}), functional::Points(4, {0, 0})); });
  expect_error(ErrorKind::Runtime, "full rank", [&] { functional::perspective(img, functional::Points(4, {1, 1}), functional::Points(4, {1, 1})); });
  expect_error(ErrorKind::Runtime, "finite", [&] { functional::perspective(img, functional::Points(4, {1, nan}), functional::Points(4, {1, 1})); });
  expect_error(ErrorKind::Value, "Overflow", [&] {
    functional::perspective(img, functional::Points{{0, 0}, {1, 0}, {1, 1}, {4294967296.0, 1}},
                            functional::Points{{0, 0}, {1, 0}, {1, 1}, {4294967296.0, 1}});
  });
  expect_error(ErrorKind::Value, "startpoints/endpoints or the coefficients must have non `None` values", [&] { functional::perspective(img, std::nullopt, std::nullopt); });
  expect_error(ErrorKind::Value, "displacement shape should be", [&] { functional::elastic(img, empty({1, 8, 6, 3}, DType::Float32, Device::cpu())); });
  expect_error(ErrorKind::Type, "displacement should be a Tensor", [&] { functional::elastic(img, Tensor()); });
  expect_error(ErrorKind::UnsupportedDType, "int32", [&] { functional::affine(random_cpu({3, 8, 6}, DType::Int32, 1), 1, {0, 0}, 1, {0}); });
  expect_error(ErrorKind::Value, "at least 3 dims", [&] { functional::rotate(random_cpu({8, 6}, DType::UInt8, 1), 10); });
}

}  // namespace
}  // namespace svt
