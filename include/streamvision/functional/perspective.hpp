// perspective (torchvision.transforms.v2.functional.perspective): warp images [..., C, H, W] by
// a projective map, given by four startpoints and four endpoints ([x, y] each; the corners
// top-left, top-right, bottom-right, bottom-left of the original and transformed image) or
// directly by the 8 coefficients (a, b, c, d, e, f, g, h) of the output -> input map
// x_in = (a x + b y + c) / (g x + h y + 1), y_in = (d x + e y + f) / (g x + h y + 1) with pixel
// centres at +0.5 (PIL's convention). Coefficients from points are solved in double precision and
// rounded to float32, as torchvision does. Interpolation Nearest or Bilinear; fill and dtypes as
// affine.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: `coefficients` as described above (already float32-rounded when they came
// from points); output has the input's shape; mode Nearest or Bilinear; fill as ops::Affine.
struct Perspective {
  static constexpr const char* name = "perspective";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const std::array<double, 8>& coefficients,
                          InterpolationMode mode, const Fill& fill, const Stream& stream);
};
}  // namespace ops

namespace functional {

using Points = std::vector<std::vector<double>>;

Tensor perspective(const Tensor& image, const std::optional<Points>& startpoints, const std::optional<Points>& endpoints,
                   InterpolationMode interpolation = InterpolationMode::Bilinear, const Fill& fill = std::nullopt,
                   const OptionalList<double>& coefficients = std::nullopt,
                   const std::optional<Stream>& stream = std::nullopt);

// torchvision's _get_perspective_coeffs: the coefficients mapping endpoints back to startpoints.
std::array<double, 8> perspective_coefficients(const Points& startpoints, const Points& endpoints);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Perspective)
