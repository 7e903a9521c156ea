// Internal: the CPU engine of the warps (affine, perspective, elastic): per output row the source
// points and taps of every pixel are computed once (kernels/warp_grid.hpp, kernels/sampling.hpp),
// then every plane is sampled with them.
#pragma once

#include <algorithm>
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

// One output row: the source point and taps of every pixel (shared by all planes), then every
// plane sampled with them. fma is one instruction in the x86-64-v3 twin (cpu/simd.hpp) and a
// library call otherwise, which is most of the time of a warp.
template <class T, class Grid>
struct WarpRow {
  using S = typename Grid::Sample;
  using A = kernels::acc_t<S>;
  const kernels::ImageBatch& in;
  const kernels::ImageBatch& out;
  const Grid& grid;
  const A* fill;
  bool nearest, has_fill;

  SV_FORCE_INLINE void run(std::int64_t oy, kernels::BilinearTaps<A>* taps, A* mask) const {
    const int iw = static_cast<int>(in.w), ih = static_cast<int>(in.h);
    for (int ox = 0; ox < out.w; ++ox) {
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
    }
    const std::int64_t planes = out.n * out.c;
    for (std::int64_t p = 0; p < planes; ++p) {
      const std::int64_t n = p / out.c, c = p % out.c;
      const kernels::PlaneView<T> src{static_cast<const T*>(in.data) + n * in.stride_n + c * in.stride_c, in.stride_h,
                                      in.stride_w};
      T* dst = static_cast<T*>(out.data) + n * out.stride_n + c * out.stride_c + oy * out.stride_h;
      for (int ox = 0; ox < out.w; ++ox) {
        const kernels::BilinearTaps<A>& t = taps[ox];
        A v;
        if (nearest) {
          v = t.x0 >= 0 ? kernels::load_as<A>(src.at(t.y0, t.x0)) : A(0);
        } else {
          v = kernels::bilinear_sample(src, t);
        }
        dst[ox * out.stride_w] = kernels::warp_output<T, S>(v, mask[ox], nearest, has_fill, fill[c]);
      }
    }
  }
};

template <class Row, class A>
SV_CPU_V3 void warp_row_v3(const Row& row, std::int64_t oy, kernels::BilinearTaps<A>* taps, A* mask) {
  row.run(oy, taps, mask);
}
template <class Row, class A>
void warp_row_base(const Row& row, std::int64_t oy, kernels::BilinearTaps<A>* taps, A* mask) {
  row.run(oy, taps, mask);
}

template <class T, class Grid>
void warp(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const Grid& grid, InterpolationMode mode, const Fill& fill) {
  using Row = WarpRow<T, Grid>;
  using A = typename Row::A;
  const std::vector<A> f = fill_values<typename Row::S>(fill, out.c);
  const Row row{in, out, grid, f.data(), mode == InterpolationMode::Nearest, fill.has_value()};
  const auto row_fn = cpu_is_x86_64_v3() ? &warp_row_v3<Row, A> : &warp_row_base<Row, A>;
  const std::int64_t planes = out.n * out.c;
  parallel_for(out.h, std::max<std::int64_t>(1, (1 << 14) / std::max<std::int64_t>(out.w * planes, 1)),
               [&](std::int64_t first, std::int64_t last) {
    std::vector<kernels::BilinearTaps<A>> taps(static_cast<std::size_t>(out.w));
    std::vector<A> mask(static_cast<std::size_t>(out.w));
    for (std::int64_t oy = first; oy < last; ++oy) row_fn(row, oy, taps.data(), mask.data());
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
