// Internal: building blocks shared by the geometry kernels of both engines (resize, the grid
// warps): explicit fused multiply-add, a typed strided view of one image plane, the conversions
// from the accumulation type back to the image dtype, and the grid_sample samplers with their
// fill-by-mask blend.
//
// Bit-exactness between the engines rests on three rules: nvcc runs with --fmad=false and the
// host compiler in ISO mode does not contract either, so a*b+c is two roundings unless written
// as fused_mul_add (one rounding on both); floor/rint/trunc are exact operations on both; and the
// integer conversions below define every case (NaN, out of range) instead of leaving it to the
// hardware.
#pragma once

#include <math.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cast.hpp"
#include "kernels/image_batch.hpp"
#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

SV_HOST_DEVICE SV_FORCE_INLINE float fused_mul_add(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

SV_HOST_DEVICE SV_FORCE_INLINE double fused_mul_add(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

SV_HOST_DEVICE SV_FORCE_INLINE float floor_of(float x) { return floorf(x); }
SV_HOST_DEVICE SV_FORCE_INLINE double floor_of(double x) { return floor(x); }
// Round half to even (the default rounding mode on both engines), like torch.round.
SV_HOST_DEVICE SV_FORCE_INLINE float round_half_even(float x) { return rintf(x); }
SV_HOST_DEVICE SV_FORCE_INLINE double round_half_even(double x) { return rint(x); }
SV_HOST_DEVICE SV_FORCE_INLINE float truncate_of(float x) { return truncf(x); }
SV_HOST_DEVICE SV_FORCE_INLINE double truncate_of(double x) { return trunc(x); }

// The type geometry kernels accumulate in: float (double for float64 images), as torch's
// accscalar_t / opmath for the dtypes these ops support.
template <class T>
using acc_t = opmath_t<T>;

// One plane [H, W] of an image batch, element strides; P = T* for a plane that is written.
template <class T, class P = const T*>
struct PlaneView {
  P data = nullptr;
  std::int64_t stride_h = 0, stride_w = 0;
  SV_HOST_DEVICE SV_FORCE_INLINE auto& at(std::int64_t y, std::int64_t x) const { return data[y * stride_h + x * stride_w]; }
  // For loops that hoist the row and index it by precomputed element offsets.
  SV_HOST_DEVICE SV_FORCE_INLINE P row(std::int64_t y) const { return data + y * stride_h; }
};

// Plane (n, c) of a batch; plane p = n * C + c.
template <class T, class P = const T*>
SV_HOST_DEVICE SV_FORCE_INLINE PlaneView<T, P> plane_view(const ImageBatch& b, std::int64_t n, std::int64_t c) {
  return {static_cast<P>(b.data) + n * b.stride_n + c * b.stride_c, b.stride_h, b.stride_w};
}
template <class T, class P = const T*>
inline PlaneView<T, P> plane_view(const ImageBatch& b, std::int64_t p) { return plane_view<T, P>(b, p / b.c, p % b.c); }

// A value as the image dtype holds it: 16-bit floats round to nearest even; float, double and
// the float32 stand-in of integer images are unchanged. (torch materialises every intermediate
// tensor of a half image in half.)
template <class T, class A>
SV_HOST_DEVICE SV_FORCE_INLINE A in_image_dtype(A v) {
  if constexpr (is_half_like<T>) {
    return static_cast<A>(static_cast<float>(T(static_cast<float>(v))));
  } else {
    return v;
  }
}

enum class IntRounding : std::uint8_t { HalfEven, Truncate };

// An image value in the accumulation type A. On the GPU, uint8/uint16 go through the float bit
// pattern (2^23 + v is exact), which is cheaper than the integer-to-float unit; same values.
template <class A, class T>
SV_HOST_DEVICE SV_FORCE_INLINE A load_as(T v) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<A, float> && (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>)) {
    return __uint_as_float(0x4B000000u | static_cast<unsigned>(v)) - 8388608.0f;
  }
#endif
  return static_cast<A>(to_opmath(v));
}

