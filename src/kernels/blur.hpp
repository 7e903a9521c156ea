// Internal: the math of gaussian_blur and adjust_sharpness, shared by the CPU and CUDA engines.
//
// gaussian_blur: torchvision convolves a REFLECT_101-padded image with the outer product of
// two 1-D kernels, softmax(-(x / sigma)^2) over x = linspace(-lim, lim, k), i.e.
// exp(-(i - c)^2 / (2 sigma^2)) normalised; integer images are computed in float32 and rounded
// (half to even), float images in their own dtype (the kernel too). We filter separably
// (rows, then columns) in float (double for float64): out = sum_i wy[i] * sum_j wx[j] * x,
// each sum accumulated with fma in increasing tap order on both engines. That differs from a
// 2-D convolution only by float rounding (integer results agree except where the exact value
// lies within ~1e-5 of a rounding boundary).
//
// The weights are computed by the same code on both engines (from exp written in
// color_math.hpp), so the CPU and CUDA results agree bit for bit.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/color.hpp"

namespace streamvision::kernels {

// The type a blur accumulates in: double for float64 images, float otherwise.
template <class T>
using BlurAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The unnormalised weight of tap i of a kernel of size k: exp(-(i - c)^2 / (2 sigma^2)).
SV_HOST_DEVICE inline double gaussian_exp(int i, int k, double sigma) {
  const double d = (i - (k - 1) * 0.5) / sigma;
  return pmath::exp2_(((-0.5 * d) * d) * 1.4426950408889634);
}

// The normalised weight, in the dtype torchvision builds the kernel in (float32 for integer
// images, the image dtype otherwise), as a BlurAcc.
template <class T>
SV_HOST_DEVICE inline BlurAcc<T> gaussian_weight(double e, double sum) {
  const double w = e / sum;
  if constexpr (is_half_like<T>) {
    return static_cast<float>(T(static_cast<float>(w)));
  } else {
    return static_cast<BlurAcc<T>>(w);
  }
}

// Fills w[0..k) (sequential sum: the same on both engines).
template <class T>
SV_HOST_DEVICE inline void gaussian_weights(int k, double sigma, BlurAcc<T>* w) {
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += gaussian_exp(i, k, sigma);
  for (int i = 0; i < k; ++i) w[i] = gaussian_weight<T>(gaussian_exp(i, k, sigma), sum);
}

template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE BlurAcc<T> blur_input(T x) {
  return static_cast<BlurAcc<T>>(to_opmath(x));
}

// Back to T: integers round half to even (torch's round_()) and cast; floats round to T.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T blur_output(BlurAcc<T> v) {
  if constexpr (is_float_like<T>) {
    return cast<T>(v);
  } else {
    return cast<T>(pmath::rint_(v));
  }
}

// REFLECT_101 for 0 <= radius < n: -1 -> 1, n -> n - 2.
SV_HOST_DEVICE SV_FORCE_INLINE std::int64_t reflect_index(std::int64_t i, std::int64_t n) {
  if (i < 0) i = -i;
  if (i >= n) i = 2 * (n - 1) - i;
  return i;
}

// ---- adjust_sharpness ------------------------------------------------------------------------

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
// integers), then x + (1 - factor) * (blurred - x), clamped and cast.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T sharpen(const opmath_t<T> (&v)[9], const SharpnessParams<T>& p) {
  using F = opmath_t<T>;
  F acc = 0;
  for (int k = 0; k < 9; ++k) acc = pmath::fma_(k == 4 ? p.center : p.edge, v[k], acc);
  F blurred;
  if constexpr (is_float_like<T>) {
    blurred = mat<T>(acc);
  } else {
    blurred = pmath::rint_(acc);
  }
  const F x = v[4];
  const F y = mat<T>(pmath::fma_(mat<T>(blurred - x), p.alpha, x));
  return to_image<T>(clamp_value(y, F(0), bound_of<T>()));
}

// Border pixels keep their value, but the final clamp applies to them too.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T sharpen_border(T x) {
  using F = opmath_t<T>;
  return to_image<T>(clamp_value(to_opmath(x), F(0), bound_of<T>()));
}

}  // namespace streamvision::kernels
