// CPU kernels of the elementwise and per-pixel colour ops: brightness, invert, posterize,
// solarize, gamma (elementwise engine), grayscale, saturation, hue (pixel engine).
#include <vector>

#include "cpu/color_pixels.hpp"
#include "cpu/elementwise.hpp"
#include "kernels/color.hpp"
#include "kernels/color_dtypes.hpp"
#include "kernels/hsv.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cpu {

namespace {

void adjust_brightness(const Tensor& input, const Tensor& output, double factor, const Stream&) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_brightness", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_map<T>(input, output, kernels::BrightnessOp<T>{static_cast<kernels::opmath_t<T>>(factor)});
  });
}

void invert(const Tensor& input, const Tensor& output, const Stream&) {
  detail::dispatch_dtype<SV_LEVELS_DTYPES>(input.dtype(), "invert", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_map<T>(input, output, kernels::InvertOp<T>{});
  });
}

void posterize(const Tensor& input, const Tensor& output, int bits, const Stream&) {
  detail::dispatch_dtype<SV_LEVELS_DTYPES>(input.dtype(), "posterize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto op = kernels::make_posterize_op<T>(bits);
    run_map<T>(input, output, op);
  });
}

void solarize(const Tensor& input, const Tensor& output, double threshold, const Stream&) {
  detail::dispatch_dtype<SV_LEVELS_DTYPES>(input.dtype(), "solarize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_map<T>(input, output, kernels::make_solarize_op<T>(threshold));
  });
}

void adjust_gamma(const Tensor& input, const Tensor& output, double gamma, double gain, const Stream&) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_gamma", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const kernels::GammaOp<T> op = kernels::make_gamma_op<T>(gamma, gain);
    if constexpr (kernels::is_float_like<T>) {
      run_map<T>(input, output, op);
    } else {
      // Integer images: the op over every value of T, then a table lookup (as the CUDA engine).
      std::vector<T> lut(static_cast<std::size_t>(kernels::ColorBound<T>::value) + 1);
      for (std::size_t v = 0; v < lut.size(); ++v) lut[v] = op(static_cast<T>(v), 0u);
      run_map<T>(input, output, kernels::LutOp<T>{lut.data()});
    }
  });
}

void rgb_to_grayscale(const Tensor& input, const Tensor& output, const Stream&) {
  const kernels::ImageBatch in = batch_of(input), out = batch_of(output);
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "rgb_to_grayscale", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (out.c == 1) {
      run_pixels<T>(in, out, kernels::GrayscaleOp<T, 1>{});
    } else {
      run_pixels<T>(in, out, kernels::GrayscaleOp<T, 3>{});
    }
  });
}

void adjust_saturation(const Tensor& input, const Tensor& output, double factor, const Stream&) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_saturation", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_pixels<T>(batch_of(input), batch_of(output), kernels::SaturationOp<T>{kernels::BlendFactors<T>::make(factor)});
  });
}

void adjust_hue(const Tensor& input, const Tensor& output, double hue_factor, const Stream&) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_hue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_pixels<T>(batch_of(input), batch_of(output), kernels::make_hue_op<T>(hue_factor));
  });
}

SV_REGISTER_KERNEL(ops::AdjustBrightness, DeviceType::CPU, &adjust_brightness, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::Invert, DeviceType::CPU, &invert, kernels::kLevelsDTypes);
SV_REGISTER_KERNEL(ops::Posterize, DeviceType::CPU, &posterize, kernels::kLevelsDTypes);
SV_REGISTER_KERNEL(ops::Solarize, DeviceType::CPU, &solarize, kernels::kLevelsDTypes);
SV_REGISTER_KERNEL(ops::AdjustGamma, DeviceType::CPU, &adjust_gamma, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::RgbToGrayscale, DeviceType::CPU, &rgb_to_grayscale, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::AdjustSaturation, DeviceType::CPU, &adjust_saturation, kernels::kColorDTypes);
SV_REGISTER_KERNEL(ops::AdjustHue, DeviceType::CPU, &adjust_hue, kernels::kColorDTypes);

}  // namespace

}  // namespace streamvision::cpu
