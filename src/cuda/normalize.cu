#include "core/dtype_dispatch.hpp"
#include "cuda/elementwise.cuh"
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

void normalize(const Tensor& input, const Tensor& output, const std::vector<double>& mean,
               const std::vector<double>& std, const Stream& stream) {
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
