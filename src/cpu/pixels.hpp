// Internal: the CPU engine of the per-pixel colour ops. run_pixels calls op(n, x[kIn], y[kOut])
// for every pixel of an ImageBatch (kIn values read across the channels of the pixel), rows
// spread over the thread pool; the same functors run on the CUDA engine (cuda/pixels.cuh).
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/elementwise.hpp"
#include "cpu/parallel.hpp"
#include "cpu/simd.hpp"
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

// Lambdas of the row loops are inlined into pixel_row_v3, so that they are compiled for its target
// (a lambda left out of line is compiled for the baseline and its loops stay scalar).
#define SV_INLINE_LAMBDA __attribute__((always_inline))

// Ops with a finite form for whole rows (Op::kFiniteRows: op.takes_finite(x) for a pixel,
// op.finite(n, x, y) for the op where every pixel of the row takes it, without the tests of the
// general form; kernels/color_hsv.hpp's HueOp for float32).
template <class Op>
inline constexpr bool kFiniteRows = false;
template <class Op>
  requires requires { Op::kFiniteRows; }
inline constexpr bool kFiniteRows<Op> = Op::kFiniteRows;

// One row of pixels. The contiguous case (stride_w 1 in and out) is a plain loop over x with one
// pointer per channel, which the compiler vectorises.
template <class T, class Op>
SV_FORCE_INLINE void pixel_row_impl(const T* src, T* dst, std::int64_t w, std::int64_t in_sw, std::int64_t in_sc,
                                    std::int64_t out_sw, std::int64_t out_sc, std::int64_t n, const Op& op_ref) {
  constexpr int I = Op::kIn, O = Op::kOut;
  // A local copy: stores of uint8 pixels may alias anything, so the op's fields would otherwise be
  // reloaded for every pixel and the loop would not vectorise.
  const Op op = op_ref;
  // The loop of the two vectorised layouts: pixel x's values at load(x, c), its outputs to
  // store(x, c), through `f` (the op, or its finite form).
  const auto row = [&](auto&& load, auto&& store, auto&& f) SV_INLINE_LAMBDA {
    // Pixel x reads and writes only pixel x (the output is new, or the input itself): no
    // dependence between iterations, whatever the compiler can prove about the pointers.
    SV_IVDEP
    for (std::int64_t x = 0; x < w; ++x) {
      T a[I];
      SV_UNROLL
      for (int c = 0; c < I; ++c) a[c] = load(x, c);
      T b[O];
      f(a, b);
      SV_UNROLL
      for (int c = 0; c < O; ++c) store(x, c, b[c]);
    }
  };
  const auto layout = [&](auto&& load, auto&& store) SV_INLINE_LAMBDA {
    if constexpr (kFiniteRows<Op>) {
      // Whether every pixel takes the finite form: a pass over the row (in cache for the second).
      unsigned finite = 1;  // an integer AND-reduction, which GCC vectorises (a bool one it does not)
      SV_IVDEP
      for (std::int64_t x = 0; x < w; ++x) {
        T a[I];
        SV_UNROLL
        for (int c = 0; c < I; ++c) a[c] = load(x, c);
        finite &= static_cast<unsigned>(op.takes_finite(a));
      }
      if (finite != 0) {
        row(load, store, [&](const T(&a)[I], T(&b)[O]) SV_INLINE_LAMBDA { op.finite(n, a, b); });
        return;
      }
    }
    row(load, store, [&](const T(&a)[I], T(&b)[O]) SV_INLINE_LAMBDA { op(n, a, b); });
  };
  if (in_sw == 1 && out_sw == 1) {
    const T* in[I];
    T* out[O];
    SV_UNROLL
    for (int c = 0; c < I; ++c) in[c] = src + c * in_sc;
    SV_UNROLL
    for (int c = 0; c < O; ++c) out[c] = dst + c * out_sc;
    layout([&](std::int64_t x, int c) SV_INLINE_LAMBDA { return in[c][x]; },
           [&](std::int64_t x, int c, T v) SV_INLINE_LAMBDA { out[c][x] = v; });
    return;
  }
  if (in_sw == I && in_sc == 1 && out_sw == O && out_sc == 1) {
    // Packed channels_last pixels (a decoder's HWC buffer): constant strides, which the compiler
    // vectorises with shuffles.
    layout([&](std::int64_t x, int c) SV_INLINE_LAMBDA { return src[x * I + c]; },
           [&](std::int64_t x, int c, T v) SV_INLINE_LAMBDA { dst[x * O + c] = v; });
    return;
  }
  for (std::int64_t x = 0; x < w; ++x) {
    T a[I];
    load_pixel(src + x * in_sw, in_sc, a);
    T b[O];
    op(n, a, b);
    for (int c = 0; c < O; ++c) dst[x * out_sw + c * out_sc] = b[c];
  }
}

template <class T, class Op>
SV_CPU_V3 void pixel_row_v3(const T* src, T* dst, std::int64_t w, std::int64_t in_sw, std::int64_t in_sc,
                            std::int64_t out_sw, std::int64_t out_sc, std::int64_t n, const Op& op) {
  pixel_row_impl<T, Op>(src, dst, w, in_sw, in_sc, out_sw, out_sc, n, op);
}

template <class T, class Op>
void pixel_row_base(const T* src, T* dst, std::int64_t w, std::int64_t in_sw, std::int64_t in_sc, std::int64_t out_sw,
                    std::int64_t out_sc, std::int64_t n, const Op& op) {
  pixel_row_impl<T, Op>(src, dst, w, in_sw, in_sc, out_sw, out_sc, n, op);
}

template <class T, class Op>
void run_pixels(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const Op& op) {
  const std::int64_t rows = in.n * in.h;
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(in.w, 1));
  const auto row_fn = cpu_is_x86_64_v3() ? &pixel_row_v3<T, Op> : &pixel_row_base<T, Op>;
  parallel_for(rows, grain, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t row = first; row < last; ++row) {
      const std::int64_t n = row / in.h, y = row % in.h;
      const T* src = static_cast<const T*>(in.data) + n * in.stride_n + y * in.stride_h;
      T* dst = static_cast<T*>(out.data) + n * out.stride_n + y * out.stride_h;
      row_fn(src, dst, in.w, in.stride_w, in.stride_c, out.stride_w, out.stride_c, n, op);
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

#undef SV_INLINE_LAMBDA  // a local helper of this header
