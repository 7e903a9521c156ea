// Internal: source indices and resampling weights of resize, shared by the CPU and CUDA engines.
// Each mode follows the torch code path torchvision reaches for it, in the same precision:
//
//  * nearest / nearest-exact: float32 source indices for every dtype (torch's CUDA
//    upsample_nearest2d): floor(dst * in/out), floor((dst + 0.5) * in/out), clamped to in - 1.
//  * bilinear / bicubic without antialias (align_corners=False) and the antialiased separable
//    filter, in the accumulation type A (float; double for float64 images), as torch's CUDA
//    kernels compute them. torch's CUDA build lets nvcc contract a*b+c into an FMA; those are
//    written here as explicit fused_mul_add so that both engines round the same way (the
//    contraction pattern is nvcc's usual one; where it differs the result moves by an ulp).
//  * uint8 bicubic and bilinear: torch's CPU path (the PIL-like result): double weights,
//    quantised per dimension to int16 with the largest precision that keeps them in range,
//    accumulated in int32 with a +0.5 bias, shifted and clamped to [0, 255]. The CUDA engine
//    uses it for bicubic only (torchvision's CUDA bilinear is the float path).
#pragma once

#include <math.h>

#include <cstdint>
#include <type_traits>

#include "kernels/image_batch.hpp"
#include "kernels/sampling.hpp"
#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

// A resized value back to the image dtype: torchvision rounds uint8 (half to even) but
// truncates uint16 (it rounds only uint8 and the signed integer dtypes); floats cast.
template <class T, Saturate S = Saturate::Clamp, class A>
SV_HOST_DEVICE SV_FORCE_INLINE T resize_output(A v) {
  if constexpr (std::is_same_v<T, std::uint16_t>) {
    return to_image_dtype<T, IntRounding::Truncate, S>(v);
  } else {
    return to_image_dtype<T, IntRounding::HalfEven, S>(v);
  }
}

// ---- nearest ------------------------------------------------------------------------------

SV_HOST_DEVICE SV_FORCE_INLINE float nearest_scale(std::int64_t in_size, std::int64_t out_size) {
  return static_cast<float>(in_size) / static_cast<float>(out_size);
}

SV_HOST_DEVICE SV_FORCE_INLINE int nearest_source(int dst, float scale, int in_size, bool exact) {
  const float f = exact ? (static_cast<float>(dst) + 0.5f) * scale : static_cast<float>(dst) * scale;
  const int s = static_cast<int>(floorf(f));
  return s < in_size - 1 ? s : in_size - 1;
}

// ---- bilinear / bicubic, no antialias (torch CUDA upsample_bilinear2d / upsample_bicubic2d) ---

template <class A>
SV_HOST_DEVICE inline A area_scale(std::int64_t in_size, std::int64_t out_size) {
  return static_cast<A>(in_size) / static_cast<A>(out_size);
}

// src = scale * (dst + 0.5) - 0.5 (the multiply-add fused as torch's CUDA build does).
template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE A area_source(A scale, int dst) {
  return fused_mul_add(scale, static_cast<A>(dst) + A(0.5), A(-0.5));
}

// Taps hold element offsets (index * the input's stride along their dimension), so that a
// kernel resolves them once per output pixel, row or column and the samplers below only read.

// Two linear taps at offsets o0 and o1 (o1 = o0 at the last pixel), weights l0 and l1.
template <class A>
struct LinearTaps {
  std::int64_t o0 = 0, o1 = 0;
  A l0 = 0, l1 = 0;
};

template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE LinearTaps<A> linear_taps(A scale, int dst, int in_size, std::int64_t stride) {
  A src = area_source(scale, dst);
  if (src < A(0)) src = A(0);
  LinearTaps<A> t;
  const int i0 = static_cast<int>(src), step = i0 < in_size - 1 ? 1 : 0;
  t.o0 = i0 * stride;
  t.o1 = t.o0 + step * stride;
  t.l1 = src - static_cast<A>(i0);
  t.l0 = A(1) - t.l1;
  return t;
}