// How the GPU saturates a float to uint8 / uint16. Clamp (fminf and fmaxf, no branches) is the
// shorter code: rotate 1.02x, uint8 antialiased resize to 540x960 1.03x (H100, bench/RESULTS.md,
// thirty-first session). Branches (compare and branch) is what the tiled batch resize keeps: given
// Clamp the compiler interleaved more of its columns, 40 -> 62 registers, and 1080p -> 224 ran
// 13 % slower (10 % held at 40 registers).
enum class Saturate : std::uint8_t { Clamp, Branches };

// From the accumulation type to the image dtype. Floats round to nearest even; the integer
// dtypes (uint8, uint16 here) round as asked, then saturate to their range the way the GPU's
// float-to-integer conversion does (torch's CUDA result); NaN becomes 0.
template <class T, IntRounding R = IntRounding::HalfEven, Saturate S = Saturate::Clamp, class A>
SV_HOST_DEVICE SV_FORCE_INLINE T to_image_dtype(A v) {
  if constexpr (is_half_like<T>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    static_assert(std::is_unsigned_v<T> && sizeof(T) <= 2, "geometry integer outputs are uint8 or uint16");
    constexpr T max = static_cast<T>(~T(0));
    if constexpr (R == IntRounding::Truncate) v = truncate_of(v);
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<A, float> && S == Saturate::Clamp) {
      // fmaxf returns 0 for NaN and v <= 0, fminf caps at max; adding 2^23 to 0 <= v <= 65535
      // rounds to the nearest integer, ties to even, in the low mantissa bits.
      v = fminf(fmaxf(v, 0.0f), static_cast<float>(max));
      return static_cast<T>(__float_as_uint(v + 8388608.0f) - 0x4B000000u);
    }
#endif
    if (!(v == v)) return T(0);
    if (v <= A(0)) return T(0);
    if (v >= static_cast<A>(max)) return max;
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<A, float>) {
      // 0 < v < 65535: adding 2^23 rounds to the nearest integer, ties to even.
      return static_cast<T>(__float_as_uint(v + 8388608.0f) - 0x4B000000u);
    }
#endif
    return static_cast<T>(round_half_even(v));
  }
}

// ---- grid_sample(align_corners=False, padding_mode="zeros") ---------------------------------

// Normalised grid coordinate in [-1, 1] to a pixel coordinate: ((g + 1) * size - 1) / 2, with
// the multiply-add fused as torch's CUDA build compiles it.
template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE A unnormalize(A g, int size) {
  return fused_mul_add(g + A(1), static_cast<A>(size), A(-1)) / A(2);
}

// The four bilinear taps of a source point, computed once per output pixel and reused for
// every plane. Taps are nw, ne, sw, se in torch's order; `inside` has bit k set when tap k lies
// in the image. Points that are NaN or far outside the image get no tap at all (torch leaves
// the float-to-int conversion of such points undefined).
template <class A>
struct BilinearTaps {
  std::int64_t x0 = 0, y0 = 0;
  A w[4] = {};
  unsigned inside = 0;
};

template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE BilinearTaps<A> bilinear_taps(A ix, A iy, int width, int height) {
  BilinearTaps<A> t;
  if (!(ix > A(-2) && ix < A(width + 1) && iy > A(-2) && iy < A(height + 1))) return t;
  const A fx = floor_of(ix), fy = floor_of(iy);
  t.x0 = static_cast<std::int64_t>(fx);
  t.y0 = static_cast<std::int64_t>(fy);
  const A x1 = fx + A(1), y1 = fy + A(1);
  t.w[0] = (x1 - ix) * (y1 - iy);  // nw
  t.w[1] = (ix - fx) * (y1 - iy);  // ne
  t.w[2] = (x1 - ix) * (iy - fy);  // sw
  t.w[3] = (ix - fx) * (iy - fy);  // se
  const bool x0_in = t.x0 >= 0 && t.x0 < width, x1_in = t.x0 + 1 >= 0 && t.x0 + 1 < width;
  const bool y0_in = t.y0 >= 0 && t.y0 < height, y1_in = t.y0 + 1 >= 0 && t.y0 + 1 < height;
  t.inside = (x0_in && y0_in ? 1u : 0u) | (x1_in && y0_in ? 2u : 0u) | (x0_in && y1_in ? 4u : 0u) |
             (x1_in && y1_in ? 8u : 0u);
  return t;
}

