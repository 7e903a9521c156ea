// CPU kernels that only move elements: copy (layout conversion) and the flips.
#include "cpu/elementwise.hpp"
#include "core/dtype_dispatch.hpp"
#include "kernels/copy.hpp"
#include "streamvision/functional/flip.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::cpu {

namespace {

void copy_view(const kernels::StridedView& in, const kernels::StridedView& out) {
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(in, out);
  detail::dispatch_itemsize(itemsize(in.dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_elementwise(plan, static_cast<const T*>(in.data), static_cast<T*>(out.data), kernels::CopyOp{});
  });
}

void copy(const Tensor& input, const Tensor& output, const Stream&) {
  copy_view(kernels::StridedView::of(input), kernels::StridedView::of(output));
}

void horizontal_flip(const Tensor& input, const Tensor& output, const Stream&) {
  copy_view(kernels::StridedView::of(input).flipped(input.dim() - 1), kernels::StridedView::of(output));
}

void vertical_flip(const Tensor& input, const Tensor& output, const Stream&) {
  copy_view(kernels::StridedView::of(input).flipped(input.dim() - 2), kernels::StridedView::of(output));
}

SV_REGISTER_KERNEL(ops::Copy, DeviceType::CPU, &copy, DTypeSet::all());
SV_REGISTER_KERNEL(ops::HorizontalFlip, DeviceType::CPU, &horizontal_flip, DTypeSet::all());
SV_REGISTER_KERNEL(ops::VerticalFlip, DeviceType::CPU, &vertical_flip, DTypeSet::all());

}  // namespace

}  // namespace streamvision::cpu
