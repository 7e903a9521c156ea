// CUDA kernels of the colour ops with a reduction, each in three steps on the op's stream:
// (1) blocks reduce chunks of one image, (2) a small kernel finalizes per image (kernels/, the
// CPU's code), (3) the pixel engine applies.
// adjust_contrast: sums of the (floored) grayscale values in a fixed thread order and tree
// (kernels/reduce.hpp: the same additions as the CPU engine), then the mean and the blend.
// autocontrast: per-channel minimum and maximum (exact in any order), then the rescale; on Hopper
// dense planes of uint8 and float types go through autocontrast_cluster.cuh in one pass instead.
// equalize: per-channel histograms in shared memory (one copy per warp, so equal neighbouring
// pixels do not serialise on one counter), one block per (image, channel) adds the partials and
// builds the lookup table (kernels/color_equalize.hpp); integer counts are exact in any order.
// Images with other than 1 or 3 channels run channel by channel.
#include <math.h>

#include <type_traits>

#include "core/dtype_dispatch.hpp"
#include "cuda/autocontrast_cluster.cuh"
#include "cuda/byte_planes.cuh"
#include "cuda/contrast_mean.cuh"
#include "cuda/pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/color_equalize.hpp"
#include "kernels/reduce.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

// ---- adjust_contrast -----------------------------------------------------------------------------

// uint8 images: the blend of a value with its image's mean is a function of the 256 values, so a
// block per image tabulates it (blend, the same arithmetic) for each channel and the apply pass
// over dense planes is byte_planes.cuh's lookup.
template <int C>
__global__ void __launch_bounds__(256)
    contrast_lut_kernel(kernels::BlendFactors<std::uint8_t> factors, const kernels::opmath_t<std::uint8_t>* means,
                        std::uint8_t* luts) {
  const std::int64_t n = blockIdx.x;
  const std::uint8_t y = kernels::blend(static_cast<std::uint8_t>(threadIdx.x), means[n], factors);
#pragma unroll
  for (int c = 0; c < C; ++c) luts[(n * C + c) * 256 + threadIdx.x] = y;
}

template <class T, int C>
void contrast(const kernels::ImageBatch& in, const kernels::ImageBatch& out, double factor, Device device,
              const Stream& stream) {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (dense_byte_planes(in) && dense_byte_planes(out) && in.h * in.w > 0) {
      // The means from byte_planes.cuh's integer sums (the same sums contrast_means makes), then a
      // table per image and channel, then the lookup.
      const std::int64_t chunks = byte_plane_chunks(in);
      Scratch scratch(Scratch::aligned_bytes<std::uint64_t>(in.n * chunks) + Scratch::aligned_bytes<float>(in.n) +
                          Scratch::aligned_bytes<std::uint8_t>(in.n * C * 256),
                      device, stream);
      std::uint64_t* partials = scratch.take<std::uint64_t>(in.n * chunks);
      float* means = scratch.take<float>(in.n);
      std::uint8_t* luts = scratch.take<std::uint8_t>(in.n * C * 256);
      LaunchScope scope(stream, "adjust_contrast");
      for_each_image_slice(in.n, chunks, [&](std::int64_t first, std::int64_t images) {
        byte_plane_gray_sum_kernel<C><<<static_cast<unsigned>(images * chunks), kBytePlaneThreads, 0, scope.handle()>>>(
            in, first, chunks, partials, 0x4b000000u);
        scope.check_launch();
      });
      contrast_mean_kernel<T><<<blocks_for(in.n), kBlockThreads, 0, scope.handle()>>>(partials, chunks, in.h * in.w, in.n, means);
      scope.check_launch();
      contrast_lut_kernel<C><<<static_cast<unsigned>(in.n), 256, 0, scope.handle()>>>(kernels::BlendFactors<T>::make(factor),
                                                                                       means, luts);
      scope.check_launch();
      apply_byte_plane_luts<C>(in, out, luts, C * 256, scope);
      return;
    }
  }
  Scratch scratch(contrast_means_scratch_bytes<T>(in), device, stream);
  const kernels::opmath_t<T>* means = contrast_means<T, C>(in, scratch, stream, "adjust_contrast");
  launch_pixels<T>(in, out, kernels::ContrastApplyOp<T, C>{kernels::BlendFactors<T>::make(factor), means}, stream,
                   "adjust_contrast");
}

void adjust_contrast(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_contrast", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (in.c == 3) {
      contrast<T, 3>(in, out, factor, input.device(), stream);
    } else {
      contrast<T, 1>(in, out, factor, input.device(), stream);
    }
  });
}

SV_REGISTER_KERNEL(ops::AdjustContrast, DeviceType::CUDA, &adjust_contrast, detail::ColorDTypes::set);


