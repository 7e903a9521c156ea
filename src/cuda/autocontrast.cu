// CUDA kernel of autocontrast: (1) each block finds the per-channel minimum and maximum of a
// chunk of one image, (2) one thread per (image, channel) combines the chunks into the
// parameters, (3) the pixel engine rescales. Min / max are exact in any order.
#include <math.h>

#include "cuda/color_pixels.cuh"
#include "kernels/color_dtypes.hpp"
#include "kernels/reduce.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

constexpr int kAutocontrastGroupsPerThread = 8;

template <int C, int V, class T>
__global__ void __launch_bounds__(kPixelThreads)
    minmax_kernel(DeviceImage<const T> in, PixelGrid grid, std::int64_t first_image, std::int64_t chunks,
                  kernels::MinMax<T>* partials) {
  using F = kernels::opmath_t<T>;
  __shared__ F lo_s[C][kPixelThreads];
  __shared__ F hi_s[C][kPixelThreads];
  std::uint32_t n, q;
  grid.blocks.divmod(blockIdx.x, n, q);
  const std::int64_t image = first_image + n;
  F lo[C], hi[C];
#pragma unroll
  for (int c = 0; c < C; ++c) {
    lo[c] = static_cast<F>(INFINITY);
    hi[c] = static_cast<F>(-INFINITY);
  }
  for_each_group<C, V>(in, grid, image, q, kAutocontrastGroupsPerThread, [&](const T (&x)[C][V], int count) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
      if (v < count) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
          const F value = kernels::to_opmath(x[c][v]);
          lo[c] = kernels::min_value(lo[c], value);
          hi[c] = kernels::max_value(hi[c], value);
        }
      }
    }
  });
  const int t = threadIdx.x;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    lo_s[c][t] = lo[c];
    hi_s[c][t] = hi[c];
  }
  __syncthreads();
  for (int s = kPixelThreads / 2; s > 0; s /= 2) {
    if (t < s) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        lo_s[c][t] = kernels::min_value(lo_s[c][t], lo_s[c][t + s]);
        hi_s[c][t] = kernels::max_value(hi_s[c][t], hi_s[c][t + s]);
      }
    }
    __syncthreads();
  }
  if (t < C) partials[(image * chunks + q) * C + t] = {lo_s[t][0], hi_s[t][0]};
}

template <class T>
__global__ void __launch_bounds__(256)
    autocontrast_params_kernel(const kernels::MinMax<T>* partials, std::int64_t chunks, int channels,
                               std::int64_t planes, kernels::AutocontrastChannel<T>* params) {
  const std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * 256 + threadIdx.x;
  if (p >= planes) return;
  const std::int64_t n = p / channels;
  const int c = static_cast<int>(p % channels);
  params[p] = kernels::autocontrast_finalize<T>(partials + n * chunks * channels, chunks, channels, c);
}

template <class T, int C>
void autocontrast_image(const kernels::ImageBatch& in, const kernels::ImageBatch& out, Device device,
                        const Stream& stream) {
  constexpr int V = kernels::pixel_group_size<T>();
  const kernels::PixelGroups groups = kernels::PixelGroups::make(in.h, in.w, V);
  const std::int64_t chunks = groups.chunks(kAutocontrastGroupsPerThread);
  const PixelGrid grid = make_pixel_grid(groups, kAutocontrastGroupsPerThread, chunks, "autocontrast");
  const std::int64_t planes = in.n * C;
  Scratch scratch(Scratch::aligned_bytes<kernels::MinMax<T>>(planes * chunks) +
                      Scratch::aligned_bytes<kernels::AutocontrastChannel<T>>(planes),
                  device, stream);
  kernels::MinMax<T>* partials = scratch.take<kernels::MinMax<T>>(planes * chunks);
  kernels::AutocontrastChannel<T>* params = scratch.take<kernels::AutocontrastChannel<T>>(planes);
  {
    LaunchScope scope(stream, "autocontrast");
    const DeviceImage<const T> src = device_image<const T>(in);
    for_each_image_slice(in.n, chunks, [&](std::int64_t first, std::int64_t images) {
      minmax_kernel<C, V, T><<<static_cast<unsigned>(images * chunks), kPixelThreads, 0, scope.handle()>>>(
          src, grid, first, chunks, partials);
      scope.check_launch();
    });
    autocontrast_params_kernel<T><<<static_cast<unsigned>((planes + 255) / 256), 256, 0, scope.handle()>>>(
        partials, chunks, C, planes, params);
    scope.check_launch();
  }
  launch_pixels<T>(in, out, kernels::AutocontrastApplyOp<T, C>{params}, stream, "autocontrast");
}

void autocontrast(const Tensor& input, const Tensor& output, const Stream& stream) {
  const kernels::ImageBatch in = *kernels::as_image_batch(input), out = *kernels::as_image_batch(output);
  detail::dispatch_dtype<SV_LEVELS_DTYPES>(input.dtype(), "autocontrast", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (in.c == 3) {
      autocontrast_image<T, 3>(in, out, input.device(), stream);
    } else {
      autocontrast_image<T, 1>(in, out, input.device(), stream);
    }
  });
}

SV_REGISTER_KERNEL(ops::Autocontrast, DeviceType::CUDA, &autocontrast, kernels::kLevelsDTypes);

}  // namespace

}  // namespace streamvision::cuda
