// CUDA kernel of adjust_hue: the pixel engine over kernels/hsv.hpp.
#include "cuda/color_pixels.cuh"
#include "kernels/color_dtypes.hpp"
#include "kernels/hsv.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

void adjust_hue(const Tensor& input, const Tensor& output, double hue_factor, const Stream& stream) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_hue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_pixels<T>(*kernels::as_image_batch(input), *kernels::as_image_batch(output), kernels::make_hue_op<T>(hue_factor),
                     stream, "adjust_hue");
  });
}

SV_REGISTER_KERNEL(ops::AdjustHue, DeviceType::CUDA, &adjust_hue, kernels::kColorDTypes);

}  // namespace

}  // namespace streamvision::cuda
