// affine and rotate (torchvision.transforms.v2.functional): warp images [..., C, H, W] by the affine
// map built from angle (degrees, clockwise), translate [tx, ty] (pixels), scale (> 0), shear
// [sx, sy] (degrees; torchvision's scalar shear s is {s, 0}, a one-element list {s} is {s, s})
// and center [cx, cy] (pixels; default the image centre). Sampling follows
// grid_sample(align_corners=False, padding_mode="zeros"); interpolation Nearest or Bilinear.
//
// fill: std::nullopt leaves the outside 0 (bilinear blends edge pixels toward 0); a value (or one
// per channel) blends by the sampled coverage mask, mask * (img - fill) + fill, and nearest uses
// fill where mask < 0.5, as torchvision does.
//
// Dtypes uint8, uint16, float16, bfloat16, float32, float64; integer images are computed in
// float32 and rounded half to even. Non-finite parameters raise a ValueError-kind Error.
//
// rotate: rotate images by `angle` degrees counter-clockwise about `center` (pixels; default the
// image centre). expand=true sizes the output to hold the whole rotated image (corners
// transformed, rounded to 1e-4, ceil(max) - floor(min), as torchvision). Without a center,
// multiples of 90 degrees take torchvision's fast paths: 0 copies, 180 flips both axes, 90/270
// transpose when expanding or square (every dtype; interpolation and fill unused, as in
// torchvision); any other angle is the affine warp above and runs ops::Affine's kernel. Like
// torchvision's (torch.rot90), a 90/270 result is a transposed view: horizontal_flip (90) or
// vertical_flip (270) of the input, returned with its last two dims swapped. contiguous() of it
// is a transposing copy.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/core/registry.hpp"
#include "streamvision/functional/geometry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: `inverse_matrix` [a, b, c, d, e, f] maps an output pixel at (x, y) relative to
// the output centre ((i - (W_out-1)/2, j - (H_out-1)/2)) to the input point (a x + b y + c,
// d x + e y + f) relative to the input centre (torchvision's _get_inverse_affine_matrix with a
// centred origin). mode is Nearest or Bilinear; fill is std::nullopt or holds 1 or C values.
// `output` may be larger or smaller than the input (rotate with expand).
struct Affine {
  static constexpr const char* name = "affine";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const std::array<double, 6>& inverse_matrix,
                          InterpolationMode mode, const Fill& fill, const Stream& stream);
};
// Kernel contract: the exact counter-clockwise rotation by quarter_turns (0 to 3) right angles
// of the last two dims (output [.., W, H] for odd counts). functional::rotate passes 0 and 2; it
// runs the flips for 1 and 3.
struct Rotate {
  static constexpr const char* name = "rotate";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, int quarter_turns, const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor affine(const Tensor& image, double angle, const std::vector<double>& translate, double scale,
              const std::vector<double>& shear, InterpolationMode interpolation = InterpolationMode::Nearest,
              const Fill& fill = std::nullopt, const OptionalList<double>& center = std::nullopt,
              const std::optional<Stream>& stream = std::nullopt);

Tensor rotate(const Tensor& image, double angle, InterpolationMode interpolation = InterpolationMode::Nearest,
              bool expand = false, const OptionalList<double>& center = std::nullopt,
              const Fill& fill = std::nullopt, const std::optional<Stream>& stream = std::nullopt);

// torchvision's _get_inverse_affine_matrix(center, angle, translate, scale, shear): the map from
// output to input points about `center` (angle clockwise, degrees).
std::array<double, 6> inverse_affine_matrix(const std::array<double, 2>& center, double angle,
                                            const std::array<double, 2>& translate, double scale,
                                            const std::array<double, 2>& shear);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Affine)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::Rotate)
