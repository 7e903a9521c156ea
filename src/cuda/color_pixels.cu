// CUDA kernels of the per-pixel colour ops: rgb_to_grayscale (3 channels -> 1 or 3),
// adjust_saturation, adjust_hue (the pixel engine over the functors of kernels/color.hpp and
// kernels/color_hsv.hpp).
#include "core/dtype_dispatch.hpp"
#include "cuda/pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/color_hsv.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

void rgb_to_grayscale(const Tensor& input, const Tensor& output, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  detail::ColorDTypes::dispatch(input.dtype(), "rgb_to_grayscale", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out.c == 1) {
      launch_pixels<T>(in, out, kernels::GrayscaleOp<T, 1>{}, stream, "rgb_to_grayscale");
    } else {
      launch_pixels<T>(in, out, kernels::GrayscaleOp<T, 3>{}, stream, "rgb_to_grayscale");
    }
  });
}

void adjust_saturation(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_saturation", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const kernels::BlendFactors<T> factors = kernels::BlendFactors<T>::make(factor);
    const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (factors.ratio >= 0.0f && factors.ratio <= 1.0f && factors.other >= 0.0f && factors.other <= 1.0f) {
        launch_pixels<T>(in, out, kernels::SaturationOp<T, true>{factors}, stream, "adjust_saturation");
        return;
      }
    }
    launch_pixels<T>(in, out, kernels::SaturationOp<T>{factors}, stream, "adjust_saturation");
  });
}

void adjust_hue(const Tensor& input, const Tensor& output, double hue_factor, const Stream& stream) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_hue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_pixels<T>(detail::image_batch(input), detail::image_batch(output), kernels::make_hue_op<T>(hue_factor),
                     stream, "adjust_hue");
  });
}

SV_REGISTER_KERNEL(ops::RgbToGrayscale, DeviceType::CUDA, &rgb_to_grayscale, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::AdjustSaturation, DeviceType::CUDA, &adjust_saturation, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::AdjustHue, DeviceType::CUDA, &adjust_hue, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
