// CUDA kernels of the flips: a copy of the input read through a view with one stride negated
// (reversed 16-byte vectors where rows allow).
#include "core/dtype_dispatch.hpp"
#include "cuda/elementwise.cuh"
#include "streamvision/functional/flip.hpp"

namespace streamvision::cuda {

namespace {

void horizontal_flip(const Tensor& input, const Tensor& output, const Stream& stream) {
  copy_view(detail::strided_view(input).flipped(input.dim() - 1), detail::strided_view(output), stream,
            "horizontal_flip");
}

void vertical_flip(const Tensor& input, const Tensor& output, const Stream& stream) {
  copy_view(detail::strided_view(input).flipped(input.dim() - 2), detail::strided_view(output), stream,
            "vertical_flip");
}

SV_REGISTER_KERNEL(ops::HorizontalFlip, DeviceType::CUDA, &horizontal_flip, detail::AllDTypes::set);
SV_REGISTER_KERNEL(ops::VerticalFlip, DeviceType::CUDA, &vertical_flip, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
