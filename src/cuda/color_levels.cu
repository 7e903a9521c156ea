// CUDA kernels of posterize and solarize (the elementwise engine over the functors of
// kernels/color.hpp).
#include "cuda/color_pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/color_dtypes.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

void posterize(const Tensor& input, const Tensor& output, int bits, const Stream& stream) {
  detail::dispatch_dtype<SV_LEVELS_DTYPES>(input.dtype(), "posterize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto op = kernels::make_posterize_op<T>(bits);
    launch_map<T>(input, output, op, stream, "posterize");
  });
}

void solarize(const Tensor& input, const Tensor& output, double threshold, const Stream& stream) {
  detail::dispatch_dtype<SV_LEVELS_DTYPES>(input.dtype(), "solarize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_map<T>(input, output, kernels::make_solarize_op<T>(threshold), stream, "solarize");
  });
}

SV_REGISTER_KERNEL(ops::Posterize, DeviceType::CUDA, &posterize, kernels::kLevelsDTypes);
SV_REGISTER_KERNEL(ops::Solarize, DeviceType::CUDA, &solarize, kernels::kLevelsDTypes);

}  // namespace

}  // namespace streamvision::cuda
