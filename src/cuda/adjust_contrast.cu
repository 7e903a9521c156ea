// CUDA kernel of adjust_contrast: (1) each block sums the (floored) grayscale values of a chunk
// of one image (fixed thread order and tree, kernels/reduce.hpp: the same additions as the CPU
// engine), (2) one thread per image adds its chunks and forms the mean, (3) the pixel engine
// blends. Everything stays on the device, on the op's stream.
#include "cuda/color_pixels.cuh"
#include "kernels/color_dtypes.hpp"
#include "kernels/reduce.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

template <int C, int V, class T>
__global__ void __launch_bounds__(kPixelThreads)
    contrast_reduce_kernel(DeviceImage<const T> in, PixelGrid grid, std::int64_t first_image, std::int64_t chunks,
                           kernels::ContrastAcc<T>* partials) {
  using Acc = kernels::ContrastAcc<T>;
  __shared__ Acc sums[kPixelThreads];
  std::uint32_t n, q;
  grid.blocks.divmod(blockIdx.x, n, q);
  const std::int64_t image = first_image + n;
  Acc acc = 0;
  for_each_group<C, V>(in, grid, image, q, kernels::kContrastGroupsPerThread, [&](const T (&x)[C][V], int count) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
      if (v < count) {
        T px[C];
#pragma unroll
        for (int c = 0; c < C; ++c) px[c] = x[c][v];
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
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * 256 + threadIdx.x;
  if (n < images) means[n] = kernels::contrast_mean<T>(partials + n * chunks, chunks, pixels);
}

template <class T, int C>
void contrast(const kernels::ImageBatch& in, const kernels::ImageBatch& out, double factor, Device device,
              const Stream& stream) {
  using Acc = kernels::ContrastAcc<T>;
  constexpr int V = kernels::pixel_group_size<T>();
  const kernels::PixelGroups groups = kernels::PixelGroups::make(in.h, in.w, V);
  const std::int64_t chunks = groups.chunks(kernels::kContrastGroupsPerThread);
  const PixelGrid grid = make_pixel_grid(groups, kernels::kContrastGroupsPerThread, chunks, "adjust_contrast");
  Scratch scratch(Scratch::aligned_bytes<Acc>(in.n * chunks) + Scratch::aligned_bytes<kernels::opmath_t<T>>(in.n),
                  device, stream);
  Acc* partials = scratch.take<Acc>(in.n * chunks);
  kernels::opmath_t<T>* means = scratch.take<kernels::opmath_t<T>>(in.n);
  {
    LaunchScope scope(stream, "adjust_contrast");
    const DeviceImage<const T> src = device_image<const T>(in);
    for_each_image_slice(in.n, chunks, [&](std::int64_t first, std::int64_t images) {
      contrast_reduce_kernel<C, V, T><<<static_cast<unsigned>(images * chunks), kPixelThreads, 0, scope.handle()>>>(
          src, grid, first, chunks, partials);
      scope.check_launch();
    });
    contrast_mean_kernel<T><<<static_cast<unsigned>((in.n + 255) / 256), 256, 0, scope.handle()>>>(
        partials, chunks, in.h * in.w, in.n, means);
    scope.check_launch();
  }
  launch_pixels<T>(in, out, kernels::ContrastApplyOp<T, C>{kernels::BlendFactors<T>::make(factor), means}, stream,
                   "adjust_contrast");
}

void adjust_contrast(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  const kernels::ImageBatch in = *kernels::as_image_batch(input), out = *kernels::as_image_batch(output);
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_contrast", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (in.c == 3) {
      contrast<T, 3>(in, out, factor, input.device(), stream);
    } else {
      contrast<T, 1>(in, out, factor, input.device(), stream);
    }
  });
}

SV_REGISTER_KERNEL(ops::AdjustContrast, DeviceType::CUDA, &adjust_contrast, kernels::kColorDTypes);

}  // namespace

}  // namespace streamvision::cuda
