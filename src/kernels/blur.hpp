// Internal: the math of gaussian_blur, shared by the CPU and CUDA engines.
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

}  // namespace streamvision::kernels