// Sum of the in-image taps, accumulated like torch (fma from 0, taps in order).
template <class T, class A>
SV_HOST_DEVICE SV_FORCE_INLINE A bilinear_sample(const PlaneView<T>& p, const BilinearTaps<A>& t) {
  A acc = 0;
  if (t.inside & 1u) acc = fused_mul_add(load_as<A>(p.at(t.y0, t.x0)), t.w[0], acc);
  if (t.inside & 2u) acc = fused_mul_add(load_as<A>(p.at(t.y0, t.x0 + 1)), t.w[1], acc);
  if (t.inside & 4u) acc = fused_mul_add(load_as<A>(p.at(t.y0 + 1, t.x0)), t.w[2], acc);
  if (t.inside & 8u) acc = fused_mul_add(load_as<A>(p.at(t.y0 + 1, t.x0 + 1)), t.w[3], acc);
  return acc;
}

// What grid_sample gives for a channel of ones: the in-image share of the taps.
template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE A bilinear_mask(const BilinearTaps<A>& t) {
  A acc = 0;
  for (int k = 0; k < 4; ++k) {
    if (t.inside & (1u << k)) acc = fused_mul_add(A(1), t.w[k], acc);
  }
  return acc;
}

// Nearest tap: round half to even (torch uses nearbyint); -1 when outside the image.
template <class A>
SV_HOST_DEVICE SV_FORCE_INLINE void nearest_tap(A ix, A iy, int width, int height, std::int64_t& x, std::int64_t& y) {
  x = y = -1;
  if (!(ix > A(-2) && ix < A(width + 1) && iy > A(-2) && iy < A(height + 1))) return;
  const std::int64_t nx = static_cast<std::int64_t>(round_half_even(ix));
  const std::int64_t ny = static_cast<std::int64_t>(round_half_even(iy));
  if (nx >= 0 && nx < width && ny >= 0 && ny < height) {
    x = nx;
    y = ny;
  }
}

// torchvision's _apply_grid_transform after grid_sample: `sampled` and `mask` as grid_sample
// produced them (rounded to the image's float dtype), then with a fill
//   nearest:  mask < 0.5 ? fill : sampled
//   bilinear: ((sampled - fill) * mask) + fill, each step rounded to the image's float dtype
// and finally back to T (integer images round half to even).
template <class T, class A>
SV_HOST_DEVICE SV_FORCE_INLINE T blend_fill(A sampled, A mask, bool nearest, bool has_fill, A fill) {
  A v = in_image_dtype<T>(sampled);
  if (has_fill) {
    if (nearest) {
      v = in_image_dtype<T>(mask) < A(0.5) ? fill : v;
    } else {
      const A m = in_image_dtype<T>(mask);
      v = in_image_dtype<T>(v - fill);
      v = in_image_dtype<T>(v * m);
      v = in_image_dtype<T>(v + fill);
    }
  }
  return to_image_dtype<T>(v);
}

// A fill value as torchvision turns it into a tensor of the float dtype the blend runs in
// (float32 for integer images).
template <class T>
inline acc_t<T> fill_in_image_dtype(double fill) {
  if constexpr (is_half_like<T>) {
    return static_cast<float>(T(static_cast<float>(fill)));
  } else {
    return static_cast<acc_t<T>>(fill);
  }
}

}  // namespace streamvision::kernels
