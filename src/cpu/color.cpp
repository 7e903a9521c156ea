// CPU kernels of the elementwise colour ops: brightness, invert, posterize, solarize, gamma
// (the elementwise engine over the functors of kernels/color.hpp) and permute_channels (copies).
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "kernels/color.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cpu {

namespace {

void adjust_brightness(const Tensor& input, const Tensor& output, double factor, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_brightness", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_map<T>(input, output, kernels::BrightnessOp<T>{static_cast<kernels::opmath_t<T>>(factor)});
  });
}

void invert(const Tensor& input, const Tensor& output, const Stream&) {
  detail::LevelsDTypes::dispatch(input.dtype(), "invert", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_map<T>(input, output, kernels::InvertOp<T>{});
  });
}

void posterize(const Tensor& input, const Tensor& output, int bits, const Stream&) {
  detail::LevelsDTypes::dispatch(input.dtype(), "posterize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto op = kernels::make_posterize_op<T>(bits);
    run_map<T>(input, output, op);
  });
}

void solarize(const Tensor& input, const Tensor& output, double threshold, const Stream&) {
  detail::LevelsDTypes::dispatch(input.dtype(), "solarize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_map<T>(input, output, kernels::make_solarize_op<T>(threshold));
  });
}

// GammaOp's kind kPow for float images, every step a select (pmath::pow_select, the gain): the
// same bits, in a loop GCC vectorises. GammaOp itself, with its per-value choice of kind and its
// fields read through the op, was not vectorised (float32 ran at 0.2x torchvision's CPU speed).
template <class T>
struct GammaPowOp {
  static constexpr bool kUsesChannel = false;
  using F = kernels::opmath_t<T>;
  F gamma, gain;
  // As int: with a bool field GCC's vectoriser found no vector type for its load in the
  // x86-64-v3 twin (cpu/simd.hpp) and left the loop scalar.
  int use_gain;

  explicit GammaPowOp(const kernels::GammaOp<T>& op) : gamma(op.gamma), gain(op.gain), use_gain(op.use_gain) {}

  SV_FORCE_INLINE T operator()(T x, std::uint32_t) const {
    const F p = kernels::mat<T>(kernels::pmath::pow_select(kernels::to_opmath(x), gamma));
    const F gained = kernels::clamp_value(kernels::mat<T>(p * gain), F(0), F(1));
    return kernels::to_image<T>(use_gain != 0 ? gained : p);
  }
};

void adjust_gamma(const Tensor& input, const Tensor& output, double gamma, double gain, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_gamma", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const kernels::GammaOp<T> op = kernels::make_gamma_op<T>(gamma, gain);
    if constexpr (kernels::is_float_like<T>) {
      if (op.kind == kernels::GammaOp<T>::kPow) {
        run_map<T>(input, output, GammaPowOp<T>(op));
      } else {
        run_map<T>(input, output, op);
      }
    } else {
      // Integer images: the op over every value of T, then a table lookup (as the CUDA engine).
      std::vector<T> lut(static_cast<std::size_t>(kernels::ColorBound<T>::value) + 1);
      for (std::size_t v = 0; v < lut.size(); ++v) lut[v] = op(static_cast<T>(v), 0u);
      run_map<T>(input, output, kernels::LutOp<T>{lut.data()});
    }
  });
}

void permute_channels(const Tensor& input, const Tensor& output, const std::vector<std::int64_t>& permutation,
                      const Stream&) {
  for (std::size_t k = 0; k < permutation.size(); ++k) {
    copy_view(detail::strided_view(input.select(-3, permutation[k])),
              detail::strided_view(output.select(-3, static_cast<std::int64_t>(k))));
  }
}

SV_REGISTER_KERNEL(ops::AdjustBrightness, DeviceType::CPU, &adjust_brightness, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::Invert, DeviceType::CPU, &invert, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::Posterize, DeviceType::CPU, &posterize, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::Solarize, DeviceType::CPU, &solarize, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::AdjustGamma, DeviceType::CPU, &adjust_gamma, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::PermuteChannels, DeviceType::CPU, &permute_channels, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
