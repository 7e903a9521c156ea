// Internal: the CPU engine of the warps (affine, perspective, elastic): per output row the source
// points and taps of every pixel are computed once (kernels/warp_grid.hpp, kernels/sampling.hpp),
// then every plane is sampled with them.
#pragma once

#include <algorithm>
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "core/tensor_views.hpp"
#include "cpu/parallel.hpp"
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

template <class T, class Grid>
void warp(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const Grid& grid, InterpolationMode mode, const Fill& fill) {
  using S = typename Grid::Sample;
  using A = kernels::acc_t<S>;
  const std::vector<A> f = fill_values<S>(fill, out.c);
  const bool nearest = mode == InterpolationMode::Nearest, has_fill = fill.has_value();
  const int iw = static_cast<int>(in.w), ih = static_cast<int>(in.h);
  const std::int64_t planes = out.n * out.c;
  parallel_for(out.h, std::max<std::int64_t>(1, (1 << 14) / std::max<std::int64_t>(out.w * planes, 1)),
               [&](std::int64_t first, std::int64_t last) {
    std::vector<kernels::BilinearTaps<A>> taps(static_cast<std::size_t>(out.w));
    std::vector<A> mask(static_cast<std::size_t>(out.w));
    for (std::int64_t oy = first; oy < last; ++oy) {
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
          dst[ox * out.stride_w] = kernels::warp_output<T, S>(v, mask[ox], nearest, has_fill, f[c]);
        }
      }
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
