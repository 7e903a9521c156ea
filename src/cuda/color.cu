// CUDA kernels of the elementwise colour ops: brightness, invert, posterize, solarize, gamma (the
// elementwise engine over the functors of kernels/color.hpp; gamma on integer images and
// brightness on large uint8 images through a lookup table over every value of the dtype, built on
// the device by the same functor) and permute_channels (copies).
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "cuda/pixels.cuh"
#include "kernels/color.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

// An op on an integer image through a table of its value for every value of the dtype, built on
// the device by the op itself (so the result is the op's, bit for bit): one load per value
// instead of the op's arithmetic. Worth it where that arithmetic converts between integers and
// floats (quarter-rate instructions on the GPU) and the image is large enough to repay the table.
template <class T, class Op>
__global__ void __launch_bounds__(kBlockThreads) table_kernel(Op op, T* lut, std::uint32_t count) {
  const std::uint32_t v = blockIdx.x * kBlockThreads + threadIdx.x;
  if (v < count) lut[v] = op(static_cast<T>(v), 0u);
}

template <class T, class Op>
void launch_through_table(const Tensor& input, const Tensor& output, const Op& op, const Stream& stream, const char* name) {
  const std::uint32_t count = static_cast<std::uint32_t>(kernels::ColorBound<T>::value) + 1;
  Scratch scratch(Scratch::aligned_bytes<T>(count), input.device(), stream);
  T* lut = scratch.take<T>(count);
  {
    LaunchScope scope(stream, name);
    table_kernel<T, Op><<<blocks_for(count), kBlockThreads, 0, scope.handle()>>>(op, lut, count);
    scope.check_launch();
  }
  launch_map<T>(input, output, kernels::LutOp<T>{lut}, stream, name);
}

// uint8 brightness converts every byte to float and back: through a table above this many values
// (it ran at 55 % of the copy bandwidth on 64x3x1080x1920, ff59c01 on the H200; gamma's table
// runs at 90 %). Below, the table's launch would cost more than it saves.
constexpr std::int64_t kTableMinValues = std::int64_t{1} << 20;

void adjust_brightness(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_brightness", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const kernels::BrightnessOp<T> op{static_cast<kernels::opmath_t<T>>(factor)};
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (input.numel() >= kTableMinValues) return launch_through_table<T>(input, output, op, stream, "adjust_brightness");
    }
    launch_map<T>(input, output, op, stream, "adjust_brightness");
  });
}

void invert(const Tensor& input, const Tensor& output, const Stream& stream) {
  detail::LevelsDTypes::dispatch(input.dtype(), "invert", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_map<T>(input, output, kernels::InvertOp<T>{}, stream, "invert");
  });
}

void posterize(const Tensor& input, const Tensor& output, int bits, const Stream& stream) {
  detail::LevelsDTypes::dispatch(input.dtype(), "posterize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto op = kernels::make_posterize_op<T>(bits);
    launch_map<T>(input, output, op, stream, "posterize");
  });
}

void solarize(const Tensor& input, const Tensor& output, double threshold, const Stream& stream) {
  detail::LevelsDTypes::dispatch(input.dtype(), "solarize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_map<T>(input, output, kernels::make_solarize_op<T>(threshold), stream, "solarize");
  });
}

void adjust_gamma(const Tensor& input, const Tensor& output, double gamma, double gain, const Stream& stream) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_gamma", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const kernels::GammaOp<T> op = kernels::make_gamma_op<T>(gamma, gain);
    if constexpr (kernels::is_float_like<T>) {
      launch_map<T>(input, output, op, stream, "adjust_gamma");
    } else {
      launch_through_table<T>(input, output, op, stream, "adjust_gamma");
    }
  });
}

void permute_channels(const Tensor& input, const Tensor& output, const std::vector<std::int64_t>& permutation,
                      const Stream& stream) {
  for (std::size_t k = 0; k < permutation.size(); ++k) {
    copy_view(detail::strided_view(input.select(-3, permutation[k])),
              detail::strided_view(output.select(-3, static_cast<std::int64_t>(k))), stream, "permute_channels");
  }
}

SV_REGISTER_KERNEL(ops::AdjustBrightness, DeviceType::CUDA, &adjust_brightness, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::Invert, DeviceType::CUDA, &invert, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::Posterize, DeviceType::CUDA, &posterize, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::Solarize, DeviceType::CUDA, &solarize, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::AdjustGamma, DeviceType::CUDA, &adjust_gamma, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::PermuteChannels, DeviceType::CUDA, &permute_channels, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