// h0 * (w0 * a + w1 * b) + h1 * (w0 * c + w1 * d) over the taps a b / c d, contracted as nvcc does.
template <class T, class A>
SV_HOST_DEVICE SV_FORCE_INLINE T linear_resize_sample(const PlaneView<T>& p, const LinearTaps<A>& h, const LinearTaps<A>& w) {
  const T *r0 = p.data + h.o0, *r1 = p.data + h.o1;
  const A a = load_as<A>(r0[w.o0]), b = load_as<A>(r0[w.o1]), c = load_as<A>(r1[w.o0]), d = load_as<A>(r1[w.o1]);
  const A top = fused_mul_add(w.l1, b, w.l0 * a);
  const A bottom = fused_mul_add(w.l1, d, w.l0 * c);
  return resize_output<T>(fused_mul_add(h.l1, bottom, h.l0 * top));
}

// Keys' cubic convolution with parameter a: |x| <= 1 and 1 < |x| < 2 branches.
template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE A cubic_convolution1(A x, A a) {
  return fused_mul_add(fused_mul_add(a + A(2), x, -(a + A(3))) * x, x, A(1));
}

template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE A cubic_convolution2(A x, A a) {
  return fused_mul_add(fused_mul_add(fused_mul_add(a, x, A(-5) * a), x, A(8) * a), x, A(-4) * a);
}

SV_HOST_DEVICE SV_FORCE_INLINE int clamp_index(int i, int size) { return i < 0 ? 0 : (i >= size ? size - 1 : i); }

// The four taps of non-antialiased bicubic: in - 1 .. in + 2 at fraction t, a = -0.75. Taps
// outside the image read its edge pixels, as torch's upsample_bicubic2d does.
template <class A>
struct CubicTaps {
  std::int64_t o[4] = {};
  A c[4] = {};
};

template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE CubicTaps<A> cubic_taps(A scale, int dst, int in_size, std::int64_t stride) {
  const A real = area_source(scale, dst);
  CubicTaps<A> t;
  const int i = static_cast<int>(floorf(static_cast<float>(real)));  // torch calls floorf, also on double
  const A frac = real - static_cast<A>(i);
  const A a = A(-0.75);
  t.c[0] = cubic_convolution2(frac + A(1), a);
  t.c[1] = cubic_convolution1(frac, a);
  const A rest = A(1) - frac;
  t.c[2] = cubic_convolution1(rest, a);
  t.c[3] = cubic_convolution2(rest + A(1), a);
  for (int k = 0; k < 4; ++k) t.o[k] = clamp_index(i - 1 + k, in_size) * stride;
  return t;
}

template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE A cubic_combine(const A c[4], A x0, A x1, A x2, A x3) {
  return fused_mul_add(x3, c[3], fused_mul_add(x2, c[2], fused_mul_add(x1, c[1], x0 * c[0])));
}

template <class T, class A>
SV_HOST_DEVICE SV_FORCE_INLINE T cubic_resize_sample(const PlaneView<T>& p, const CubicTaps<A>& yt, const CubicTaps<A>& xt) {
  // Copied first: nvcc then keeps one plane + row sum live at a time instead of a plane +
  // column sum per column (8 more registers, a lower occupancy).
  std::int64_t ys[4], xs[4];
  for (int k = 0; k < 4; ++k) {
    ys[k] = yt.o[k];
    xs[k] = xt.o[k];
  }
  A rows[4];
  for (int k = 0; k < 4; ++k) {
    const T* r = p.data + ys[k];
    rows[k] = cubic_combine(xt.c, load_as<A>(r[xs[0]]), load_as<A>(r[xs[1]]), load_as<A>(r[xs[2]]), load_as<A>(r[xs[3]]));
  }
  return resize_output<T>(cubic_combine(yt.c, rows[0], rows[1], rows[2], rows[3]));
}

// ---- antialiased separable resampling (torch CUDA upsample_gen2d_aa, PIL's scheme) ------------

enum class ResampleFilter : std::uint8_t { Triangle, Cubic };  // bilinear, bicubic (Keys a = -0.5)

