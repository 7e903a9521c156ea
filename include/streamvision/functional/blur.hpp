// gaussian_blur (torchvision.transforms.v2.functional, _misc.py).
//
// gaussian_blur(image, kernel_size, sigma): kernel_size is [kx, ky] (x first), odd and
// positive; sigma none -> k * 0.15 + 0.35 per axis (= 0.3 * ((k - 1) / 2 - 1) + 0.8), one
// value -> both axes, or [sx, sy], all positive. REFLECT_101 borders (the radius must be smaller
// than the image: torch's reflect padding raises otherwise). Integer images round back (half to
// even). Computed separably in float (double for float64); see src/kernels/blur.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "streamvision/core/optional_list.hpp"
#include "streamvision/core/registry.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision {

namespace ops {
struct GaussianBlurParams {
  std::int64_t kernel_x = 1, kernel_y = 1;  // odd, kernel / 2 smaller than the image's W / H
  double sigma_x = 1, sigma_y = 1;          // positive
};
// Kernel contract: input [..., C, H, W] with at least one element, output of its shape and dtype.
struct GaussianBlur {
  static constexpr const char* name = "gaussian_blur";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const GaussianBlurParams& params,
                          const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor gaussian_blur(const Tensor& image, const std::vector<std::int64_t>& kernel_size,
                     const OptionalList<double>& sigma = std::nullopt,
                     const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::GaussianBlur)
