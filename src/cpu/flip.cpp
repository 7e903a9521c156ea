// CPU kernels of the flips: a copy of the input read through a view with one stride negated.
#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "streamvision/functional/flip.hpp"

namespace streamvision::cpu {

namespace {

void horizontal_flip(const Tensor& input, const Tensor& output, const Stream&) {
  copy_view(detail::strided_view(input).flipped(input.dim() - 1), detail::strided_view(output));
}

void vertical_flip(const Tensor& input, const Tensor& output, const Stream&) {
  copy_view(detail::strided_view(input).flipped(input.dim() - 2), detail::strided_view(output));
}

SV_REGISTER_KERNEL(ops::HorizontalFlip, DeviceType::CPU, &horizontal_flip, detail::AllDTypes::set);
SV_REGISTER_KERNEL(ops::VerticalFlip, DeviceType::CPU, &vertical_flip, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
