// Internal: the per-element math of normalize, (x - mean[c]) / std[c] computed like PyTorch's
// image.sub(mean).div_(std): mean and std are first rounded to the image dtype, the
// subtraction result is materialised in the image dtype, then divided (a true division).
#pragma once

#include <cstdint>

#include "kernels/cast.hpp"

namespace streamvision::kernels {

// Per-channel parameters travel by value in the kernel arguments; Capacity bounds the channels.
template <class T, int Capacity>
struct NormalizeOp {
  static constexpr bool kUsesChannel = true;
  opmath_t<T> mean[Capacity];
  opmath_t<T> stdev[Capacity];

  SV_HOST_DEVICE SV_FORCE_INLINE T operator()(T x, std::uint32_t c) const { return apply(x, mean[c], stdev[c]); }

  // One value with its channel's parameters (the CPU engine's interleaved loop passes them per lane).
  SV_HOST_DEVICE static SV_FORCE_INLINE T apply(T x, opmath_t<T> m, opmath_t<T> s) {
    const opmath_t<T> centered = round_to<T>(to_opmath(x) - m);
    const opmath_t<T> v = centered / s;
    if constexpr (is_half_like<T>) {
      return T(v);
    } else {
      return v;
    }
  }
};

// The same math per pixel of a C-channel image (the CUDA pixel engine, cuda/pixels.cuh): the
// channel is the index into x, so each thread's parameters are fixed.
template <class T, int C>
struct NormalizePixelOp {
  static constexpr int kIn = C, kOut = C;
  opmath_t<T> mean[C];
  opmath_t<T> stdev[C];
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t, const T (&x)[C], T (&y)[C]) const {
    for (int c = 0; c < C; ++c) y[c] = NormalizeOp<T, 1>::apply(x[c], mean[c], stdev[c]);
  }
};

}  // namespace streamvision::kernels
