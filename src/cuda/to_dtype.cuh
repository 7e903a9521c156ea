// Internal: to_dtype on CUDA, split by input dtype over several translation units
// (to_dtype_from_*.cu) so that its 110 (input, output) instantiations compile in parallel.
#pragma once

#include <type_traits>

#include "core/dtype_dispatch.hpp"
#include "cuda/elementwise.cuh"
#include "kernels/to_dtype.hpp"

namespace streamvision::cuda {

template <class In>
void to_dtype_from(const Tensor& input, const Tensor& output, bool scale, const Stream& stream) {
  const kernels::ElementwisePlan plan =
      kernels::plan_elementwise(detail::strided_view(input), detail::strided_view(output));
  detail::AllDTypes::dispatch(output.dtype(), "to_dtype", [&](auto out_tag) {
    using Out = typename decltype(out_tag)::type;
    if constexpr (!std::is_same_v<In, Out>) {
      launch_elementwise(plan, static_cast<const In*>(input.data()), static_cast<Out*>(output.data()),
                         kernels::make_to_dtype_op<In, Out>(scale), stream, "to_dtype");
    }
  });
}

}  // namespace streamvision::cuda
