// CUDA uint8 bicubic resize on torch's CPU integer path (kernels/resize_weights.hpp): a one-block
// kernel per dimension computes the double weights, their largest value, the fixed-point
// precision and the int16 weights into stream-ordered scratch; then a horizontal pass (into a
// uint8 intermediate [planes, H_in, W_out]) and a vertical pass, each a thread per output value
// with int32 accumulation. A dimension whose size does not change has no pass, as in torch.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/geometry.cuh"
#include "cuda/resize.cuh"
#include "functional/geometry_utils.hpp"
#include "kernels/resize_weights.hpp"

namespace streamvision::cuda {

namespace {

constexpr int kTableThreads = 512;

struct Int16Table {
  int* xmin;
  int* xsize;
  std::int16_t* w;  // row-major: w[i * taps + j]
  double* wd;       // double weights, same layout
  int* precision;
  int taps;
};

// blockIdx.x selects the dimension (0: tables[0], 1: tables[1]).
__global__ void __launch_bounds__(kTableThreads) int16_tables_kernel(kernels::Int16Dim d0, kernels::Int16Dim d1,
                                                                       Int16Table t0, Int16Table t1) {
  const kernels::Int16Dim& d = blockIdx.x == 0 ? d0 : d1;
  const Int16Table& t = blockIdx.x == 0 ? t0 : t1;
  __shared__ double block_max[kTableThreads];
  double local = 0.0;
  for (int i = static_cast<int>(threadIdx.x); i < d.out_size; i += kTableThreads) {
    local = fmax(local, kernels::int16_source_weights(d, i, t.xmin[i], t.xsize[i], t.wd + static_cast<std::int64_t>(i) * t.taps));
  }
  block_max[threadIdx.x] = local;
  __syncthreads();
  for (int s = kTableThreads / 2; s > 0; s /= 2) {
    if (static_cast<int>(threadIdx.x) < s) block_max[threadIdx.x] = fmax(block_max[threadIdx.x], block_max[threadIdx.x + s]);
    __syncthreads();
  }
  const int precision = kernels::int16_precision(block_max[0]);
  if (threadIdx.x == 0) *t.precision = precision;
  const std::int64_t count = static_cast<std::int64_t>(d.out_size) * t.taps;
  for (std::int64_t k = threadIdx.x; k < count; k += kTableThreads) t.w[k] = kernels::int16_weight(t.wd[k], precision);
}

struct PassArgs {
  const std::uint8_t* src;
  std::uint8_t* dst;
  PlaneSet src_planes, dst_planes;
  std::int64_t src_sh, src_sw, dst_sh, dst_sw;
  int dst_h, dst_w;
  std::uint32_t planes, planes_per_group;
  kernels::FastDivmod div_w;
  bool horizontal;
  Int16Table t;
};

__global__ void __launch_bounds__(256) int16_pass_kernel(PassArgs a) {
  const std::uint32_t pixel = blockIdx.x * 256u + threadIdx.x;
  std::uint32_t y, x;
  a.div_w.divmod(pixel, y, x);
  if (y >= static_cast<std::uint32_t>(a.dst_h)) return;
  const int i = a.horizontal ? static_cast<int>(x) : static_cast<int>(y);
  const int start = a.t.xmin[i], n = a.t.xsize[i];
  const std::int16_t* w = a.t.w + static_cast<std::int64_t>(i) * a.t.taps;
  const int precision = *a.t.precision;
  const std::int64_t step = a.horizontal ? a.src_sw : a.src_sh;
  const std::int64_t first = a.horizontal ? y * a.src_sh + start * a.src_sw : start * a.src_sh + x * a.src_sw;
  const std::int64_t dst = y * a.dst_sh + x * a.dst_sw;
  std::uint32_t p0, p1;
  plane_range(a.planes, a.planes_per_group, p0, p1);
  for (std::uint32_t p = p0; p < p1; ++p) {
    const std::uint8_t* s = a.src + a.src_planes.offset(p) + first;
    std::int32_t acc = kernels::int16_bias(precision);
    for (int j = 0; j < n; ++j) acc += static_cast<std::int32_t>(s[j * step]) * w[j];
    a.dst[a.dst_planes.offset(p) + dst] = kernels::int16_finish(acc, precision);
  }
}

void pass(const kernels::ImageBatch& src, const kernels::ImageBatch& dst, const Int16Table& t, bool horizontal,
          LaunchScope& scope, int device) {
  const std::int64_t planes = dst.n * dst.c;
  const PixelGrid g = pixel_grid(dst.h, dst.w, planes, device);
  const PassArgs a{static_cast<const std::uint8_t*>(src.data), static_cast<std::uint8_t*>(dst.data), plane_set(src),
                   plane_set(dst), src.stride_h, src.stride_w, dst.stride_h, dst.stride_w, static_cast<int>(dst.h),
                   static_cast<int>(dst.w), static_cast<std::uint32_t>(planes), g.planes_per_group, g.div_w, horizontal, t};
  int16_pass_kernel<<<g.grid, 256, 0, scope.handle()>>>(a);
  scope.check_launch();
}

}  // namespace

void resize_uint8_bicubic(const Tensor& input, const Tensor& output, bool antialias, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const bool horizontal = in.w != out.w, vertical = in.h != out.h;
  const kernels::Int16Dim dx = kernels::make_int16_dim(in.w, out.w, antialias);
  const kernels::Int16Dim dy = kernels::make_int16_dim(in.h, out.h, antialias);
  ScratchLayout layout;
  struct Offsets {
    std::int64_t xmin, xsize, w, wd, precision;
  };
  auto add = [&](const kernels::Int16Dim& d) {
    return Offsets{layout.add<int>(d.out_size), layout.add<int>(d.out_size), layout.add<std::int16_t>(std::int64_t{d.out_size} * d.max_taps),
                   layout.add<double>(std::int64_t{d.out_size} * d.max_taps), layout.add<int>(1)};
  };
  const Offsets ox = add(dx), oy = add(dy);
  const std::int64_t o_mid = horizontal && vertical ? layout.add<std::uint8_t>(out.n * out.c * in.h * out.w) : 0;
  const Tensor scratch = scratch_bytes(layout.bytes(), input, stream);
  auto table = [&](const Offsets& o, const kernels::Int16Dim& d) {
    return Int16Table{ScratchLayout::at<int>(scratch, o.xmin), ScratchLayout::at<int>(scratch, o.xsize),
                      ScratchLayout::at<std::int16_t>(scratch, o.w), ScratchLayout::at<double>(scratch, o.wd),
                      ScratchLayout::at<int>(scratch, o.precision), d.max_taps};
  };
  const Int16Table tx = table(ox, dx), ty = table(oy, dy);

  LaunchScope scope(stream, "resize");
  int16_tables_kernel<<<2, kTableThreads, 0, scope.handle()>>>(dx, dy, tx, ty);
  scope.check_launch();
  if (horizontal && vertical) {
    const kernels::ImageBatch mid = kernels::int16_intermediate(ScratchLayout::at<std::uint8_t>(scratch, o_mid), in, out);
    pass(in, mid, tx, true, scope, stream.device_index());
    pass(mid, out, ty, false, scope, stream.device_index());
  } else if (horizontal) {
    pass(in, out, tx, true, scope, stream.device_index());
  } else {
    pass(in, out, ty, false, scope, stream.device_index());
  }
}

}  // namespace streamvision::cuda