// ---- autocontrast --------------------------------------------------------------------------------

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
  const std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (p >= planes) return;
  const std::int64_t n = p / channels;
  const int c = static_cast<int>(p % channels);
  params[p] = kernels::autocontrast_finalize<T>(partials + n * chunks * channels, chunks, channels, c);
}

// uint8 images: each (image, channel)'s rescale is a function of the 256 values, so a block per
// plane tabulates it (autocontrast_value, the same arithmetic) and the pixel pass only looks up:
// no division per pixel (the apply pass divided three times per pixel and was compute-bound).
__global__ void __launch_bounds__(256)
    autocontrast_lut_kernel(const kernels::MinMax<std::uint8_t>* partials, std::int64_t chunks, int channels,
                            std::uint8_t* luts) {
  __shared__ kernels::AutocontrastChannel<std::uint8_t> p;
  const std::int64_t plane = blockIdx.x;
  const std::int64_t n = plane / channels;
  const int c = static_cast<int>(plane % channels);
  if (threadIdx.x == 0) p = kernels::autocontrast_finalize<std::uint8_t>(partials + n * chunks * channels, chunks, channels, c);
  __syncthreads();
  luts[plane * 256 + threadIdx.x] = kernels::autocontrast_value(static_cast<std::uint8_t>(threadIdx.x), p);
}

// uint8 images of dense planes: the byte-plane kernels (byte_planes.cuh), the same three steps.
template <int C>
void autocontrast_byte_planes(const kernels::ImageBatch& in, const kernels::ImageBatch& out, Device device,
                              const Stream& stream) {
  const std::int64_t chunks = byte_plane_chunks(in);
  const std::int64_t planes = in.n * C;
  Scratch scratch(Scratch::aligned_bytes<kernels::MinMax<std::uint8_t>>(planes * chunks) +
                      Scratch::aligned_bytes<std::uint8_t>(planes * 256),
                  device, stream);
  kernels::MinMax<std::uint8_t>* partials = scratch.take<kernels::MinMax<std::uint8_t>>(planes * chunks);
  std::uint8_t* luts = scratch.take<std::uint8_t>(planes * 256);
  LaunchScope scope(stream, "autocontrast");
  for_each_image_slice(in.n, chunks, [&](std::int64_t first, std::int64_t images) {
    byte_plane_minmax_kernel<C><<<static_cast<unsigned>(images * chunks), kBytePlaneThreads, 0, scope.handle()>>>(
        in, first, chunks, partials);
    scope.check_launch();
  });
  autocontrast_lut_kernel<<<static_cast<unsigned>(planes), 256, 0, scope.handle()>>>(partials, chunks, C, luts);
  scope.check_launch();
  apply_byte_plane_luts<C>(in, out, luts, C * 256, scope);
}

template <class T, int C>
void autocontrast_image(const kernels::ImageBatch& in, const kernels::ImageBatch& out, Device device,
                        const Stream& stream) {
  if (autocontrast_in_clusters<T>(in, out, C, stream)) return;
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (dense_byte_planes(in) && dense_byte_planes(out) && in.h * in.w > 0) return autocontrast_byte_planes<C>(in, out, device, stream);
  }
  constexpr int V = kernels::pixel_group_size<T>();
  const kernels::PixelGroups groups = kernels::PixelGroups::make(in.h, in.w, V);
  const std::int64_t chunks = groups.chunks(kAutocontrastGroupsPerThread);
  const PixelGrid grid = make_pixel_grid(groups, kAutocontrastGroupsPerThread, chunks, "autocontrast");
  const std::int64_t planes = in.n * C;
  constexpr bool kTable = std::is_same_v<T, std::uint8_t>;
  Scratch scratch(Scratch::aligned_bytes<kernels::MinMax<T>>(planes * chunks) +
                      (kTable ? Scratch::aligned_bytes<std::uint8_t>(planes * 256)
                              : Scratch::aligned_bytes<kernels::AutocontrastChannel<T>>(planes)),
                  device, stream);
  kernels::MinMax<T>* partials = scratch.take<kernels::MinMax<T>>(planes * chunks);
  LaunchScope scope(stream, "autocontrast");
  const DeviceImage<const T> src = device_image<const T>(in);
  for_each_image_slice(in.n, chunks, [&](std::int64_t first, std::int64_t images) {
    minmax_kernel<C, V, T><<<static_cast<unsigned>(images * chunks), kPixelThreads, 0, scope.handle()>>>(
        src, grid, first, chunks, partials);
    scope.check_launch();
  });
  if constexpr (kTable) {
    std::uint8_t* luts = scratch.take<std::uint8_t>(planes * 256);
    autocontrast_lut_kernel<<<static_cast<unsigned>(planes), 256, 0, scope.handle()>>>(partials, chunks, C, luts);
    scope.check_launch();
    launch_pixels<T>(in, out, kernels::make_equalize_apply_op<T, C>(luts, C * 256), stream, "autocontrast");
  } else {
    kernels::AutocontrastChannel<T>* params = scratch.take<kernels::AutocontrastChannel<T>>(planes);
    autocontrast_params_kernel<T><<<blocks_for(planes), kBlockThreads, 0, scope.handle()>>>(
        partials, chunks, C, planes, params);
    scope.check_launch();
    launch_pixels<T>(in, out, kernels::AutocontrastApplyOp<T, C>{params}, stream, "autocontrast");
  }
}

