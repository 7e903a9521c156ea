// horizontal_flip / vertical_flip (torchvision.transforms.v2.functional): reverse the last
// dim / the second-to-last dim. Any dtype, any leading dims, any strides. Exact.
#pragma once

#include <optional>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: `output` has the input's shape and dtype; write the flipped input into it.
struct HorizontalFlip {
  static constexpr const char* name = "horizontal_flip";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Stream& stream);
};
struct VerticalFlip {
  static constexpr const char* name = "vertical_flip";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Stream& stream);
};
}  // namespace ops

namespace functional {

// `stream`: run on this stream instead of Stream::current(input's device) (CUDA only).
Tensor horizontal_flip(const Tensor& image, const std::optional<Stream>& stream = std::nullopt);
Tensor vertical_flip(const Tensor& image, const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::HorizontalFlip)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::VerticalFlip)
