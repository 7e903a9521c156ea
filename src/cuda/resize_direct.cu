// CUDA resize: the registered kernel, and the per-pixel modes (nearest, nearest-exact, bilinear
// and bicubic without antialias). A thread computes its output pixel's source taps once
// (kernels/resize_weights.hpp) and applies them to a group of planes.
#include <cuda_runtime.h>

#include "core/dtype_dispatch.hpp"
#include "cuda/geometry.cuh"
#include "cuda/resize.cuh"
#include "core/tensor_views.hpp"
#include "kernels/resize_weights.hpp"
#include "streamvision/functional/resize.hpp"

namespace streamvision::cuda {

namespace {

template <class T>
struct DirectArgs {
  kernels::PlaneView<T> in;  // plane 0
  kernels::PlaneView<T, T*> out;
  PlaneSet in_planes, out_planes;
  int in_h, in_w, out_h;
  std::uint32_t planes, planes_per_group;
  kernels::FastDivmod div_w;
};

struct NearestSampler {
  float scale_y, scale_x;
  bool exact;
  template <class T>
  __device__ SV_FORCE_INLINE void run(const DirectArgs<T>& a, int ox, int oy, std::uint32_t first, std::uint32_t last) const {
    const int sy = kernels::nearest_source(oy, scale_y, a.in_h, exact), sx = kernels::nearest_source(ox, scale_x, a.in_w, exact);
    for (std::uint32_t p = first; p < last; ++p) a.out_planes.plane(a.out, p).at(oy, ox) = a.in_planes.plane(a.in, p).at(sy, sx);
  }
};

template <class A>
struct LinearSampler {
  A scale_y, scale_x;
  template <class T>
  __device__ SV_FORCE_INLINE void run(const DirectArgs<T>& a, int ox, int oy, std::uint32_t first, std::uint32_t last) const {
    const kernels::LinearTaps<A> ty = kernels::linear_taps(scale_y, oy, a.in_h, a.in.stride_h);
    const kernels::LinearTaps<A> tx = kernels::linear_taps(scale_x, ox, a.in_w, a.in.stride_w);
    for (std::uint32_t p = first; p < last; ++p) {
      a.out_planes.plane(a.out, p).at(oy, ox) = kernels::linear_resize_sample(a.in_planes.plane(a.in, p), ty, tx);
    }
  }
};

template <class A>
struct CubicSampler {
  A scale_y, scale_x;
  template <class T>
  __device__ SV_FORCE_INLINE void run(const DirectArgs<T>& a, int ox, int oy, std::uint32_t first, std::uint32_t last) const {
    const kernels::CubicTaps<A> ty = kernels::cubic_taps(scale_y, oy, a.in_h, a.in.stride_h);
    const kernels::CubicTaps<A> tx = kernels::cubic_taps(scale_x, ox, a.in_w, a.in.stride_w);
    for (std::uint32_t p = first; p < last; ++p) {
      a.out_planes.plane(a.out, p).at(oy, ox) = kernels::cubic_resize_sample(a.in_planes.plane(a.in, p), ty, tx);
    }
  }
};

template <class T, class Sampler>
__global__ void __launch_bounds__(kBlockThreads) direct_kernel(DirectArgs<T> a, Sampler sampler) {
  const std::uint32_t pixel = blockIdx.x * kBlockThreads + threadIdx.x;
  std::uint32_t oy, ox;
  a.div_w.divmod(pixel, oy, ox);
  if (oy >= static_cast<std::uint32_t>(a.out_h)) return;
  std::uint32_t first, last;
  plane_range(a.planes, a.planes_per_group, first, last);
  sampler.run(a, static_cast<int>(ox), static_cast<int>(oy), first, last);
}

template <class T, class Sampler>
void launch_direct(const Tensor& input, const Tensor& output, const Sampler& sampler, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const std::int64_t planes = out.n * out.c;
  const PixelMajorGrid g = pixel_major_grid(out.h, out.w, planes, stream.device_index());
  DirectArgs<T> a{kernels::plane_view<T>(in, 0, 0), kernels::plane_view<T, T*>(out, 0, 0), plane_set(in), plane_set(out),
                  static_cast<int>(in.h), static_cast<int>(in.w), static_cast<int>(out.h),
                  static_cast<std::uint32_t>(planes), g.planes_per_group, g.div_w};
  LaunchScope scope(stream, "resize");
  direct_kernel<T, Sampler><<<g.grid, kBlockThreads, 0, scope.handle()>>>(a, sampler);
  scope.check_launch();
}

void resize(const Tensor& input, const Tensor& output, InterpolationMode mode, bool antialias, const Stream& stream) {
  if (mode == InterpolationMode::Bicubic && input.dtype() == DType::UInt8) {
    resize_uint8_bicubic(input, output, antialias, stream);
  } else if (antialias) {
    if (mode == InterpolationMode::Bilinear && resize_tiled(input, output, stream)) return;
    resize_antialias(input, output, mode, stream);
  } else {
    resize_direct(input, output, mode, stream);
  }
}

SV_REGISTER_KERNEL(ops::Resize, DeviceType::CUDA, &resize, detail::GeometryDTypes::set);

}  // namespace

void resize_direct(const Tensor& input, const Tensor& output, InterpolationMode mode, const Stream& stream) {
  if (mode == InterpolationMode::Nearest || mode == InterpolationMode::NearestExact) {
    const NearestSampler s{kernels::nearest_scale(input.size(-2), output.size(-2)),
                           kernels::nearest_scale(input.size(-1), output.size(-1)), mode == InterpolationMode::NearestExact};
    detail::dispatch_itemsize(input.itemsize(), [&](auto tag) { launch_direct<typename decltype(tag)::type>(input, output, s, stream); });
    return;
  }
  detail::GeometryDTypes::dispatch(input.dtype(), "resize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = kernels::acc_t<T>;
    const A sy = kernels::area_scale<A>(input.size(-2), output.size(-2));
    const A sx = kernels::area_scale<A>(input.size(-1), output.size(-1));
    if (mode == InterpolationMode::Bilinear) {
      launch_direct<T>(input, output, LinearSampler<A>{sy, sx}, stream);
    } else if constexpr (!std::is_same_v<T, std::uint8_t>) {  // uint8 bicubic takes the integer path
      launch_direct<T>(input, output, CubicSampler<A>{sy, sx}, stream);
    }
  });
}

}  // namespace streamvision::cuda
