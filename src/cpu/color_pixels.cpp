// CPU kernels of the per-pixel colour ops: rgb_to_grayscale, adjust_saturation, adjust_hue (the
// pixel engine over the functors of kernels/color.hpp and kernels/color_hsv.hpp).
#include "core/dtype_dispatch.hpp"
#include "cpu/pixels.hpp"
#include "kernels/color.hpp"
#include "kernels/color_hsv.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cpu {

namespace {

void rgb_to_grayscale(const Tensor& input, const Tensor& output, const Stream&) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  detail::ColorDTypes::dispatch(input.dtype(), "rgb_to_grayscale", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out.c == 1) {
      run_pixels<T>(in, out, kernels::GrayscaleOp<T, 1>{});
    } else {
      run_pixels<T>(in, out, kernels::GrayscaleOp<T, 3>{});
    }
  });
}

void adjust_saturation(const Tensor& input, const Tensor& output, double factor, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_saturation", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_pixels<T>(detail::image_batch(input), detail::image_batch(output), kernels::SaturationOp<T>{kernels::BlendFactors<T>::make(factor)});
  });
}

void adjust_hue(const Tensor& input, const Tensor& output, double hue_factor, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_hue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_pixels<T>(detail::image_batch(input), detail::image_batch(output), kernels::make_hue_op<T>(hue_factor));
  });
}

SV_REGISTER_KERNEL(ops::RgbToGrayscale, DeviceType::CPU, &rgb_to_grayscale, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::AdjustSaturation, DeviceType::CPU, &adjust_saturation, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::AdjustHue, DeviceType::CPU, &adjust_hue, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
