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

// One output pixel as every plane samples it: 32 bytes for float (the taps with the offset and
// mask in arrays beside them were 52).
template <class A>
struct WarpPoint {
  std::int64_t offset = 0;  // of the first tap (nw, or the nearest tap) in a plane; not read when outside
  A w[4] = {};
  A mask = 0;               // the fill's blend weight (kernels::bilinear_mask; nearest: 1 when the tap is in)
  unsigned inside = 0;      // bilinear: bit k for tap k in the image; nearest: 1 when its tap is
};

// The source point and taps of every pixel are computed once and used for every plane (fma is
// one instruction in the x86-64-v3 twin, cpu/simd.hpp, and a library call otherwise, which was
// most of the time of a warp). Two schedules share the arithmetic (warp() chooses):
//  * row blocks: each thread makes the points of kBlock output rows, then samples every plane
//    over them. For few planes (one image), whose bands of source rows the next block reuses.
//  * planes: the points of the whole output first, then each thread samples its planes, kGroup
//    at a time block by block, pixel by pixel with the group's planes inner and without the
//    prefetch. For batches of small images, whose planes stay in cache. What made affine of
//    64x3x224x224 faster (0.45x -> 0.8x torchvision's speed for float32, bench/RESULTS.md) was
//    dropping the prefetch and keeping strides in locals. Nearest without a fill (affine's
//    default) gathers (gather_group): 0.86-1.00x -> 1.14-1.30x torchvision for that float32 batch
//    with one thread (nineteenth session); the other warps blend (blend_group), which reads each
//    point once for the group: a float32 batch rotated by 30 degrees took 41 ms plane by plane
//    against torchvision's 24, and 23 ms this way (twenty-first session, an AVX-512 EPYC).
template <class T, class Grid>
struct WarpRows {
  using S = typename Grid::Sample;
  using A = kernels::acc_t<S>;
  static constexpr std::int64_t kBlock = 8;
  static constexpr std::int64_t kGroup = 4;
  // The source pixel a plane's sampling reads follows the grid (a slanted line for a rotation),
  // which the hardware prefetcher does not follow: without a hint the loop waits on memory at
  // almost every new cache line. Prefetching the tap this many pixels ahead hides that latency.
  // (Point arrays have this many more entries than pixels, so the look-ahead needs no bound check.)
  static constexpr std::int64_t kPrefetchAhead = 96;
  const kernels::ImageBatch& in;
  const kernels::ImageBatch& out;
  const Grid& grid;
  const A* fill;
  bool nearest, has_fill;

  // The points of output rows [oy0, oy1), row oy0's first at `points`.
  SV_FORCE_INLINE void make_points(std::int64_t oy0, std::int64_t oy1, WarpPoint<A>* points) const {
    const int iw = static_cast<int>(in.w), ih = static_cast<int>(in.h);
    const std::int64_t w = out.w, sh = in.stride_h, sw = in.stride_w;
    for (std::int64_t oy = oy0; oy < oy1; ++oy) {
      WarpPoint<A>* row = points + (oy - oy0) * w;
      for (int ox = 0; ox < w; ++ox) {
        A ix, iy;
        grid.source(ox, static_cast<int>(oy), ix, iy);
        WarpPoint<A>& q = row[ox];
        if (nearest) {
          std::int64_t x0, y0;
          kernels::nearest_tap(ix, iy, iw, ih, x0, y0);
          q.inside = x0 >= 0 ? 1u : 0u;
          q.mask = x0 >= 0 ? A(1) : A(0);
          q.offset = y0 * sh + x0 * sw;
        } else {
          const kernels::BilinearTaps<A> t = kernels::bilinear_taps(ix, iy, iw, ih);
          for (int k = 0; k < 4; ++k) q.w[k] = t.w[k];
          q.inside = t.inside;
          q.mask = has_fill ? kernels::bilinear_mask(t) : A(0);
          q.offset = t.y0 * sh + t.x0 * sw;
        }
      }
    }
  }

