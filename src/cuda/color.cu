// CUDA kernels of the elementwise colour ops: brightness, invert, posterize, solarize (the
// elementwise engine over the functors of kernels/color.hpp).
#include "cuda/elementwise.cuh"
#include "kernels/color.hpp"
#include "kernels/color_dtypes.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

template <class T, class Op>
void map(const Tensor& input, const Tensor& output, const Op& op, const Stream& stream, const char* name) {
  const kernels::ElementwisePlan plan =
      kernels::plan_elementwise(kernels::StridedView::of(input), kernels::StridedView::of(output));
  launch_elementwise(plan, static_cast<const T*>(input.data()), static_cast<T*>(output.data()), op, stream, name);
}

void adjust_brightness(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_brightness", [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<T>(input, output, kernels::BrightnessOp<T>{static_cast<kernels::opmath_t<T>>(factor)}, stream,
           "adjust_brightness");
  });
}

void invert(const Tensor& input, const Tensor& output, const Stream& stream) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "invert", [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<T>(input, output, kernels::InvertOp<T>{}, stream, "invert");
  });
}

void posterize(const Tensor& input, const Tensor& output, int bits, const Stream& stream) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "posterize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto op = kernels::make_posterize_op<T>(bits);
    map<T>(input, output, op, stream, "posterize");
  });
}

void solarize(const Tensor& input, const Tensor& output, double threshold, const Stream& stream) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "solarize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    map<T>(input, output, kernels::make_solarize_op<T>(threshold), stream, "solarize");
  });
}

SV_REGISTER_KERNEL(ops::AdjustBrightness, DeviceType::CUDA, &adjust_brightness, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::Invert, DeviceType::CUDA, &invert, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::Posterize, DeviceType::CUDA, &posterize, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::Solarize, DeviceType::CUDA, &solarize, kernels::kColorDTypes);

}  // namespace

}  // namespace streamvision::cuda
