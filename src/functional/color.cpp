// Front ends of the colour ops: torchvision's checks (and error kinds), output sizing, dispatch.
#include "streamvision/functional/color.hpp"

#include <string>

#include "functional/op_context.hpp"
#include "streamvision/functional/layout.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::RgbToGrayscale)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::AdjustBrightness)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::AdjustSaturation)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::AdjustContrast)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::AdjustHue)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::AdjustGamma)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::AdjustSharpness)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::Invert)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::Posterize)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::Solarize)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::Autocontrast)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::Equalize)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::PermuteChannels)

namespace streamvision::functional {

namespace {

void check_factor(const char* op, const char* argument, double factor) {
  const std::string words = std::string(argument) + " is not non-negative";
  detail::check_value(!(factor < 0), ErrorKind::Value, op, argument, "a non-negative factor", factor, words.c_str());
}

// The elementwise ops: output of the input's shape and stride order.
template <class Op, class... Args>
Tensor elementwise(const Tensor& image, const std::optional<Stream>& stream, Args... args) {
  auto [kernel, on, src, out] = detail::prepare<Op>(image, stream);
  if (out.numel() > 0) kernel(src, out, args..., on);
  return out;
}

// The image ops: output with `channels` channels, leading dims merged for the kernels.
template <class Op, class... Args>
Tensor image_op(const Tensor& image, std::int64_t channels, const std::optional<Stream>& stream, Args... args) {
  auto [kernel, on, src, out] = detail::prepare<Op>(image, stream, {.channels = channels, .image_batch = true});
  if (out.numel() > 0) kernel(src, out, args..., on);
  return out;
}

// A 1-channel image cloned into `channels` channels (torchvision's clone / repeat).
Tensor repeat_channel(const Tensor& image, std::int64_t channels, const std::optional<Stream>& stream) {
  const Stream on = detail::op_stream(ops::RgbToGrayscale::name, image, stream);
  Tensor out = detail::new_output(image, {.channels = channels}, on);
  if (out.numel() == 0) return out;
  const Tensor src = image.select(-3, 0);
  for (std::int64_t c = 0; c < channels; ++c) copy_(out.select(-3, c), src, on);
  return out;
}

}  // namespace

Tensor rgb_to_grayscale(const Tensor& image, int num_output_channels, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::RgbToGrayscale::name;
  detail::check_image(op, image, 3);
  if (num_output_channels != 1 && num_output_channels != 3) {
    throw Error(ErrorKind::Value, op, "num_output_channels", "1 or 3", std::to_string(num_output_channels));
  }
  const std::int64_t c = image.size(-3);
  if (c != 1 && c != 3) {
    throw Error(ErrorKind::Value, op, "image", "1 or 3 channels (r, g, b = image.unbind(-3))",
                std::to_string(c) + " channels");
  }
  if (c == 1) return repeat_channel(image, num_output_channels, stream);
  return image_op<ops::RgbToGrayscale>(image, num_output_channels, stream);
}

Tensor grayscale_to_rgb(const Tensor& image, const std::optional<Stream>& stream) {
  constexpr const char* op = "grayscale_to_rgb";
  detail::check_image(op, image, 3);
  const std::int64_t c = image.size(-3);
  if (c >= 3) return image;
  if (c != 1) {
    throw Error(ErrorKind::Value, op, "image", "1 channel, or 3 or more (returned as they are)",
                std::to_string(c) + " channels");
  }
  return repeat_channel(image, 3, stream);
}

Tensor adjust_brightness(const Tensor& image, double brightness_factor, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::AdjustBrightness::name;
  detail::check_image(op, image, 3);
  check_factor(op, "brightness_factor", brightness_factor);
  detail::check_one_or_three_channels(op, image);
  return elementwise<ops::AdjustBrightness>(image, stream, brightness_factor);
}

Tensor adjust_saturation(const Tensor& image, double saturation_factor, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::AdjustSaturation::name;
  detail::check_image(op, image, 3);
  check_factor(op, "saturation_factor", saturation_factor);
  detail::check_one_or_three_channels(op, image);
  if (image.size(-3) == 1) return image;  // PIL's behaviour
  return image_op<ops::AdjustSaturation>(image, 3, stream, saturation_factor);
}

Tensor adjust_contrast(const Tensor& image, double contrast_factor, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::AdjustContrast::name;
  detail::check_image(op, image, 3);
  check_factor(op, "contrast_factor", contrast_factor);
  detail::check_one_or_three_channels(op, image);
  return image_op<ops::AdjustContrast>(image, image.size(-3), stream, contrast_factor);
}

Tensor adjust_sharpness(const Tensor& image, double sharpness_factor, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::AdjustSharpness::name;
  detail::check_image(op, image, 3);
  detail::check_one_or_three_channels(op, image);
  check_factor(op, "sharpness_factor", sharpness_factor);
  if (image.numel() == 0 || image.size(-2) <= 2 || image.size(-1) <= 2) return image;
  return image_op<ops::AdjustSharpness>(image, image.size(-3), stream, sharpness_factor);
}

Tensor adjust_hue(const Tensor& image, double hue_factor, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::AdjustHue::name;
  detail::check_image(op, image, 3);
  detail::check_value(-0.5 <= hue_factor && hue_factor <= 0.5, ErrorKind::Value, op, "hue_factor",
                      "a hue factor in [-0.5, 0.5]", hue_factor, "hue_factor is not in [-0.5, 0.5]");
  detail::check_one_or_three_channels(op, image);
  if (image.size(-3) == 1 || image.numel() == 0) return image;
  return image_op<ops::AdjustHue>(image, 3, stream, hue_factor);
}

Tensor adjust_gamma(const Tensor& image, double gamma, double gain, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::AdjustGamma::name;
  detail::check_image(op, image, 0);
  detail::check_value(!(gamma < 0), ErrorKind::Value, op, "gamma", "a non-negative real number", gamma,
                             "Gamma should be a non-negative real number");
  return elementwise<ops::AdjustGamma>(image, stream, gamma, gain);
}

Tensor invert(const Tensor& image, const std::optional<Stream>& stream) {
  detail::check_image(ops::Invert::name, image, 0);
  return elementwise<ops::Invert>(image, stream);
}

Tensor posterize(const Tensor& image, int bits, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::Posterize::name;
  detail::check_image(op, image, 0);
  if (bits < 0 || bits > 8) {
    throw Error(ErrorKind::Type, op, "bits", "an integer in the range [0, 8]",
                std::to_string(bits) + " (bits must be a positive integer in the range [0, 8], got " + std::to_string(bits) +
                    " instead.)");
  }
  kernel_table<ops::Posterize>().get(image.device(), image.dtype());  // unsupported: raise before the shortcut
  if (!is_floating_point(image.dtype()) && bits >= value_bits(image.dtype())) return image;
  return elementwise<ops::Posterize>(image, stream, bits);
}

Tensor solarize(const Tensor& image, double threshold, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::Solarize::name;
  detail::check_image(op, image, 0);
  if (threshold > max_value(image.dtype())) {
    throw Error(ErrorKind::Type, op, "threshold",
                "a threshold <= the maximum value of " + std::string(dtype_name(image.dtype())) + " (" +
                    format_number(max_value(image.dtype())) + ")",
                format_number(threshold) +
                    " (Threshold should be less or equal the maximum value of the dtype)");
  }
  return elementwise<ops::Solarize>(image, stream, threshold);
}

Tensor autocontrast(const Tensor& image, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::Autocontrast::name;
  detail::check_image(op, image, 3);
  detail::check_one_or_three_channels(op, image);
  if (image.numel() == 0) return image;
  return image_op<ops::Autocontrast>(image, image.size(-3), stream);
}

Tensor equalize(const Tensor& image, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::Equalize::name;
  detail::check_image(op, image, 2);
  if (image.numel() == 0) return image;
  if (image.dim() == 2) {
    // One channel: give the kernels a [1, H, W] view.
    return equalize(image.unsqueeze(0), stream).select(0, 0);
  }
  return image_op<ops::Equalize>(image, image.size(-3), stream);
}

Tensor permute_channels(const Tensor& image, const std::vector<std::int64_t>& permutation,
                        const std::optional<Stream>& stream) {
  constexpr const char* op = ops::PermuteChannels::name;
  detail::check_image(op, image, 3);
  const std::int64_t c = image.size(-3);
  if (static_cast<std::int64_t>(permutation.size()) != c) {
    throw Error(ErrorKind::Value, op, "permutation",
                "as many entries as channels (" + std::to_string(c) + ")", std::to_string(permutation.size()) + " entries");
  }
  std::vector<std::int64_t> resolved(permutation.size());
  for (std::size_t k = 0; k < permutation.size(); ++k) {
    const std::int64_t p = permutation[k];
    if (p < -c || p >= c) {
      throw Error(ErrorKind::Value, op, "permutation",
                  "channel indices in [" + std::to_string(-c) + ", " + std::to_string(c) + ")", std::to_string(p));
    }
    resolved[k] = p < 0 ? p + c : p;
  }
  if (image.numel() == 0) return image;
  return image_op<ops::PermuteChannels>(image, c, stream, resolved);
}

}  // namespace streamvision::functional
