// Internal: how the per-pixel colour ops and their reductions walk an image, shared by the CPU
// and CUDA engines so that reductions in floating point add in the same order on both.
//
// An image [C, H, W] (one entry of an ImageBatch) is visited in *groups*: V consecutive pixels
// of one row (the last group of a row may be shorter), numbered row by row. V is the number of
// elements in 16 bytes, so the CUDA engine loads a group of one channel with one vector load.
//
// A reduction splits image n into chunks of kReduceThreads * groups_per_thread groups. Thread
// t (0..255) of chunk q accumulates the groups q * chunk + k * 256 + t for k = 0, 1, ... in
// order (pixels of a group in order), then the 256 accumulators of the chunk combine as a tree
// (a[t] += a[t + s] for s = 128, 64, ..., 1), giving partial[n][q]; a finalize step combines
// the partials of image n sequentially. The CPU engine performs exactly these additions.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/color.hpp"

namespace streamvision::kernels {

inline constexpr int kReduceThreads = 256;
// adjust_contrast's mean: groups per thread of one chunk (a fixed number: the partition of the
// floating-point sum must not depend on the device).
inline constexpr int kContrastGroupsPerThread = 8;

template <class T>
constexpr int pixel_group_size() {
  return static_cast<int>(16 / sizeof(T));
}

struct PixelGroups {
  std::int64_t h = 0, w = 0;
  int v = 1;
  std::int64_t per_row = 0;  // ceil(w / v)
  std::int64_t count = 0;    // h * per_row

  static PixelGroups make(std::int64_t h, std::int64_t w, int v) {
    PixelGroups g;
    g.h = h;
    g.w = w;
    g.v = v;
    g.per_row = (w + v - 1) / v;
    g.count = h * g.per_row;
    return g;
  }
  // Chunks of `groups_per_thread` * kReduceThreads groups covering one image.
  std::int64_t chunks(int groups_per_thread) const {
    const std::int64_t per_chunk = static_cast<std::int64_t>(groups_per_thread) * kReduceThreads;
    return (count + per_chunk - 1) / per_chunk;
  }
};

// ---- adjust_contrast's mean ----------------------------------------------------------------

// Integer images sum integers (the floored grayscale values): exactly, in 64 bits. Float images
// sum in double.
template <class T>
using ContrastAcc = std::conditional_t<is_float_like<T>, double, std::uint64_t>;

// The value a pixel contributes to the mean: its grayscale value (floored for integer images),
// or the value itself for a single-channel image.
template <class T, int C>
SV_HOST_DEVICE SV_FORCE_INLINE ContrastAcc<T> contrast_value(const T (&x)[C]) {
  if constexpr (C == 3) {
    return static_cast<ContrastAcc<T>>(blend_gray(x[0], x[1], x[2]));
  } else {
    return static_cast<ContrastAcc<T>>(to_opmath(x[0]));
  }
}

// The mean of image n from its partial sums (torch.mean's result dtype: float32 for integer
// and float32 images, T for 16-bit floats, double for float64).
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> contrast_mean(const ContrastAcc<T>* partials, std::int64_t chunks,
                                                         std::int64_t pixels) {
  ContrastAcc<T> sum = 0;
  for (std::int64_t q = 0; q < chunks; ++q) sum += partials[q];
  const double mean = static_cast<double>(sum) / static_cast<double>(pixels);
  return mat<T>(static_cast<opmath_t<T>>(mean));
}

// ---- autocontrast's bounds -------------------------------------------------------------------

template <class T>
struct MinMax {
  opmath_t<T> lo, hi;
};

template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F min_value(F a, F b) {
  return b < a ? b : a;
}
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F max_value(F a, F b) {
  return a < b ? b : a;
}

// Image n's per-channel parameters from the partial bounds [chunk][C] (exact in any order).
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE AutocontrastChannel<T> autocontrast_finalize(const MinMax<T>* partials,
                                                                            std::int64_t chunks, int channels,
                                                                            int c) {
  MinMax<T> b = partials[c];
  for (std::int64_t q = 1; q < chunks; ++q) {
    b.lo = min_value(b.lo, partials[q * channels + c].lo);
    b.hi = max_value(b.hi, partials[q * channels + c].hi);
  }
  return autocontrast_channel<T>(b.lo, b.hi);
}

}  // namespace streamvision::kernels