  // What the plane at `src` samples at point q (before the fill's blend): kernels::bilinear_sample
  // from the precomputed offset (the same taps in the same order), or the nearest tap.
  static SV_FORCE_INLINE A value(const WarpPoint<A>& q, const T* src, std::int64_t sh, std::int64_t sw, bool nearest) {
    const std::int64_t o = q.offset;  // a tap outside the image is never read
    if (nearest) return q.inside != 0 ? kernels::load_as<A>(src[o]) : A(0);
    A v = 0;
    if (q.inside & 1u) v = kernels::fused_mul_add(kernels::load_as<A>(src[o]), q.w[0], v);
    if (q.inside & 2u) v = kernels::fused_mul_add(kernels::load_as<A>(src[o + sw]), q.w[1], v);
    if (q.inside & 4u) v = kernels::fused_mul_add(kernels::load_as<A>(src[o + sh]), q.w[2], v);
    if (q.inside & 8u) v = kernels::fused_mul_add(kernels::load_as<A>(src[o + sh + sw]), q.w[3], v);
    return v;
  }

  // Plane p (image p / C, channel p % C) over output rows [oy0, oy1), whose points start at `points`,
  // each tap's line hinted kPrefetchAhead pixels ahead (not for planes that stay in cache, the
  // plane schedule below, where the hint and the look-ahead load cost more than they save: without
  // them the identity affine of 64x3x224x224 float32 took half the time on the development machine).
  SV_FORCE_INLINE void sample(std::int64_t p, std::int64_t oy0, std::int64_t oy1, const WarpPoint<A>* points) const {
    // Locals, not members: a uint8 store may alias anything, so the compiler reloaded
    // out.stride_w (and `out` itself) after every store.
    const std::int64_t w = out.w, sh = in.stride_h, sw = in.stride_w, dw = out.stride_w;
    const bool nearest = this->nearest, has_fill = this->has_fill;
    const T zero = kernels::warp_output<T, S>(A(0), A(0), true, false, A(0));
    const std::int64_t n = p / out.c, c = p % out.c;
    const T* src = static_cast<const T*>(in.data) + n * in.stride_n + c * in.stride_c;
    const A fill_c = fill[c];
    for (std::int64_t oy = oy0; oy < oy1; ++oy) {
      const WarpPoint<A>* row = points + (oy - oy0) * w;
      T* dst = static_cast<T*>(out.data) + n * out.stride_n + c * out.stride_c + oy * out.stride_h;
      // The address of the first tap kPrefetchAhead pixels on (an integer: it may lie outside).
      const auto ahead = [&](int ox) {
        return reinterpret_cast<std::uintptr_t>(src) + static_cast<std::uintptr_t>(row[ox + kPrefetchAhead].offset) * sizeof(T);
      };
      if (nearest && !has_fill) {
        // A nearest tap's value comes back unchanged (every warp dtype converts to its
        // accumulator and back exactly) and a pixel without one is 0: a gather, no arithmetic.
        for (int ox = 0; ox < w; ++ox) {
          SV_PREFETCH(ahead(ox));
          dst[ox * dw] = row[ox].inside != 0 ? src[row[ox].offset] : zero;
        }
        continue;
      }
      for (int ox = 0; ox < w; ++ox) {
        const WarpPoint<A>& q = row[ox];
        SV_PREFETCH(ahead(ox));
        if (!nearest) SV_PREFETCH(ahead(ox) + static_cast<std::uintptr_t>(sh) * sizeof(T));  // the taps' second row
        dst[ox * dw] = kernels::warp_output<T, S>(value(q, src, sh, sw, nearest), q.mask, nearest, has_fill, fill_c);
      }
    }
  }

