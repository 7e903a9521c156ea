// Internal: adjust_contrast's per-image means on CUDA (the grayscale values' sum in a fixed thread
// order and tree, kernels/reduce.hpp, the same additions as the CPU engine; then the mean), shared
// by adjust_contrast (color_reduce.cu) and the per-sample colour jitter (batch_jitter.cu), so that
// both blend with the same bits.
#pragma once

#include "cuda/pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/reduce.hpp"

namespace streamvision::cuda {

// The identity: the means of the images as they are.
struct AsIs {
  template <class T, int C>
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t, T (&)[C]) const {}
};

// `pre(n, px)` rewrites a pixel of image n before it counts: the means of images that pointwise
// ops would make, without making them (the per-sample jitter's contrast step, batch_jitter.cu).
// It may bind per image (for_image, pixels.cuh).
// Groups per thread: the CPU engine's fixed order for floating-point sums; integer sums are exact in
// any order, so small integer images take one group per thread (a 224x224 uint8 image was two
// blocks of eight groups a thread: a 256-image batch left most of the GPU idle).
template <class T>
int contrast_groups_per_thread(const kernels::PixelGroups& groups) {
  if constexpr (kernels::is_float_like<T>) {
    return kernels::kContrastGroupsPerThread;
  } else {
    return groups.count < (std::int64_t{1} << 16) ? 1 : kernels::kContrastGroupsPerThread;
  }
}

template <int C, int V, class T, class Pre>
__global__ void __launch_bounds__(kPixelThreads)
    contrast_reduce_kernel(DeviceImage<const T> in, PixelGrid grid, std::int64_t first_image, std::int64_t chunks,
                           int groups_per_thread, kernels::ContrastAcc<T>* partials, Pre pre) {
  using Acc = kernels::ContrastAcc<T>;
  __shared__ Acc sums[kPixelThreads];
  std::uint32_t n, q;
  grid.blocks.divmod(blockIdx.x, n, q);
  const std::int64_t image = first_image + n;
  Acc acc = 0;
  const auto rewrite = for_image(pre, image);
  for_each_group<C, V>(in, grid, image, q, groups_per_thread, [&](const T (&x)[C][V], int count) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
      if (v < count) {
        T px[C];
#pragma unroll
        for (int c = 0; c < C; ++c) px[c] = x[c][v];
        rewrite(image, px);
        acc += kernels::contrast_value<T, C>(px);
      }
    }
  });
  const int t = threadIdx.x;
  sums[t] = acc;
  __syncthreads();
  for (int s = kPixelThreads / 2; s > 0; s /= 2) {
    if (t < s) sums[t] += sums[t + s];
    __syncthreads();
  }
  if (t == 0) partials[image * chunks + q] = sums[0];
}

template <class T>
__global__ void __launch_bounds__(256)
    contrast_mean_kernel(const kernels::ContrastAcc<T>* partials, std::int64_t chunks, std::int64_t pixels,
                         std::int64_t images, kernels::opmath_t<T>* means) {
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (n < images) means[n] = kernels::contrast_mean<T>(partials + n * chunks, chunks, pixels);
}

template <class T>
std::int64_t contrast_means_scratch_bytes(const kernels::ImageBatch& in) {
  constexpr int V = kernels::pixel_group_size<T>();
  const kernels::PixelGroups groups = kernels::PixelGroups::make(in.h, in.w, V);
  const std::int64_t chunks = groups.chunks(contrast_groups_per_thread<T>(groups));
  return Scratch::aligned_bytes<kernels::ContrastAcc<T>>(in.n * chunks) + Scratch::aligned_bytes<kernels::opmath_t<T>>(in.n);
}

// The means of every image of `in` (C = 1 or 3 channels), each pixel first rewritten by `pre`,
// in `scratch` (contrast_means_scratch_bytes).
template <class T, int C, class Pre = AsIs>
const kernels::opmath_t<T>* contrast_means(const kernels::ImageBatch& in, Scratch& scratch, const Stream& stream,
                                           const char* op, const Pre& pre = Pre{}) {
  using Acc = kernels::ContrastAcc<T>;
  constexpr int V = kernels::pixel_group_size<T>();
  const kernels::PixelGroups groups = kernels::PixelGroups::make(in.h, in.w, V);
  const int per_thread = contrast_groups_per_thread<T>(groups);
  const std::int64_t chunks = groups.chunks(per_thread);
  const PixelGrid grid = make_pixel_grid(groups, per_thread, chunks, op);
  Acc* partials = scratch.take<Acc>(in.n * chunks);
  kernels::opmath_t<T>* means = scratch.take<kernels::opmath_t<T>>(in.n);
  LaunchScope scope(stream, op);
  const DeviceImage<const T> src = device_image<const T>(in);
  for_each_image_slice(in.n, chunks, [&](std::int64_t first, std::int64_t images) {
    contrast_reduce_kernel<C, V, T, Pre><<<static_cast<unsigned>(images * chunks), kPixelThreads, 0, scope.handle()>>>(
        src, grid, first, chunks, per_thread, partials, pre);
    scope.check_launch();
  });
  contrast_mean_kernel<T><<<blocks_for(in.n), kBlockThreads, 0, scope.handle()>>>(partials, chunks, in.h * in.w, in.n,
                                                                                 means);
  scope.check_launch();
  return means;
}

}  // namespace streamvision::cuda
