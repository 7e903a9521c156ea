// Internal: the CPU engine of the per-pixel colour ops. run_pixels calls op(n, x[kIn], y[kOut])
// for every pixel of an ImageBatch (kIn values read across the channels of the pixel), rows
// spread over the thread pool; the same functors run on the CUDA engine (cuda/pixels.cuh).
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/elementwise.hpp"
#include "cpu/parallel.hpp"
#include "kernels/image_batch.hpp"
#include "kernels/reduce.hpp"

namespace streamvision::cpu {

// The same batch restricted to channel `c` (a 1-channel batch).
inline kernels::ImageBatch channel_of(const kernels::ImageBatch& b, std::int64_t c, std::size_t itemsize) {
  kernels::ImageBatch one = b;
  one.data = static_cast<char*>(b.data) + c * b.stride_c * static_cast<std::int64_t>(itemsize);
  one.c = 1;
  return one;
}

template <class T, int C>
inline void load_pixel(const T* p, std::int64_t stride_c, T (&x)[C]) {
  for (int c = 0; c < C; ++c) x[c] = p[c * stride_c];
}

template <class T, class Op>
void run_pixels(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const Op& op) {
  constexpr int I = Op::kIn, O = Op::kOut;
  const std::int64_t rows = in.n * in.h;
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(in.w, 1));
  parallel_for(rows, grain, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t row = first; row < last; ++row) {
      const std::int64_t n = row / in.h, y = row % in.h;
      const T* src = static_cast<const T*>(in.data) + n * in.stride_n + y * in.stride_h;
      T* dst = static_cast<T*>(out.data) + n * out.stride_n + y * out.stride_h;
      for (std::int64_t x = 0; x < in.w; ++x) {
        T a[I];
        load_pixel(src + x * in.stride_w, in.stride_c, a);
        T b[O];
        op(n, a, b);
        for (int c = 0; c < O; ++c) dst[x * out.stride_w + c * out.stride_c] = b[c];
      }
    }
  });
}

// Group `index` of an image (kernels/reduce.hpp): row y, first column x0, pixel count.
inline void group_at(const kernels::PixelGroups& g, std::int64_t index, std::int64_t& y, std::int64_t& x0,
                     std::int64_t& count) {
  y = index / g.per_row;
  x0 = (index % g.per_row) * g.v;
  count = std::min<std::int64_t>(g.v, g.w - x0);
}

}  // namespace streamvision::cpu
