// rotate (torchvision.transforms.v2.functional.rotate): rotate images [..., C, H, W] by `angle`
// degrees counter-clockwise about `center` (pixels; default the image centre).
//
// expand=true sizes the output to hold the whole rotated image (corners transformed, rounded to
// 1e-4, ceil(max) - floor(min), as torchvision). Without a center, multiples of 90 degrees take
// torchvision's fast paths: 0 copies, 180 flips both axes, 90/270 transpose when expanding or
// square (these work for every dtype and ignore interpolation and fill, as torchvision's do).
// Otherwise sampling, fill and dtypes as affine (interpolation Nearest or Bilinear).
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"
#include "streamvision/functional/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: quarter_turns in {0, 1, 2, 3} asks for the exact counter-clockwise rotation
// by that many right angles (output [.., W, H] for odd counts; matrix, mode and fill unused);
// quarter_turns == -1 asks for the general warp with ops::Affine's contract.
struct Rotate {
  static constexpr const char* name = "rotate";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, int quarter_turns,
                          const std::array<double, 6>& inverse_matrix, InterpolationMode mode, const Fill& fill,
                          const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor rotate(const Tensor& image, double angle, InterpolationMode interpolation = InterpolationMode::Nearest,
              bool expand = false, const std::optional<std::vector<double>>& center = std::nullopt,
              const Fill& fill = std::nullopt, const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Rotate)
