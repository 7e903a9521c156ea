// Internal: the CPU engine of the warps (affine, perspective, elastic): per output row the source
// points and taps of every pixel are computed once (kernels/warp_grid.hpp, kernels/sampling.hpp),
// then every plane is sampled with them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "core/tensor_views.hpp"
#include "cpu/parallel.hpp"
#include "cpu/simd.hpp"
#include "kernels/warp_grid.hpp"
#include "streamvision/functional/geometry.hpp"

namespace streamvision::cpu {

// The fill per channel as the warp blends it.
template <class T>
std::vector<kernels::acc_t<T>> fill_values(const Fill& fill, std::int64_t channels) {
  std::vector<kernels::acc_t<T>> f(static_cast<std::size_t>(std::max<std::int64_t>(channels, 1)), 0);
  if (fill) {
    for (std::size_t c = 0; c < f.size(); ++c) f[c] = kernels::fill_in_image_dtype<T>((*fill)[fill->size() == 1 ? 0 : c]);
  }
  return f;
}

// Per-thread buffers for a block of output rows: each pixel's taps, fill mask and first-tap offset.
template <class A>
struct WarpScratch {
  std::vector<kernels::BilinearTaps<A>> taps;
  std::vector<A> mask;
  std::vector<std::int64_t> offsets;
  // `offsets` has kPrefetchAhead more entries than pixels, so the look-ahead needs no bound check.
  explicit WarpScratch(std::size_t n, std::size_t ahead) : taps(n), mask(n), offsets(n + ahead, 0) {}
};

// A block of output rows: the source point and taps of every pixel, computed once for all planes,
// then each plane sampled over the whole block (the block's band of the plane stays in cache
// while its rows are read: a batch of small images has many planes per output row). fma is one
// instruction in the x86-64-v3 twin (cpu/simd.hpp) and a library call otherwise, which was most
// of the time of a warp.
template <class T, class Grid>
struct WarpRows {
  using S = typename Grid::Sample;
  using A = kernels::acc_t<S>;
  static constexpr std::int64_t kBlock = 8;
  // The source pixel a plane's sampling reads follows the grid (a slanted line for a rotation),
  // which the hardware prefetcher does not follow: without a hint the loop waits on memory at
  // almost every new cache line. Prefetching the tap this many pixels ahead hides that latency.
  static constexpr std::int64_t kPrefetchAhead = 96;
  const kernels::ImageBatch& in;
  const kernels::ImageBatch& out;
  const Grid& grid;
  const A* fill;
  bool nearest, has_fill;

