// Colour ops (torchvision.transforms.v2.functional, _color.py): rgb_to_grayscale,
// grayscale_to_rgb, adjust_brightness / contrast / saturation / hue / gamma / sharpness,
// invert, posterize, solarize, autocontrast, equalize, permute_channels.
//
// Images are [..., C, H, W] with any number of leading dims and any strides (channels_last and
// sliced views run without a layout copy; outputs keep the input's stride order). Supported
// dtypes: uint8, uint16, float16, bfloat16, float32, float64 (float images are assumed in
// [0, 1]). Results follow torchvision 0.26 on torch tensors: integer images computed in float32
// and truncated back, float images computed in their dtype (see docs/ARCHITECTURE.md and
// src/kernels/color.hpp for where intermediates round).
//
// Like torchvision, some calls return the input itself rather than a copy: grayscale_to_rgb of
// an image with >= 3 channels, adjust_saturation / adjust_hue of a 1-channel image,
// adjust_sharpness of images with H <= 2 or W <= 2, posterize of integer images with bits >=
// the dtype's value bits, and every op's empty image where torchvision returns it.
//
// CUDA: every op runs on `stream` (default: Stream::current(image's device)), allocates
// stream-ordered, never synchronizes, and is capturable in a CUDA graph. The reductions of
// adjust_contrast, autocontrast and equalize run on the device (reduce, finalize, apply).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contracts: `input` and `output` are on the same device; the host has validated every
// argument and allocated `output` (same leading dims, H and W; dtype of the input) with leading
// dims that merge into one batch dim (kernels::as_image_batch succeeds on both).

// input has 3 channels, output 1 or 3: the grayscale image (repeated in 3 channels if the
// output has 3). (A 1-channel input is copied by the front end, as torchvision clones it.)
struct RgbToGrayscale {
  static constexpr const char* name = "rgb_to_grayscale";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Stream& stream);
};
// Elementwise: any rank, output of the input's shape (output may be the input).
struct AdjustBrightness {
  static constexpr const char* name = "adjust_brightness";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, double brightness_factor, const Stream& stream);
};
// 3 channels.
struct AdjustSaturation {
  static constexpr const char* name = "adjust_saturation";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, double saturation_factor, const Stream& stream);
};
// 1 or 3 channels.
struct AdjustContrast {
  static constexpr const char* name = "adjust_contrast";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, double contrast_factor, const Stream& stream);
};
// 3 channels, factor in [-0.5, 0.5].
struct AdjustHue {
  static constexpr const char* name = "adjust_hue";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, double hue_factor, const Stream& stream);
};
// Elementwise, gamma >= 0.
struct AdjustGamma {
  static constexpr const char* name = "adjust_gamma";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, double gamma, double gain, const Stream& stream);
};
// 1 or 3 channels, H > 2 and W > 2.
struct AdjustSharpness {
  static constexpr const char* name = "adjust_sharpness";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, double sharpness_factor, const Stream& stream);
};
// Elementwise.
struct Invert {
  static constexpr const char* name = "invert";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Stream& stream);
};
// Elementwise, bits in [0, 8] (and below the value bits for integer dtypes).
struct Posterize {
  static constexpr const char* name = "posterize";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, int bits, const Stream& stream);
};
// Elementwise.
struct Solarize {
  static constexpr const char* name = "solarize";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, double threshold, const Stream& stream);
};
// 1 or 3 channels, at least one element.
struct Autocontrast {
  static constexpr const char* name = "autocontrast";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Stream& stream);
};
// Rank >= 2 (a 2-D image is one channel), any number of channels, at least one element.
struct Equalize {
  static constexpr const char* name = "equalize";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Stream& stream);
};
// output channel k = input channel permutation[k] (indices already in [0, C)).
struct PermuteChannels {
  static constexpr const char* name = "permute_channels";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const std::vector<std::int64_t>& permutation,
                          const Stream& stream);
};
}  // namespace ops

namespace functional {

// num_output_channels 1 or 3 (ValueError otherwise); the image needs 1 or 3 channels.
Tensor rgb_to_grayscale(const Tensor& image, int num_output_channels = 1,
                        const std::optional<Stream>& stream = std::nullopt);
// 1 channel -> 3 copies; >= 3 channels: the input itself.
Tensor grayscale_to_rgb(const Tensor& image, const std::optional<Stream>& stream = std::nullopt);

Tensor adjust_brightness(const Tensor& image, double brightness_factor,
                         const std::optional<Stream>& stream = std::nullopt);
Tensor adjust_saturation(const Tensor& image, double saturation_factor,
                         const std::optional<Stream>& stream = std::nullopt);
Tensor adjust_contrast(const Tensor& image, double contrast_factor,
                       const std::optional<Stream>& stream = std::nullopt);
Tensor adjust_sharpness(const Tensor& image, double sharpness_factor,
                        const std::optional<Stream>& stream = std::nullopt);
Tensor adjust_hue(const Tensor& image, double hue_factor, const std::optional<Stream>& stream = std::nullopt);
Tensor adjust_gamma(const Tensor& image, double gamma, double gain = 1.0,
                    const std::optional<Stream>& stream = std::nullopt);

Tensor invert(const Tensor& image, const std::optional<Stream>& stream = std::nullopt);
Tensor posterize(const Tensor& image, int bits, const std::optional<Stream>& stream = std::nullopt);
Tensor solarize(const Tensor& image, double threshold, const std::optional<Stream>& stream = std::nullopt);
Tensor autocontrast(const Tensor& image, const std::optional<Stream>& stream = std::nullopt);
Tensor equalize(const Tensor& image, const std::optional<Stream>& stream = std::nullopt);

// output[..., k, :, :] = image[..., permutation[k], :, :]; negative indices count from the end.
Tensor permute_channels(const Tensor& image, const std::vector<std::int64_t>& permutation,
                        const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::RgbToGrayscale)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::AdjustBrightness)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::AdjustSaturation)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::AdjustContrast)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::AdjustHue)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::AdjustGamma)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::AdjustSharpness)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::Invert)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::Posterize)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::Solarize)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::Autocontrast)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::Equalize)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::PermuteChannels)
