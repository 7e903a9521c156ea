// CUDA kernel of copy (layout conversion), and copy_view, the one strided copy that flips, erase,
// permute_channels and rotate's right angles are made of (16-byte vectors where rows allow;
// transposed views, rotate's quarter turns, through shared-memory tiles).
#include "core/dtype_dispatch.hpp"
#include "cuda/elementwise.cuh"
#include "cuda/transposed_copy.hpp"
#include "kernels/copy.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::cuda {

void copy_view(const kernels::StridedView& in, const kernels::StridedView& out, const Stream& stream, const char* op) {
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(in, out);
  if (plan.numel == 0 || copy_transposed(plan, in.data, out.data, itemsize(in.dtype), stream, op)) return;
  detail::dispatch_itemsize(itemsize(in.dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<true>(plan, static_cast<const T*>(in.data), static_cast<T*>(out.data), kernels::CopyOp{}, stream, op);
  });
}

namespace {

void copy(const Tensor& input, const Tensor& output, const Stream& stream) {
  copy_view(detail::strided_view(input), detail::strided_view(output), stream, "copy");
}

SV_REGISTER_KERNEL(ops::Copy, DeviceType::CUDA, &copy, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