template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE A aa_filter(ResampleFilter filter, A x) {
  if (x < A(0)) x = -x;
  if (filter == ResampleFilter::Triangle) return x < A(1) ? A(1) - x : A(0);
  if (x < A(1)) return fused_mul_add(fused_mul_add(A(1.5), x, A(-2.5)) * x, x, A(1));
  if (x < A(2)) return fused_mul_add(fused_mul_add(x - A(5), x, A(8)), x, A(-4)) * A(-0.5);
  return A(0);
}

// The parameters of one resampled dimension.
template <class A>
struct AaDim {
  A scale = 1, support = 1, invscale = 1;
  int in_size = 0, out_size = 0, max_taps = 1;
  ResampleFilter filter = ResampleFilter::Triangle;
};

// Host and device: the batch kernels (cuda/batch.cu) make each image's dimensions on the device.
template <class A>
SV_HOST_DEVICE inline AaDim<A> make_aa_dim(std::int64_t in_size, std::int64_t out_size, ResampleFilter filter) {
  AaDim<A> d;
  d.in_size = static_cast<int>(in_size);
  d.out_size = static_cast<int>(out_size);
  d.filter = filter;
  d.scale = area_scale<A>(in_size, out_size);
  const int taps = filter == ResampleFilter::Triangle ? 2 : 4;
  const A half = A(0.5);
  d.support = d.scale >= A(1) ? (static_cast<A>(taps) * half) * d.scale : static_cast<A>(taps) * half;
  // torch: (scale >= 1.0) ? 1.0 / scale : 1.0 -- a double division, then back to A.
  d.invscale = d.scale >= A(1) ? static_cast<A>(1.0 / static_cast<double>(d.scale)) : A(1);
  d.max_taps = static_cast<int>(ceilf(static_cast<float>(d.support))) * 2 + 1;
  return d;
}

// Taps [xmin, xmin + xsize) of output index i and their normalised weights (w[j * stride] for
// j < xsize; the rest of the max_taps slots are zeroed). The CUDA engine stores tables tap-major
// (stride = output size) so that neighbouring outputs read neighbouring weights.
template <class A>
SV_HOST_DEVICE inline void aa_weights(const AaDim<A>& d, int i, int& xmin, int& xsize, A* w, std::int64_t stride = 1) {
  const A center = d.scale * (static_cast<A>(i) + A(0.5));
  const int lo = static_cast<int>(center - d.support + A(0.5));
  xmin = lo > 0 ? lo : 0;
  const int hi = static_cast<int>(center + d.support + A(0.5));
  xsize = (hi < d.in_size ? hi : d.in_size) - xmin;
  if (xsize > d.max_taps) xsize = d.max_taps;
  if (xsize < 0) xsize = 0;
  const A xmin_m_center = static_cast<A>(xmin) - center;
  A total = 0;
  for (int j = 0; j < xsize; ++j) {
    const A v = aa_filter(d.filter, (static_cast<A>(j) + xmin_m_center + A(0.5)) * d.invscale);
    w[j * stride] = v;
    total += v;
  }
  for (int j = 0; j < xsize; ++j) {
    if (total != A(0)) w[j * stride] /= total;
  }
  for (int j = xsize; j < d.max_taps; ++j) w[j * stride] = A(0);
}

// sum_j w[j * stride] * v[j * step] over the n >= 1 taps of one dimension, accumulated as torch
// does: the first product, then fused multiply-adds in tap order. Antialiased resize applies it
// vertically to every needed column, then horizontally (torch goes horizontal first; the two
// orders differ by float rounding only).
template <class A, class V, class Step>
SV_HOST_DEVICE SV_FORCE_INLINE A weighted_sum(const A* w, std::int64_t stride, int n, const V* v, Step step) {
  A acc = load_as<A>(v[0]) * w[0];
  for (int j = 1; j < n; ++j) acc = fused_mul_add(load_as<A>(v[j * step]), w[j * stride], acc);
  return acc;
}

// ---- uint8 bilinear / bicubic, torch's CPU integer path -----------------------------------

