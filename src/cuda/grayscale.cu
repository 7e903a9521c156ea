// CUDA kernels of rgb_to_grayscale (3 channels -> 1 or 3) and adjust_saturation: the pixel
// engine over the functors of kernels/color.hpp.
#include "cuda/color_pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/color_dtypes.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

kernels::ImageBatch batch_of(const Tensor& t) { return *kernels::as_image_batch(t); }

void rgb_to_grayscale(const Tensor& input, const Tensor& output, const Stream& stream) {
  const kernels::ImageBatch in = batch_of(input), out = batch_of(output);
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "rgb_to_grayscale", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out.c == 1) {
      launch_pixels<T>(in, out, kernels::GrayscaleOp<T, 1>{}, stream, "rgb_to_grayscale");
    } else {
      launch_pixels<T>(in, out, kernels::GrayscaleOp<T, 3>{}, stream, "rgb_to_grayscale");
    }
  });
}

void adjust_saturation(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_saturation", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_pixels<T>(batch_of(input), batch_of(output), kernels::SaturationOp<T>{kernels::BlendFactors<T>::make(factor)},
                     stream, "adjust_saturation");
  });
}

SV_REGISTER_KERNEL(ops::RgbToGrayscale, DeviceType::CUDA, &rgb_to_grayscale, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::AdjustSaturation, DeviceType::CUDA, &adjust_saturation, kernels::kColorDTypes);

}  // namespace

}  // namespace streamvision::cuda