  SV_FORCE_INLINE void run(std::int64_t oy0, std::int64_t oy1, WarpScratch<A>& s) const {
    const int iw = static_cast<int>(in.w), ih = static_cast<int>(in.h);
    const std::int64_t w = out.w, sh = in.stride_h, sw = in.stride_w;
    for (std::int64_t oy = oy0; oy < oy1; ++oy) {
      kernels::BilinearTaps<A>* taps = s.taps.data() + (oy - oy0) * w;
      A* mask = s.mask.data() + (oy - oy0) * w;
      std::int64_t* offsets = s.offsets.data() + (oy - oy0) * w;
      for (int ox = 0; ox < w; ++ox) {
        A ix, iy;
        grid.source(ox, static_cast<int>(oy), ix, iy);
        if (nearest) {
          kernels::BilinearTaps<A>& t = taps[ox];
          kernels::nearest_tap(ix, iy, iw, ih, t.x0, t.y0);
          mask[ox] = t.x0 >= 0 ? A(1) : A(0);
        } else {
          taps[ox] = kernels::bilinear_taps(ix, iy, iw, ih);
          mask[ox] = has_fill ? kernels::bilinear_mask(taps[ox]) : A(0);
        }
        offsets[ox] = taps[ox].y0 * sh + taps[ox].x0 * sw;
      }
    }
    const std::int64_t planes = out.n * out.c;
    const T zero = kernels::warp_output<T, S>(A(0), A(0), true, false, A(0));
    for (std::int64_t p = 0; p < planes; ++p) {
      const std::int64_t n = p / out.c, c = p % out.c;
      const T* src = static_cast<const T*>(in.data) + n * in.stride_n + c * in.stride_c;
      for (std::int64_t oy = oy0; oy < oy1; ++oy) {
        const kernels::BilinearTaps<A>* taps = s.taps.data() + (oy - oy0) * w;
        const A* mask = s.mask.data() + (oy - oy0) * w;
        const std::int64_t* offsets = s.offsets.data() + (oy - oy0) * w;
        T* dst = static_cast<T*>(out.data) + n * out.stride_n + c * out.stride_c + oy * out.stride_h;
        // The address of the first tap kPrefetchAhead pixels on (an integer: it may lie outside).
        const auto ahead = [&](int ox) {
          return reinterpret_cast<std::uintptr_t>(src) + static_cast<std::uintptr_t>(offsets[ox + kPrefetchAhead]) * sizeof(T);
        };
        if (nearest && !has_fill) {
          // A nearest tap's value comes back unchanged (every warp dtype converts to its
          // accumulator and back exactly) and a pixel without one is 0: a gather, no arithmetic.
          for (int ox = 0; ox < w; ++ox) {
            SV_PREFETCH(ahead(ox));
            dst[ox * out.stride_w] = taps[ox].x0 >= 0 ? src[offsets[ox]] : zero;
          }
          continue;
        }
        for (int ox = 0; ox < w; ++ox) {
          const kernels::BilinearTaps<A>& t = taps[ox];
          const std::int64_t o = offsets[ox];  // a tap outside the image is never read
          SV_PREFETCH(ahead(ox));
          if (!nearest) SV_PREFETCH(ahead(ox) + static_cast<std::uintptr_t>(sh) * sizeof(T));  // the taps' second row
          A v;
          if (nearest) {
            v = t.x0 >= 0 ? kernels::load_as<A>(src[o]) : A(0);
          } else {
            // kernels::bilinear_sample from the precomputed offset: the same taps in the same order.
            v = 0;
            if (t.inside & 1u) v = kernels::fused_mul_add(kernels::load_as<A>(src[o]), t.w[0], v);
            if (t.inside & 2u) v = kernels::fused_mul_add(kernels::load_as<A>(src[o + sw]), t.w[1], v);
            if (t.inside & 4u) v = kernels::fused_mul_add(kernels::load_as<A>(src[o + sh]), t.w[2], v);
            if (t.inside & 8u) v = kernels::fused_mul_add(kernels::load_as<A>(src[o + sh + sw]), t.w[3], v);
          }
          dst[ox * out.stride_w] = kernels::warp_output<T, S>(v, mask[ox], nearest, has_fill, fill[c]);
        }
      }
    }
  }
};

template <class Rows, class A>
SV_CPU_V3 void warp_rows_v3(const Rows& rows, std::int64_t oy0, std::int64_t oy1, WarpScratch<A>& s) {
  rows.run(oy0, oy1, s);
}
template <class Rows, class A>
void warp_rows_base(const Rows& rows, std::int64_t oy0, std::int64_t oy1, WarpScratch<A>& s) {
  rows.run(oy0, oy1, s);
}

template <class T, class Grid>
void warp(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const Grid& grid, InterpolationMode mode, const Fill& fill) {
  using Rows = WarpRows<T, Grid>;
  using A = typename Rows::A;
  const std::vector<A> f = fill_values<typename Rows::S>(fill, out.c);
  const Rows rows{in, out, grid, f.data(), mode == InterpolationMode::Nearest, fill.has_value()};
  const auto rows_fn = cpu_is_x86_64_v3() ? &warp_rows_v3<Rows, A> : &warp_rows_base<Rows, A>;
  const std::int64_t planes = out.n * out.c;
  parallel_for(out.h, std::max<std::int64_t>(1, (1 << 14) / std::max<std::int64_t>(out.w * planes, 1)),
               [&](std::int64_t first, std::int64_t last) {
    WarpScratch<A> scratch(static_cast<std::size_t>(Rows::kBlock * out.w), static_cast<std::size_t>(Rows::kPrefetchAhead));
    for (std::int64_t oy = first; oy < last; oy += Rows::kBlock) rows_fn(rows, oy, std::min(last, oy + Rows::kBlock), scratch);
  });
}

template <class Make>
void dispatch_warp(const char* op, const Tensor& input, const Tensor& output, InterpolationMode mode, const Fill& fill, Make&& make_grid) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  detail::GeometryDTypes::dispatch(input.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    warp<T>(in, out, make_grid(tag, in, out), mode, fill);
  });
}

}  // namespace streamvision::cpu