struct Int16Dim {
  double scale = 1, support = 2;
  int in_size = 0, out_size = 0, max_taps = 4;
  bool antialias = true;
  ResampleFilter filter = ResampleFilter::Cubic;
};

inline Int16Dim make_int16_dim(std::int64_t in_size, std::int64_t out_size, bool antialias,
                               ResampleFilter filter = ResampleFilter::Cubic) {
  Int16Dim d;
  d.in_size = static_cast<int>(in_size);
  d.out_size = static_cast<int>(out_size);
  d.antialias = antialias;
  d.filter = filter;
  d.scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  const int taps = filter == ResampleFilter::Triangle ? 2 : 4;
  if (antialias) {
    d.support = d.scale >= 1.0 ? (taps * 0.5) * d.scale : taps * 0.5;
    d.max_taps = static_cast<int>(ceil(d.support)) * 2 + 1;
  } else {
    d.support = taps * 0.5;
    d.max_taps = taps;
  }
  return d;
}

// torch's CPU filters in double: the triangle, and Keys' cubic with a = -0.5 with antialias
// (PIL's) and -0.75 without (the float path's).
SV_HOST_DEVICE SV_FORCE_INLINE double cpu_cubic_filter(double x, double a) {
  x = fabs(x);
  if (x < 1.0) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2.0) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

SV_HOST_DEVICE SV_FORCE_INLINE double int16_filter(const Int16Dim& d, double x) {
  if (d.filter == ResampleFilter::Triangle) {
    x = fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
  }
  return cpu_cubic_filter(x, d.antialias ? -0.5 : -0.75);
}

// Taps and double weights of output index i (max_taps slots, unused ones zeroed); returns the
// largest weight, as torch's _compute_indices_min_size_weights(_aa) do.
SV_HOST_DEVICE inline double int16_source_weights(const Int16Dim& d, int i, int& xmin, int& xsize, double* w) {
  double wt_max = 0.0;
  if (d.antialias) {
    const double center = d.scale * (i + 0.5);
    const double invscale = d.scale >= 1.0 ? 1.0 / d.scale : 1.0;
    const std::int64_t lo = static_cast<std::int64_t>(center - d.support + 0.5);
    const std::int64_t hi = static_cast<std::int64_t>(center + d.support + 0.5);
    const std::int64_t start = lo > 0 ? lo : 0;
    std::int64_t size = (hi < d.in_size ? hi : d.in_size) - start;
    if (size < 0) size = 0;
    if (size > d.max_taps) size = d.max_taps;
    double total = 0.0;
    for (std::int64_t j = 0; j < size; ++j) {
      const double v = int16_filter(d, (static_cast<double>(j + start) - center + 0.5) * invscale);
      w[j] = v;
      total += v;
    }
    if (total != 0.0) {
      for (std::int64_t j = 0; j < size; ++j) {
        w[j] /= total;
        if (w[j] > wt_max) wt_max = w[j];
      }
    }
    for (std::int64_t j = size; j < d.max_taps; ++j) w[j] = 0.0;
    xmin = static_cast<int>(start);
    xsize = static_cast<int>(size);
    return wt_max;
  }
  // Without antialias: the taps of the float path (2 or 4 around the source index), with the
  // taps that fall outside the image folded onto the edge pixel (what the float path's clamped
  // indices amount to).
  const int taps = d.max_taps, half = taps / 2;
  double real = d.scale * (i + 0.5) - 0.5;
  if (d.filter == ResampleFilter::Triangle && real < 0.0) real = 0.0;  // torch clamps only linear sources
  std::int64_t index = static_cast<std::int64_t>(floorf(static_cast<float>(real)));  // torch calls floorf on the double
  if (index > d.in_size - 1) index = d.in_size - 1;
  double lambda = real - static_cast<double>(index);
  lambda = lambda < 0.0 ? 0.0 : (lambda > 1.0 ? 1.0 : lambda);
  const std::int64_t unbound_min = index - half + 1;
  const std::int64_t unbound_max = index + half + 1;
  const std::int64_t start = unbound_min > 0 ? unbound_min : 0;
  std::int64_t size = (unbound_max < d.in_size ? unbound_max : d.in_size) - start;
  if (size < 0) size = 0;
  if (size > taps) size = taps;
  int slot = 0;
  for (int j = 0; j < taps; ++j) {
    w[j] = 0.0;
    const double v = int16_filter(d, static_cast<double>(j + 1 - half) - lambda);
    if (unbound_min + j <= 0) {
      slot = 0;
    } else if (unbound_min + j >= d.in_size - 1) {
      slot = static_cast<int>(size) - 1;
    }
    w[slot] += v;
    if (w[slot] > wt_max) wt_max = w[slot];
    ++slot;
  }
  xmin = static_cast<int>(start);
  xsize = static_cast<int>(size);
  return wt_max;
}

