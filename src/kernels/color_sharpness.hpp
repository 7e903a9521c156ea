// Internal: the math of adjust_sharpness, shared by the CPU and CUDA engines: torchvision's 3x3
// smoothing kernel blended with the image (borders keep their pixels).
#pragma once

#include <type_traits>

#include "kernels/color.hpp"

namespace streamvision::kernels {

// The 3x3 kernel [[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13 in the kernel dtype (float32 for integer
// images), and 1 - factor.
template <class T>
struct SharpnessParams {
  opmath_t<T> edge = 0, center = 0, alpha = 0;

  static SharpnessParams make(double factor) {
    using K = std::conditional_t<is_float_like<T>, T, float>;
    SharpnessParams p;
    p.edge = to_opmath(cast<K>(1.0 / 13.0));
    p.center = to_opmath(cast<K>(5.0 / 13.0));
    p.alpha = static_cast<opmath_t<T>>(1.0 - factor);
    return p;
  }
};

// An interior pixel from its 3x3 neighbourhood (row-major, centre v[4]): the blur (rounded for
// integers), then x + (1 - factor) * (blurred - x), before the clamp and the cast (sharpen below).
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> sharpened(const opmath_t<T> (&v)[9], const SharpnessParams<T>& p) {
  using F = opmath_t<T>;
  F acc = 0;
  for (int k = 0; k < 9; ++k) acc = pmath::fma_(k == 4 ? p.center : p.edge, v[k], acc);
  F blurred;
  if constexpr (is_float_like<T>) {
    blurred = mat<T>(acc);
  } else {
#if defined(__CUDA_ARCH__)
    // Round half to even by adding and subtracting 1.5 * 2^23 (exact for |acc| < 2^22; here
    // 0 <= acc <= 1.0000001 * 65535): two FMA-pipe adds where FRND is a quarter-rate conversion.
    blurred = __fsub_rn(__fadd_rn(acc, 12582912.0f), 12582912.0f);
#else
    blurred = pmath::rint_(acc);
#endif
  }
  const F x = v[4];
  return mat<T>(pmath::fma_(mat<T>(blurred - x), p.alpha, x));
}

// The same, clamped and cast.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T sharpen(const opmath_t<T> (&v)[9], const SharpnessParams<T>& p) {
  using F = opmath_t<T>;
  return in_range_to_image<T>(clamp_value(sharpened<T>(v, p), F(0), bound_of<T>()));
}

// Border pixels keep their value, but the final clamp applies to them too (x: the pixel in the
// kernel's opmath type).
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T sharpen_border_value(opmath_t<T> x) {
  using F = opmath_t<T>;
  return in_range_to_image<T>(clamp_value(x, F(0), bound_of<T>()));
}

template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T sharpen_border(T x) {
  return sharpen_border_value<T>(to_opmath(x));
}

}  // namespace streamvision::kernels
