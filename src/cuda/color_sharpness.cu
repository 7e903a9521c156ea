// CUDA kernel of adjust_sharpness: one thread per output pixel, the 3x3 neighbourhood read
// through L1 (every input pixel is read by nine neighbours of the same or adjacent rows).
#include "cuda/pixels.cuh"
#include "kernels/color_sharpness.hpp"
#include "core/dtype_dispatch.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

struct RowGrid {
  kernels::FastDivmod blocks_per_row, height, channels;
  std::uint32_t h, w;
};

template <class T>
__global__ void __launch_bounds__(256)
    sharpness_kernel(DeviceImage<const T> in, DeviceImage<T> out, RowGrid g, std::int64_t first_row,
                     kernels::SharpnessParams<T> params) {
  std::uint32_t row, xb, plane, y, n, c;
  g.blocks_per_row.divmod(blockIdx.x, row, xb);
  const std::uint32_t x = xb * 256 + threadIdx.x;
  if (x >= g.w) return;
  g.height.divmod(static_cast<std::uint32_t>(first_row + row), plane, y);
  g.channels.divmod(plane, n, c);
  const T* center = in.data + n * in.stride_n + c * in.stride_c + y * in.stride_h + x * in.stride_w;
  T* dst = out.data + n * out.stride_n + c * out.stride_c + y * out.stride_h + x * out.stride_w;
  if (y == 0 || x == 0 || y + 1 == g.h || x + 1 == g.w) {
    *dst = kernels::sharpen_border(*center);
    return;
  }
  kernels::opmath_t<T> v[9];
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy) {
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) v[(dy + 1) * 3 + dx + 1] = kernels::to_opmath(center[dy * in.stride_h + dx * in.stride_w]);
  }
  *dst = kernels::sharpen<T>(v, params);
}

void adjust_sharpness(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const std::int64_t rows = in.n * in.c * in.h;
  if (rows >= (std::int64_t{1} << 31) || in.w >= (std::int64_t{1} << 31)) {
    throw Error(ErrorKind::Value, "adjust_sharpness", "image", "fewer than 2^31 rows on CUDA", std::to_string(rows) + " rows");
  }
  const std::int64_t blocks_per_row = blocks_for(in.w);
  const RowGrid g{kernels::FastDivmod(static_cast<std::uint32_t>(blocks_per_row)),
                  kernels::FastDivmod(static_cast<std::uint32_t>(in.h)), kernels::FastDivmod(static_cast<std::uint32_t>(in.c)),
                  static_cast<std::uint32_t>(in.h), static_cast<std::uint32_t>(in.w)};
  const std::int64_t rows_per_launch = std::max<std::int64_t>(1, ((std::int64_t{1} << 31) - 1) / blocks_per_row);
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_sharpness", [&](auto tag) {
    using T = typename decltype(tag)::type;
    LaunchScope scope(stream, "adjust_sharpness");
    for (std::int64_t first = 0; first < rows; first += rows_per_launch) {
      const unsigned blocks = static_cast<unsigned>(std::min(rows_per_launch, rows - first) * blocks_per_row);
      sharpness_kernel<T><<<blocks, 256, 0, scope.handle()>>>(device_image<const T>(in), device_image<T>(out), g, first,
                                                              kernels::SharpnessParams<T>::make(factor));
      scope.check_launch();
    }
  });
}

SV_REGISTER_KERNEL(ops::AdjustSharpness, DeviceType::CUDA, &adjust_sharpness, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