  // Nearest without a fill (a gather, no arithmetic) of planes [p0, p1), at most kGroup, over
  // output rows [oy0, oy1): pixel by pixel with the planes inner, so that each 32-byte point is
  // read once for the group and the group's loads are independent of each other.
  SV_FORCE_INLINE void gather_group(std::int64_t p0, std::int64_t p1, std::int64_t oy0, std::int64_t oy1,
                                    const WarpPoint<A>* points) const {
    const std::int64_t w = out.w, dw = out.stride_w;
    const T zero = kernels::warp_output<T, S>(A(0), A(0), true, false, A(0));
    const int planes = static_cast<int>(p1 - p0);
    const T* src[kGroup];
    T* dst[kGroup];
    for (int k = 0; k < planes; ++k) {
      const std::int64_t n = (p0 + k) / out.c, c = (p0 + k) % out.c;
      src[k] = static_cast<const T*>(in.data) + n * in.stride_n + c * in.stride_c;
      dst[k] = static_cast<T*>(out.data) + n * out.stride_n + c * out.stride_c;
    }
    for (std::int64_t oy = oy0; oy < oy1; ++oy) {
      const WarpPoint<A>* row = points + (oy - oy0) * w;
      const std::int64_t at = oy * out.stride_h;
      if (planes == kGroup) {
        for (std::int64_t ox = 0; ox < w; ++ox) {
          const WarpPoint<A>& q = row[ox];
          const std::int64_t d = at + ox * dw;
          if (q.inside != 0) {
#pragma GCC unroll 4
            for (int k = 0; k < kGroup; ++k) dst[k][d] = src[k][q.offset];
          } else {
#pragma GCC unroll 4
            for (int k = 0; k < kGroup; ++k) dst[k][d] = zero;
          }
        }
      } else {
        for (std::int64_t ox = 0; ox < w; ++ox) {
          const WarpPoint<A>& q = row[ox];
          const std::int64_t d = at + ox * dw;
          for (int k = 0; k < planes; ++k) dst[k][d] = q.inside != 0 ? src[k][q.offset] : zero;
        }
      }
    }
  }

  // The other warps (bilinear, or nearest with a fill) of planes [p0, p1), at most kGroup, over
  // output rows [oy0, oy1), the same way: pixel by pixel with the planes inner, each plane's
  // arithmetic as sample()'s (the same taps in the same order, so the same bits).
  SV_FORCE_INLINE void blend_group(std::int64_t p0, std::int64_t p1, std::int64_t oy0, std::int64_t oy1,
                                   const WarpPoint<A>* points) const {
    const std::int64_t w = out.w, sh = in.stride_h, sw = in.stride_w, dw = out.stride_w;
    const bool nearest = this->nearest, has_fill = this->has_fill;
    const int planes = static_cast<int>(p1 - p0);
    const T* src[kGroup];
    T* dst[kGroup];
    A fill_c[kGroup];
    for (int k = 0; k < planes; ++k) {
      const std::int64_t n = (p0 + k) / out.c, c = (p0 + k) % out.c;
      src[k] = static_cast<const T*>(in.data) + n * in.stride_n + c * in.stride_c;
      dst[k] = static_cast<T*>(out.data) + n * out.stride_n + c * out.stride_c;
      fill_c[k] = fill[c];
    }
    const auto one = [&](const WarpPoint<A>& q, int k, std::int64_t d) {
      dst[k][d] = kernels::warp_output<T, S>(value(q, src[k], sh, sw, nearest), q.mask, nearest, has_fill, fill_c[k]);
    };
    for (std::int64_t oy = oy0; oy < oy1; ++oy) {
      const WarpPoint<A>* row = points + (oy - oy0) * w;
      const std::int64_t at = oy * out.stride_h;
      if (planes == kGroup) {
        for (std::int64_t ox = 0; ox < w; ++ox) {
#pragma GCC unroll 4
          for (int k = 0; k < kGroup; ++k) one(row[ox], k, at + ox * dw);
        }
      } else {
        for (std::int64_t ox = 0; ox < w; ++ox) {
          for (int k = 0; k < planes; ++k) one(row[ox], k, at + ox * dw);
        }
      }
    }
  }

  // Row blocks: the points of rows [oy0, oy1) into `points`, then every plane over them.
  SV_FORCE_INLINE void run_rows(std::int64_t oy0, std::int64_t oy1, WarpPoint<A>* points) const {
    make_points(oy0, oy1, points);
    for (std::int64_t p = 0; p < out.n * out.c; ++p) sample(p, oy0, oy1, points);
  }

