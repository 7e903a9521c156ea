// Internal: the CUDA warp kernel shared by affine (and rotate off the right angles: affine.cu),
// perspective.cu and elastic.cu. A thread maps its output pixel to a
// source point once (the Grid, kernels/warp_grid.hpp), computes the nearest tap or the four
// bilinear taps and the coverage mask once, then samples a group of planes with them in the
// grid's Sample dtype (kernels/sampling.hpp, kernels/warp_grid.hpp). Per-call parameters (grid
// coefficients, per-channel fill) travel by value in the kernel arguments.
#pragma once

#include <cuda_runtime.h>

#include "core/dtype_dispatch.hpp"
#include "cuda/geometry.cuh"
#include "core/tensor_views.hpp"
#include "kernels/border.hpp"
#include "kernels/warp_grid.hpp"
#include "streamvision/functional/geometry.hpp"

namespace streamvision::cuda {

template <class T>
struct WarpArgs {
  using A = kernels::acc_t<T>;
  kernels::ImageBatch in, out;
  PlaneSet in_planes, out_planes;
  std::uint32_t planes, planes_per_group;
  kernels::FastDivmod div_w, div_c;
  bool nearest, has_fill;
  A fill[kernels::kMaxFillValues];
  int fill_count;
};

template <class T, class Grid>
__global__ void __launch_bounds__(kBlockThreads) warp_kernel(WarpArgs<T> a, Grid grid) {
  using A = kernels::acc_t<typename Grid::Sample>;
  const std::uint32_t pixel = blockIdx.x * kBlockThreads + threadIdx.x;
  std::uint32_t oy, ox;
  a.div_w.divmod(pixel, oy, ox);
  if (oy >= static_cast<std::uint32_t>(a.out.h)) return;
  const int in_w = static_cast<int>(a.in.w), in_h = static_cast<int>(a.in.h);
  A ix, iy;
  grid.source(static_cast<int>(ox), static_cast<int>(oy), ix, iy);
  kernels::BilinearTaps<A> taps;
  A mask = 0;
  if (a.nearest) {
    kernels::nearest_tap(ix, iy, in_w, in_h, taps.x0, taps.y0);
    mask = taps.x0 >= 0 ? A(1) : A(0);
  } else {
    taps = kernels::bilinear_taps(ix, iy, in_w, in_h);
    if (a.has_fill) mask = kernels::bilinear_mask(taps);
  }
  const std::int64_t dst = oy * a.out.stride_h + ox * a.out.stride_w;
  const T* in = static_cast<const T*>(a.in.data);
  T* out = static_cast<T*>(a.out.data);
  std::uint32_t first, last;
  plane_range(a.planes, a.planes_per_group, first, last);
  for (std::uint32_t p = first; p < last; ++p) {
    const kernels::PlaneView<T> src{in + a.in_planes.offset(p), a.in.stride_h, a.in.stride_w};
    A v;
    if (a.nearest) {
      v = taps.x0 >= 0 ? kernels::load_as<A>(src.at(taps.y0, taps.x0)) : A(0);
    } else {
      v = kernels::bilinear_sample(src, taps);
    }
    A fill = 0;
    if (a.has_fill) {
      std::uint32_t n, c;
      a.div_c.divmod(p, n, c);
      fill = a.fill[a.fill_count == 1 ? 0 : c];
    }
    out[a.out_planes.offset(p) + dst] = kernels::warp_output<T, typename Grid::Sample>(v, mask, a.nearest, a.has_fill, fill);
  }
}

// Launches the warp of `input` into `output` (both [N, C, H, W] image batches) for image dtype T.
template <class T, class Grid>
void launch_warp(const Tensor& input, const Tensor& output, const Grid& grid, InterpolationMode mode, const Fill& fill,
                 const Stream& stream, const char* op) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const std::int64_t planes = out.n * out.c;
  const PixelMajorGrid g = pixel_major_grid(out.h, out.w, planes, stream.device_index());
  WarpArgs<T> a{};
  a.in = in;
  a.out = out;
  a.in_planes = plane_set(in);
  a.out_planes = plane_set(out);
  a.planes = static_cast<std::uint32_t>(planes);
  a.planes_per_group = g.planes_per_group;
  a.div_w = g.div_w;
  a.div_c = kernels::FastDivmod(static_cast<std::uint32_t>(std::max<std::int64_t>(out.c, 1)));
  a.nearest = mode == InterpolationMode::Nearest;
  a.has_fill = fill.has_value();
  a.fill_count = fill ? static_cast<int>(fill->size()) : 1;
  if (fill) {
    for (std::size_t k = 0; k < fill->size() && k < kernels::kMaxFillValues; ++k) {
      a.fill[k] = kernels::fill_in_image_dtype<typename Grid::Sample>((*fill)[k]);
    }
  }
  LaunchScope scope(stream, op);
  warp_kernel<T, Grid><<<g.grid, kBlockThreads, 0, scope.handle()>>>(a, grid);
  scope.check_launch();
}

}  // namespace streamvision::cuda
