// Helpers shared by the geometry tests (pad, crop, resize, the warps and their CUDA comparisons):
// for the warps, a double-precision reference of torchvision's grid_sample pipeline and the case
// loops the affine, perspective and elastic tests share.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "test_utils.hpp"

namespace svt {

// A geometry op keeps a channels-last input channels-last (when there is more than one channel).
inline void expect_layout_kept(const Tensor& out, const Dims& shape, Layout layout) {
  if (layout == Layout::ChannelsLast && shape.size() >= 3 && shape[shape.size() - 3] > 1 && out.numel() > 0) {
    EXPECT_TRUE(out.is_channels_last()) << out.str();
  }
}

// Shapes for the GPU comparisons of pad and crop: the common ones plus sizes that take the
// vector paths.
inline std::vector<Dims> gpu_shapes() {
  std::vector<Dims> shapes = test_shapes();
  shapes.push_back({2, 4, 67, 301});
  shapes.push_back({1, 3, 270, 480});
  return shapes;
}

// ---- the warps (affine, rotate, perspective, elastic) ------------------------------------------

// Source pixel coordinate of output pixel (x, y).
using SourceFn = std::function<void(double x, double y, double& sx, double& sy)>;

// torchvision's grid_sample(align_corners=False, zeros) + fill blend, in double, as values
// before the conversion to the image dtype.
inline std::vector<double> reference_warp(const Tensor& in, std::int64_t oh, std::int64_t ow, const SourceFn& source, bool nearest,
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

// `out` against reference_warp's values; integer images round half to even and saturate.
inline void expect_warp_close(const Tensor& out, const std::vector<double>& ref, bool nearest) {
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

// The source point of an output point under affine's inverse matrix m (both about their image's
// centre; ow x oh output, w x h input).
inline SourceFn affine_source(const std::array<double, 6>& m, std::int64_t w, std::int64_t h, std::int64_t ow, std::int64_t oh) {
  return [=](double x, double y, double& sx, double& sy) {
    const double cx = x - (ow - 1) / 2.0, cy = y - (oh - 1) / 2.0;
    sx = m[0] * cx + m[1] * cy + m[2] + (w - 1) / 2.0;
    sy = m[3] * cx + m[4] * cy + m[5] + (h - 1) / 2.0;
  };
}

// A uint8 tensor's elements in logical order.
inline std::vector<int> u8_values(const Tensor& t) {
  const Tensor c = contiguous_copy(t);
  return std::vector<int>(c.data_as<std::uint8_t>(), c.data_as<std::uint8_t>() + c.numel());
}

// A [1, h, w] uint8 image holding first, first + 1, ... row by row.
inline Tensor u8_image(std::int64_t h, std::int64_t w, int first = 1) {
  Tensor t = empty({1, h, w}, DType::UInt8, Device::cpu());
  for (std::int64_t i = 0; i < h * w; ++i) t.data_as<std::uint8_t>()[i] = static_cast<std::uint8_t>(first + i);
  return t;
}

// The cases of the warps' reference tests: every shape, dtype, layout, mode and fill (integer
// images take integer-valued fills: the comparison rounds), with a displacement field per shape
// for elastic. check(c) compares one op; then the input must be unchanged.
struct WarpReferenceCase {
  const Tensor& src;  // contiguous
  const Tensor& in;   // src in one of the layouts
  InterpolationMode mode;
  const Fill& fill;
  std::int64_t h, w;
  const Tensor& disp;  // [1, h, w, 2] float32 in [-0.3, 0.3]
  const std::string& what;
  bool nearest() const { return mode == InterpolationMode::Nearest; }
};

template <class Check>
void for_each_warp_reference_case(Check&& check) {
  const std::vector<Dims> shapes{{3, 5, 7}, {2, 3, 9, 13}, {2, 1, 2, 6, 11}, {1, 1, 37}, {3, 17, 1}, {1, 4, 21, 18}, {0, 3, 4, 5}};
  std::uint64_t seed = 51;
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1], c = shape[shape.size() - 3];
    std::vector<double> per_channel;
    for (std::int64_t k = 0; k < c; ++k) per_channel.push_back(0.2 + 0.1 * static_cast<double>(k));
    const std::vector<Fill> fills{std::nullopt, std::vector<double>{0.5}, per_channel};
    Tensor disp = random_cpu({1, h, w, 2}, DType::Float32, seed++, -0.3, 0.3);
    for (DType dtype : kImageDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor in = with_layout(src, layout, Device::cpu());
        for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::Bilinear}) {
          for (const Fill& fill : fills) {
            // Integer images take integer-valued fills in this test (the comparison rounds).
            Fill f = fill;
            if (f && !is_floating_point(dtype)) {
              for (double& v : *f) v = std::round(v * 100);
            }
            const std::string what = describe(shape, dtype, layout) + " " + interpolation_mode_name(mode) + (f ? " fill" : "");
            check(WarpReferenceCase{src, in, mode, f, h, w, disp, what});
          }
        }
        EXPECT_TRUE(bitwise_equal(src, in)) << "the input must not change";
      }
    }
  }
}

// The cases of the warps' CUDA == CPU tests: every shape (some large enough for the vector
// paths), dtype, layout, mode and fill, with a displacement field per shape for elastic (on
// either device). check(c) asserts one op's equality; then the input must be unchanged. Stops at
// the first fatal failure.
struct WarpCudaCase {
  const Tensor& cpu_in;
  const Tensor& gpu_in;  // the same content in the same layout
  InterpolationMode mode;
  const Fill& fill;
  std::int64_t h, w;
  const Tensor& disp;   // [1, h, w, 2] float32 in [-0.2, 0.2] on the CPU
  const Tensor& gdisp;  // the same on the GPU
};

template <class Check>
void for_each_warp_cuda_case(Check&& check) {
  // Widths that are whole 32-bit words (40, 132, 200) send contiguous uint8 through the staged
  // CUDA kernel (warp.cuh), whose tiles are 32 x 32 with four pixels a thread: 70 x 200 and
  // 100 x 132 leave partial tiles on both edges (132: one thread's four pixels past the last whole
  // tile), and rotate's expanded outputs have widths that are not whole words (byte stores).
  std::vector<Dims> shapes{{3, 5, 7},       {2, 3, 9, 13},   {2, 1, 2, 6, 11}, {1, 1, 37},
                           {3, 17, 1},      {2, 4, 67, 101}, {0, 3, 4, 5},     {2, 3, 24, 40},
                           {1, 2, 70, 200}, {1, 3, 100, 132}};
  std::uint64_t seed = 7000;
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1], c = shape[shape.size() - 3];
    std::vector<double> per_channel;
    for (std::int64_t k = 0; k < c; ++k) per_channel.push_back(0.3 + 40.0 * static_cast<double>(k));
    const std::vector<Fill> fills{std::nullopt, std::vector<double>{0.5}, per_channel};
    const Tensor disp = random_cpu({1, h, w, 2}, DType::Float32, seed++, -0.2, 0.2);
    const Tensor gdisp = with_layout(disp, Layout::Contiguous, kGpu);
    for (DType dtype : kImageDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::Bilinear}) {
          for (const Fill& fill : fills) {
            SCOPED_TRACE(describe(shape, dtype, layout) + " " + interpolation_mode_name(mode) + (fill ? " fill" : ""));
            check(WarpCudaCase{cpu_in, gpu_in, mode, fill, h, w, disp, gdisp});
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
}

}  // namespace svt