void autocontrast(const Tensor& input, const Tensor& output, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  detail::LevelsDTypes::dispatch(input.dtype(), "autocontrast", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (in.c == 3) {
      autocontrast_image<T, 3>(in, out, input.device(), stream);
    } else {
      autocontrast_image<T, 1>(in, out, input.device(), stream);
    }
  });
}

SV_REGISTER_KERNEL(ops::Autocontrast, DeviceType::CUDA, &autocontrast, detail::LevelsDTypes::set);


// ---- equalize ------------------------------------------------------------------------------------

constexpr int kBins = kernels::kEqualizeBins;
constexpr int kReplicas = kPixelThreads / 32;  // one histogram per warp
static_assert(kPixelThreads == kBins, "thread t sums and writes bin t");

template <int C, int V, class T>
__global__ void __launch_bounds__(kPixelThreads)
    histogram_kernel(DeviceImage<const T> in, PixelGrid grid, std::int64_t first_image, std::int64_t chunks,
                     int groups_per_thread, kernels::ToDtypeOp<T, std::uint8_t> to_u8, std::uint32_t* partials) {
  __shared__ std::uint32_t hist[kReplicas][C][kBins];
  const int t = threadIdx.x;
  for (int i = t; i < kReplicas * C * kBins; i += kPixelThreads) (&hist[0][0][0])[i] = 0;
  __syncthreads();
  std::uint32_t n, q;
  grid.blocks.divmod(blockIdx.x, n, q);
  const std::int64_t image = first_image + n;
  const int r = t / 32;
  for_each_group<C, V>(in, grid, image, q, groups_per_thread, [&](const T (&x)[C][V], int count) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
      if (v < count) {
#pragma unroll
        for (int c = 0; c < C; ++c) atomicAdd(&hist[r][c][to_u8(x[c][v], 0u)], 1u);
      }
    }
  });
  __syncthreads();
#pragma unroll
  for (int c = 0; c < C; ++c) {
    std::uint32_t sum = 0;
#pragma unroll
    for (int k = 0; k < kReplicas; ++k) sum += hist[k][c][t];
    partials[((image * chunks + q) * C + c) * kBins + t] = sum;
  }
}

// One block per (image, channel): the image's histogram, then its table.
__global__ void __launch_bounds__(kBins)
    lut_kernel(const std::uint32_t* partials, std::int64_t chunks, int channels, std::uint8_t* luts,
               std::int64_t lut_stride) {
  __shared__ std::uint32_t hist[kBins];
  __shared__ std::uint8_t lut[kBins];
  const std::int64_t image = blockIdx.x / channels;
  const int c = static_cast<int>(blockIdx.x % channels);
  const int t = threadIdx.x;
  std::uint32_t sum = 0;
  for (std::int64_t q = 0; q < chunks; ++q) sum += partials[((image * chunks + q) * channels + c) * kBins + t];
  hist[t] = sum;
  __syncthreads();
  if (t == 0) kernels::equalize_lut(hist, lut);
  __syncthreads();
  luts[image * lut_stride + c * kBins + t] = lut[t];
}

// Histogram + table for the C channels of `in` (C = 1 or 3), written at luts + image * lut_stride.
template <class T, int C>
void build_luts(const kernels::ImageBatch& in, std::uint32_t* partials, std::int64_t chunks, int groups_per_thread,
                std::uint8_t* luts, std::int64_t lut_stride, const Stream& stream) {
  constexpr int V = kernels::pixel_group_size<T>();
  const kernels::PixelGroups groups = kernels::PixelGroups::make(in.h, in.w, V);
  const PixelGrid grid = make_pixel_grid(groups, groups_per_thread, chunks, "equalize");
  const auto to_u8 = kernels::make_equalize_apply_op<T, C>(nullptr, 0).to_u8;
  LaunchScope scope(stream, "equalize");
  const DeviceImage<const T> src = device_image<const T>(in);
  for_each_image_slice(in.n, chunks, [&](std::int64_t first, std::int64_t images) {
    histogram_kernel<C, V, T><<<static_cast<unsigned>(images * chunks), kPixelThreads, 0, scope.handle()>>>(
        src, grid, first, chunks, groups_per_thread, to_u8, partials);
    scope.check_launch();
  });
  // One block per (image, channel); at most 2^31 - 1 blocks per launch.
  const std::int64_t per_launch = ((std::int64_t{1} << 31) - 1) / C;
  for (std::int64_t first = 0; first < in.n; first += per_launch) {
    const std::int64_t images = std::min(per_launch, in.n - first);
    lut_kernel<<<static_cast<unsigned>(images * C), kBins, 0, scope.handle()>>>(
        partials + first * chunks * C * kBins, chunks, C, luts + first * lut_stride, lut_stride);
    scope.check_launch();
  }
}

