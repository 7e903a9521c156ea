#include "streamvision/functional/normalize.hpp"

#include <string>

#include "functional/op_context.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Normalize)

namespace streamvision::functional {

namespace {

// Broadcast 1 value to C channels, or check there are exactly C values.
std::vector<double> per_channel(const std::vector<double>& values, std::int64_t channels, const char* argument) {
  if (values.size() == 1) return std::vector<double>(static_cast<std::size_t>(channels), values[0]);
  if (static_cast<std::int64_t>(values.size()) != channels) {
    throw Error(ErrorKind::Value, "normalize", argument,
                "1 or " + std::to_string(channels) + " values (one per channel)", format_list(values));
  }
  return values;
}

}  // namespace

Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& std, bool inplace,
                 const std::optional<Stream>& stream) {
  detail::check_image("normalize", image, 0);
  if (!is_floating_point(image.dtype())) {
    throw Error(ErrorKind::Type, "normalize", "image", "a float tensor (float16, bfloat16, float32, float64)",
                std::string(dtype_name(image.dtype())) + " (Input tensor should be a float tensor. Got torch." +
                    dtype_name(image.dtype()) + ".)");
  }
  if (image.dim() < 3) {
    throw Error(ErrorKind::Value, "normalize", "image", "a tensor with at least 3 dims ([..., C, H, W])",
                "shape " + Dims(image.shape()).str() + " (Expected tensor to be a tensor image of size (..., C, H, W))");
  }
  for (double s : std) {
    if (s == 0.0) throw Error(ErrorKind::Value, "normalize", "std", "non-zero values (std evaluated to zero, leading to division by zero)", format_list(std));
  }
  const std::int64_t channels = image.size(-3);
  if (channels > ops::Normalize::kMaxChannels) {
    throw Error(ErrorKind::Value, "normalize", "image",
                "at most " + std::to_string(ops::Normalize::kMaxChannels) + " channels (parameters travel in the kernel arguments)",
                std::to_string(channels) + " channels");
  }
  const std::vector<double> m = per_channel(mean, channels, "mean");
  const std::vector<double> s = per_channel(std, channels, "std");
  auto [kernel, on, src, out] = detail::prepare<ops::Normalize>(image, stream, {.in_place = inplace});
  if (out.numel() > 0) kernel(src, out, m, s, on);
  return out;
}

}  // namespace streamvision::functional