  // Planes [p0, p1) over every row, kGroup planes at a time block by block: a block's points and
  // the group's bands of source rows stay in cache from one block to the next.
  SV_FORCE_INLINE void run_planes(std::int64_t p0, std::int64_t p1, const WarpPoint<A>* points) const {
    for (std::int64_t g = p0; g < p1; g += kGroup) {
      for (std::int64_t oy = 0; oy < out.h; oy += kBlock) {
        const std::int64_t oy1 = std::min(out.h, oy + kBlock);
        if (nearest && !has_fill) {
          gather_group(g, std::min(p1, g + kGroup), oy, oy1, points + oy * out.w);
          continue;
        }
        blend_group(g, std::min(p1, g + kGroup), oy, oy1, points + oy * out.w);
      }
    }
  }
};

// The three steps of a warp, each compiled twice: the x86-64-v3 twin (fma one instruction) and
// the baseline copy.
enum class WarpStep { Points, RowBlocks, Planes };

template <class Rows, class A>
SV_FORCE_INLINE void warp_step(const Rows& rows, WarpStep step, std::int64_t first, std::int64_t last, WarpPoint<A>* points) {
  switch (step) {
    case WarpStep::Points: return rows.make_points(first, last, points);        // output rows [first, last)
    case WarpStep::RowBlocks: return rows.run_rows(first, last, points);        // output rows [first, last)
    case WarpStep::Planes: return rows.run_planes(first, last, points);         // planes [first, last)
  }
}
template <class Rows, class A>
SV_CPU_V3 void warp_step_v3(const Rows& rows, WarpStep step, std::int64_t first, std::int64_t last, WarpPoint<A>* points) {
  warp_step(rows, step, first, last, points);
}
template <class Rows, class A>
void warp_step_base(const Rows& rows, WarpStep step, std::int64_t first, std::int64_t last, WarpPoint<A>* points) {
  warp_step(rows, step, first, last, points);
}

// Plane by plane when there are more planes than a group and the whole output's points take at
// most this many bytes (a 224x224 output's take 1.6 MB for float32, 2.4 for float64).
constexpr std::size_t kWarpPlanePointsBytes = std::size_t{8} << 20;

template <class T, class Grid>
void warp(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const Grid& grid, InterpolationMode mode, const Fill& fill) {
  using Rows = WarpRows<T, Grid>;
  using A = typename Rows::A;
  const std::vector<A> f = fill_values<typename Rows::S>(fill, out.c);
  const Rows rows{in, out, grid, f.data(), mode == InterpolationMode::Nearest, fill.has_value()};
  const auto step = cpu_is_x86_64_v3() ? &warp_step_v3<Rows, A> : &warp_step_base<Rows, A>;
  const std::int64_t planes = out.n * out.c, pixels = out.h * out.w;
  if (planes > Rows::kGroup && static_cast<std::size_t>(pixels) * sizeof(WarpPoint<A>) <= kWarpPlanePointsBytes) {
    std::vector<WarpPoint<A>> points(static_cast<std::size_t>(pixels + Rows::kPrefetchAhead));
    parallel_for(out.h, std::max<std::int64_t>(1, (1 << 12) / std::max<std::int64_t>(out.w, 1)), [&](std::int64_t first, std::int64_t last) {
      step(rows, WarpStep::Points, first, last, points.data() + first * out.w);
    });
    parallel_for(planes, Rows::kGroup, [&](std::int64_t p0, std::int64_t p1) { step(rows, WarpStep::Planes, p0, p1, points.data()); });
    return;
  }
  parallel_for(out.h, std::max<std::int64_t>(1, (1 << 14) / std::max<std::int64_t>(out.w * planes, 1)),
               [&](std::int64_t first, std::int64_t last) {
    std::vector<WarpPoint<A>> scratch(static_cast<std::size_t>(Rows::kBlock * out.w + Rows::kPrefetchAhead));
    for (std::int64_t oy = first; oy < last; oy += Rows::kBlock) {
      step(rows, WarpStep::RowBlocks, oy, std::min(last, oy + Rows::kBlock), scratch.data());
    }
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