template <class T>
void equalize_image(const kernels::ImageBatch& in, const kernels::ImageBatch& out, Device device,
                    const Stream& stream) {
  constexpr int V = kernels::pixel_group_size<T>();
  const kernels::PixelGroups groups = kernels::PixelGroups::make(in.h, in.w, V);
  // Enough blocks to fill the device several times over, few partial histograms.
  const std::int64_t target = 4 * static_cast<std::int64_t>(multiprocessor_count(stream.device_index()));
  const std::int64_t max_chunks = std::max<std::int64_t>(1, (groups.count + kPixelThreads - 1) / kPixelThreads);
  std::int64_t chunks = std::clamp<std::int64_t>((target + in.n - 1) / in.n, 1, max_chunks);
  const int groups_per_thread = static_cast<int>((groups.count + chunks * kPixelThreads - 1) / (chunks * kPixelThreads));
  chunks = groups.chunks(groups_per_thread);
  const bool fused = in.c == 1 || in.c == 3;
  const std::int64_t hist_channels = fused ? in.c : 1;
  Scratch scratch(Scratch::aligned_bytes<std::uint32_t>(in.n * chunks * hist_channels * kBins) +
                      Scratch::aligned_bytes<std::uint8_t>(in.n * in.c * kBins),
                  device, stream);
  std::uint32_t* partials = scratch.take<std::uint32_t>(in.n * chunks * hist_channels * kBins);
  std::uint8_t* luts = scratch.take<std::uint8_t>(in.n * in.c * kBins);
  const std::int64_t lut_stride = in.c * kBins;
  // uint8 images of dense planes look their tables up 16 bytes a thread (byte_planes.cuh).
  const bool byte_planes = std::is_same_v<T, std::uint8_t> && dense_byte_planes(in) && dense_byte_planes(out) && in.h * in.w > 0;
  auto apply_bytes = [&](auto channels) {
    LaunchScope scope(stream, "equalize");
    apply_byte_plane_luts<decltype(channels)::value>(in, out, luts, lut_stride, scope);
  };
  if (in.c == 3) {
    build_luts<T, 3>(in, partials, chunks, groups_per_thread, luts, lut_stride, stream);
    if (byte_planes) {
      apply_bytes(std::integral_constant<int, 3>{});
    } else {
      launch_pixels<T>(in, out, kernels::make_equalize_apply_op<T, 3>(luts, lut_stride), stream, "equalize");
    }
  } else if (in.c == 1) {
    build_luts<T, 1>(in, partials, chunks, groups_per_thread, luts, lut_stride, stream);
    if (byte_planes) {
      apply_bytes(std::integral_constant<int, 1>{});
    } else {
      launch_pixels<T>(in, out, kernels::make_equalize_apply_op<T, 1>(luts, lut_stride), stream, "equalize");
    }
  } else {
    for (std::int64_t c = 0; c < in.c; ++c) {  // the partial histograms are reused, in stream order
      kernels::ImageBatch in_c = in, out_c = out;
      in_c.data = static_cast<T*>(in.data) + c * in.stride_c;
      out_c.data = static_cast<T*>(out.data) + c * out.stride_c;
      in_c.c = out_c.c = 1;
      build_luts<T, 1>(in_c, partials, chunks, groups_per_thread, luts + c * kBins, lut_stride, stream);
      launch_pixels<T>(in_c, out_c, kernels::make_equalize_apply_op<T, 1>(luts + c * kBins, lut_stride), stream,
                       "equalize");
    }
  }
}

void equalize(const Tensor& input, const Tensor& output, const Stream& stream) {
  detail::ColorDTypes::dispatch(input.dtype(), "equalize", [&](auto tag) {
    equalize_image<typename decltype(tag)::type>(detail::image_batch(input), detail::image_batch(output),
                                                 input.device(), stream);
  });
}

SV_REGISTER_KERNEL(ops::Equalize, DeviceType::CUDA, &equalize, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
