#include "streamvision/functional/to_dtype.hpp"

#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "kernels/to_dtype.hpp"

namespace streamvision::cpu {

namespace {

void to_dtype(const Tensor& input, const Tensor& output, bool scale, const Stream&) {
  const kernels::ElementwisePlan plan =
      kernels::plan_elementwise(detail::strided_view(input), detail::strided_view(output));
  detail::AllDTypes::dispatch(input.dtype(), "to_dtype", [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    detail::AllDTypes::dispatch(output.dtype(), "to_dtype", [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      if constexpr (!std::is_same_v<In, Out>) {
        run_elementwise(plan, static_cast<const In*>(input.data()), static_cast<Out*>(output.data()),
                        kernels::make_to_dtype_op<In, Out>(scale));
      }
    });
  });
}

SV_REGISTER_KERNEL(ops::ToDtype, DeviceType::CPU, &to_dtype, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
