// CPU kernel of copy (layout conversion), and copy_view, the one strided copy that flips, erase,
// permute_channels and rotate's right angles are made of.
#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "kernels/copy.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::cpu {

void copy_view(const kernels::StridedView& in, const kernels::StridedView& out) {
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(in, out);
  detail::dispatch_itemsize(itemsize(in.dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_elementwise(plan, static_cast<const T*>(in.data), static_cast<T*>(out.data), kernels::CopyOp{});
  });
}

namespace {

void copy(const Tensor& input, const Tensor& output, const Stream&) {
  copy_view(detail::strided_view(input), detail::strided_view(output));
}

SV_REGISTER_KERNEL(ops::Copy, DeviceType::CPU, &copy, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
