#include "streamvision/functional/flip.hpp"

#include "functional/op_context.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::HorizontalFlip)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::VerticalFlip)

namespace streamvision::functional {

namespace {

template <class Op>
Tensor flip(const Tensor& image, int min_rank, const std::optional<Stream>& stream) {
  detail::check_image(Op::name, image, min_rank);
  auto [kernel, on, src, out] = detail::prepare<Op>(image, stream);
  if (out.numel() > 0) kernel(src, out, on);
  return out;
}

}  // namespace

Tensor horizontal_flip(const Tensor& image, const std::optional<Stream>& stream) {
  return flip<ops::HorizontalFlip>(image, 1, stream);
}

Tensor vertical_flip(const Tensor& image, const std::optional<Stream>& stream) {
  return flip<ops::VerticalFlip>(image, 2, stream);
}

}  // namespace streamvision::functional