// The fixed-point precision torch picks for a dimension from its largest weight.
SV_HOST_DEVICE inline int int16_precision(double wt_max) {
  int p = 0;
  for (p = 0; p < 22; ++p) {
    const int next = static_cast<int>(0.5 + wt_max * (1 << (p + 1)));
    if (next >= (1 << 15)) break;
  }
  return p;
}

SV_HOST_DEVICE SV_FORCE_INLINE std::int16_t int16_weight(double w, int precision) {
  const double v = w * (1 << precision);
  return static_cast<std::int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
}

// Two int16 weights in one word, `lo` in the low half: the operand of a DP2A (cuda/byte_quad.cuh).
SV_HOST_DEVICE SV_FORCE_INLINE unsigned pack_int16_pair(std::int16_t lo, std::int16_t hi) {
  return static_cast<unsigned>(static_cast<std::uint16_t>(lo)) | (static_cast<unsigned>(static_cast<std::uint16_t>(hi)) << 16);
}

// CUDA uint8 antialiased resize: the vertical pass in fixed point. An output row's float weights
// w_j become q_j = int16_weight(w_j, p) with p = fixed_precision(max |w_j|) (torch's CPU rule for
// its int16 weights), the input bytes b_j are summed exactly as sum q_j * b_j in int32 (two taps
// per DP2A instruction, where float sums take a byte conversion and an FMA per tap), and the sum
// enters the float horizontal pass as float(sum) * 2^-p. Integer sums do not depend on their
// order, so every schedule and layout gives the same bits. Each weight moves by at most 2^-(p+1)
// (p is 17 at a 5x downscale, 15 at 2x): simulated on 1080p images, 0.003-0.03 % of the outputs
// round differently from float sums of exact weights (torch's CUDA kernel sums in float, and
// horizontally first: it already differs from float vertical sums by float rounding).
SV_HOST_DEVICE SV_FORCE_INLINE int fixed_precision(double wt_max) { return int16_precision(wt_max); }

// 2^-p as a float, exactly (p <= 22).
SV_HOST_DEVICE SV_FORCE_INLINE float fixed_unit(int p) { return static_cast<float>(1.0 / static_cast<double>(1 << p)); }

// The uint8 path's intermediate (horizontal pass result) for `out`: dense [planes, H_in, W_out].
inline ImageBatch int16_intermediate(void* data, const ImageBatch& in, const ImageBatch& out) {
  ImageBatch m;
  m.data = data;
  m.n = out.n;
  m.c = out.c;
  m.h = in.h;
  m.w = out.w;
  m.stride_w = 1;
  m.stride_h = out.w;
  m.stride_c = in.h * out.w;
  m.stride_n = out.c * m.stride_c;
  return m;
}

// sum_j src[j] * w[j] with the +0.5 bias, shifted and clamped to uint8.
SV_HOST_DEVICE SV_FORCE_INLINE std::int32_t int16_bias(int precision) { return std::int32_t{1} << (precision - 1); }
SV_HOST_DEVICE SV_FORCE_INLINE std::uint8_t int16_finish(std::int32_t acc, int precision) {
  const std::int32_t v = acc >> precision;
  return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

}  // namespace streamvision::kernels
