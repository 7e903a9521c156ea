// resize / resized_crop (torchvision.transforms.v2.functional): resample images [..., C, H, W]
// to a new height and width.
//
// size (a Size, written as a braced list): {h, w} is exact; {s} sets the shorter edge to s and
// the longer to int(s * long / short); with max_size, a longer edge above max_size is brought
// down to it (the shorter one scaled alike); size = std::nullopt needs max_size and sets the
// longer edge to it. An output of the input's size returns the input itself.
//
// Interpolation: nearest (src = floor(dst * in / out)), nearest-exact (src = floor((dst + 0.5) *
// in / out)), bilinear and bicubic (align_corners=False sampling, bicubic a = -0.75, borders
// replicate). antialias (default true; std::nullopt means false) applies to bilinear and bicubic:
// a separable PIL-style filter whose support grows with the downscale factor, weights
// renormalised at the borders (triangle for bilinear, Keys cubic a = -0.5 for bicubic).
//
// Dtypes uint8, uint16, float16, bfloat16, float32, float64. Integer and 16-bit float images are
// computed in float32 like torchvision: uint8 rounds half to even, uint16 truncates (torchvision
// rounds back only for signed dtypes and uint8); uint8 bicubic follows torch's CPU path (the
// PIL-like one: int16 fixed-point weights, horizontal pass to a clamped uint8 intermediate, then
// vertical), which torchvision's own CPU result gives; torch's CUDA uint8 bicubic differs from it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: `output` has the input's leading dims and channels and the new height and
// width (different from the input's), same dtype; mode is Nearest, NearestExact, Bilinear or
// Bicubic; antialias has already been cleared for the nearest modes. Both are non-empty.
struct Resize {
  static constexpr const char* name = "resize";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, InterpolationMode mode, bool antialias,
                          const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor resize(const Tensor& image, const Size& size,
              InterpolationMode interpolation = InterpolationMode::Bilinear,
              std::optional<std::int64_t> max_size = std::nullopt, std::optional<bool> antialias = true,
              const std::optional<Stream>& stream = std::nullopt);

// crop(top, left, height, width) then resize(size). The crop is not materialised when it lies
// inside the image.
Tensor resized_crop(const Tensor& image, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width,
                    const std::vector<std::int64_t>& size, InterpolationMode interpolation = InterpolationMode::Bilinear,
                    std::optional<bool> antialias = true, const std::optional<Stream>& stream = std::nullopt);

// The output [height, width] resize would produce for an image of [height, width] (torchvision's
// _compute_resized_output_size), with its validation.
std::vector<std::int64_t> resized_output_size(std::int64_t height, std::int64_t width, const Size& size,
                                              std::optional<std::int64_t> max_size = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Resize)
