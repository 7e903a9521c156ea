#include "streamvision/functional/normalize.hpp"

#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "kernels/normalize.hpp"

namespace streamvision::cpu {

namespace {

void normalize(const Tensor& input, const Tensor& output, const std::vector<double>& mean,
               const std::vector<double>& std, const Stream&) {
  const kernels::ElementwisePlan plan =
      kernels::plan_elementwise(detail::strided_view(input), detail::strided_view(output), input.dim() - 3);
  detail::FloatDTypes::dispatch(input.dtype(), "normalize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto op = std::make_unique<kernels::NormalizeOp<T, ops::Normalize::kMaxChannels>>();
    for (std::size_t c = 0; c < mean.size(); ++c) {
      // PyTorch first turns mean and std into tensors of the image dtype.
      op->mean[c] = kernels::to_opmath(kernels::cast<T>(mean[c]));
      op->stdev[c] = kernels::to_opmath(kernels::cast<T>(std[c]));
    }
    run_elementwise(plan, static_cast<const T*>(input.data()), static_cast<T*>(output.data()), *op);
  });
}

SV_REGISTER_KERNEL(ops::Normalize, DeviceType::CPU, &normalize, detail::FloatDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
