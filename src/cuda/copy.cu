// CUDA kernels that only move elements: copy (layout conversion) and the flips.
#include "core/dtype_dispatch.hpp"
#include "cuda/elementwise.cuh"
#include "kernels/copy.hpp"
#include "streamvision/functional/flip.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::cuda {

namespace {

void copy_view(const kernels::StridedView& in, const kernels::StridedView& out, const Stream& stream,
               const char* op) {
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(in, out);
  detail::dispatch_itemsize(itemsize(in.dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<true>(plan, static_cast<const T*>(in.data), static_cast<T*>(out.data), kernels::CopyOp{}, stream, op);
  });
}

void copy(const Tensor& input, const Tensor& output, const Stream& stream) {
  copy_view(kernels::StridedView::of(input), kernels::StridedView::of(output), stream, "copy");
}

void horizontal_flip(const Tensor& input, const Tensor& output, const Stream& stream) {
  copy_view(kernels::StridedView::of(input).flipped(input.dim() - 1), kernels::StridedView::of(output), stream,
            "horizontal_flip");
}

void vertical_flip(const Tensor& input, const Tensor& output, const Stream& stream) {
  copy_view(kernels::StridedView::of(input).flipped(input.dim() - 2), kernels::StridedView::of(output), stream,
            "vertical_flip");
}

SV_REGISTER_KERNEL(ops::Copy, DeviceType::CUDA, &copy, DTypeSet::all());
SV_REGISTER_KERNEL(ops::HorizontalFlip, DeviceType::CUDA, &horizontal_flip, DTypeSet::all());
SV_REGISTER_KERNEL(ops::VerticalFlip, DeviceType::CUDA, &vertical_flip, DTypeSet::all());

}  // namespace

}  // namespace streamvision::cuda
