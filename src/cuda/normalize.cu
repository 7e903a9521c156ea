#include "core/dtype_dispatch.hpp"
#include "cuda/elementwise.cuh"
#include "cuda/pixels.cuh"
#include "kernels/normalize.hpp"
#include "streamvision/functional/normalize.hpp"

namespace streamvision::cuda {

namespace {

// Parameters travel by value: a small block for the usual few channels, a large one (up to
// ops::Normalize::kMaxChannels) otherwise, so the common launch stays light.
template <class T, int Capacity>
void launch(const kernels::ElementwisePlan& plan, const Tensor& input, const Tensor& output,
            const std::vector<double>& mean, const std::vector<double>& std, const Stream& stream) {
  kernels::NormalizeOp<T, Capacity> op{};
  for (std::size_t c = 0; c < mean.size(); ++c) {
    op.mean[c] = kernels::to_opmath(kernels::cast<T>(mean[c]));
    op.stdev[c] = kernels::to_opmath(kernels::cast<T>(std[c]));
  }
  launch_elementwise(plan, static_cast<const T*>(input.data()), static_cast<T*>(output.data()), op, stream,
                     "normalize");
}

// 1- and 3-channel images whose leading dims merge take the pixel engine: a thread holds the same
// pixels of every channel, so its channel is known at compile time. The elementwise engine ran
// normalize at 85 % of the copy bandwidth (64x3x1080x1920 float32, H200, eleventh session) where
// the pixel engine runs float32 saturation, as many bytes each way, at 98 %.
template <class T, int C>
bool launch_pixels_for(const Tensor& input, const Tensor& output, const std::vector<double>& mean,
                       const std::vector<double>& std, const Stream& stream) {
  if (static_cast<int>(mean.size()) != C) return false;
  const auto in = detail::try_image_batch(input), out = detail::try_image_batch(output);
  if (!in || !out || in->c != C) return false;
  kernels::NormalizePixelOp<T, C> op{};
  for (int c = 0; c < C; ++c) {
    op.mean[c] = kernels::to_opmath(kernels::cast<T>(mean[c]));
    op.stdev[c] = kernels::to_opmath(kernels::cast<T>(std[c]));
  }
  launch_pixels<T>(*in, *out, op, stream, "normalize");
  return true;
}

void normalize(const Tensor& input, const Tensor& output, const std::vector<double>& mean,
               const std::vector<double>& std, const Stream& stream) {
  bool done = false;
  detail::FloatDTypes::dispatch(input.dtype(), "normalize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    done = launch_pixels_for<T, 3>(input, output, mean, std, stream) ||
           launch_pixels_for<T, 1>(input, output, mean, std, stream);
  });
  if (done) return;
  const kernels::ElementwisePlan plan =
      kernels::plan_elementwise(detail::strided_view(input), detail::strided_view(output), input.dim() - 3);
  detail::FloatDTypes::dispatch(input.dtype(), "normalize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (mean.size() <= 16) {
      launch<T, 16>(plan, input, output, mean, std, stream);
    } else {
      launch<T, ops::Normalize::kMaxChannels>(plan, input, output, mean, std, stream);
    }
  });
}

SV_REGISTER_KERNEL(ops::Normalize, DeviceType::CUDA, &normalize, detail::FloatDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
