// elastic (torchvision.transforms.v2.functional.elastic): warp images [..., C, H, W] by a
// per-pixel displacement [1, H, W, 2] in normalised coordinates (x then y; 2 / W per pixel),
// added to the identity grid of grid_sample(align_corners=False). The displacement must be on
// the image's device; it is converted to the grid dtype (the image's float dtype, float32 for
// integer images) first. Interpolation Nearest or Bilinear; fill and dtypes as affine. A
// non-finite displacement samples nothing (0 or the fill) where torch would produce NaN.
#pragma once

#include <optional>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: `displacement` is [1, H, W, 2] in the grid dtype (the image dtype for float
// images, float32 otherwise), any strides, on the image's device; output has the input's shape.
struct Elastic {
  static constexpr const char* name = "elastic";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Tensor& displacement,
                          InterpolationMode mode, const Fill& fill, const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor elastic(const Tensor& image, const Tensor& displacement,
               InterpolationMode interpolation = InterpolationMode::Bilinear, const Fill& fill = std::nullopt,
               const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Elastic)
