// CUDA kernels of adjust_brightness and invert (the elementwise engine over the functors of
// kernels/color.hpp; posterize and solarize are in color_levels.cu, to compile in parallel).
#include "cuda/color_pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/color_dtypes.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

void adjust_brightness(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_brightness", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_map<T>(input, output, kernels::BrightnessOp<T>{static_cast<kernels::opmath_t<T>>(factor)}, stream,
           "adjust_brightness");
  });
}

void invert(const Tensor& input, const Tensor& output, const Stream& stream) {
  detail::dispatch_dtype<SV_LEVELS_DTYPES>(input.dtype(), "invert", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_map<T>(input, output, kernels::InvertOp<T>{}, stream, "invert");
  });
}

SV_REGISTER_KERNEL(ops::AdjustBrightness, DeviceType::CUDA, &adjust_brightness, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::Invert, DeviceType::CUDA, &invert, kernels::kLevelsDTypes);

}  // namespace

}  // namespace streamvision::cuda
