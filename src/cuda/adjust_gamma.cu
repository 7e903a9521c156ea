// CUDA kernel of adjust_gamma: float images through the elementwise engine; integer images
// through a lookup table over every value of the dtype, built on the device by the same functor.
#include "cuda/color_pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/color_dtypes.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

template <class T>
__global__ void __launch_bounds__(256) gamma_lut_kernel(kernels::GammaOp<T> op, T* lut, std::uint32_t count) {
  const std::uint32_t v = blockIdx.x * 256 + threadIdx.x;
  if (v < count) lut[v] = op(static_cast<T>(v), 0u);
}

void adjust_gamma(const Tensor& input, const Tensor& output, double gamma, double gain, const Stream& stream) {
  detail::dispatch_dtype<SV_COLOR_DTYPES>(input.dtype(), "adjust_gamma", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const kernels::GammaOp<T> op = kernels::make_gamma_op<T>(gamma, gain);
    if constexpr (kernels::is_float_like<T>) {
      launch_map<T>(input, output, op, stream, "adjust_gamma");
    } else {
      const std::uint32_t count = static_cast<std::uint32_t>(kernels::ColorBound<T>::value) + 1;
      Scratch scratch(Scratch::aligned_bytes<T>(count), input.device(), stream);
      T* lut = scratch.take<T>(count);
      {
        LaunchScope scope(stream, "adjust_gamma");
        gamma_lut_kernel<T><<<(count + 255) / 256, 256, 0, scope.handle()>>>(op, lut, count);
        scope.check_launch();
      }
      launch_map<T>(input, output, kernels::LutOp<T>{lut}, stream, "adjust_gamma");
    }
  });
}

SV_REGISTER_KERNEL(ops::AdjustGamma, DeviceType::CUDA, &adjust_gamma, kernels::kColorDTypes);

}  // namespace

}  // namespace streamvision::cuda
