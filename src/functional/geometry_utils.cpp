#include "functional/geometry_utils.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "functional/op_context.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::detail {

namespace {

std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string join_values(const std::vector<double>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + format_double(values[i]);
  return out + "]";
}

std::string join_values(const std::vector<std::int64_t>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

void check_finite(const char* op, const char* argument, double v) {
  if (!std::isfinite(v)) throw Error(ErrorKind::Value, op, argument, "a finite value", format_double(v));
}

void check_finite(const char* op, const char* argument, const std::vector<double>& values) {
  for (double v : values) {
    if (!std::isfinite(v)) throw Error(ErrorKind::Value, op, argument, "finite values", join_values(values));
  }
}

void check_spatial_size(const char* op, std::int64_t height, std::int64_t width) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (height > kMax || width > kMax) {
    throw Error(ErrorKind::Value, op, "image", "height and width below 2^31",
                std::to_string(height) + " x " + std::to_string(width));
  }
}

void check_grid_interpolation(const char* op, InterpolationMode mode) {
  if (mode != InterpolationMode::Nearest && mode != InterpolationMode::Bilinear) {
    throw Error(ErrorKind::Value, op, "interpolation", "nearest or bilinear",
                std::string("'") + interpolation_mode_name(mode) + "' (Interpolation mode '" +
                    interpolation_mode_name(mode) + "' is unsupported with Tensor input)");
  }
}

void check_grid_fill(const char* op, const Fill& fill, std::int64_t channels) {
  if (!fill) return;
  const std::size_t n = fill->size();
  if (n == 0) throw Error(ErrorKind::Value, op, "fill", "one value or one per channel", "an empty list");
  if (n > 1 && static_cast<std::int64_t>(n) != channels) {
    throw Error(ErrorKind::Value, op, "fill",
                "1 or " + std::to_string(channels) + " values (the number of elements in 'fill' cannot broadcast to "
                "match the number of channels of the image)",
                std::to_string(n) + " values " + join_values(*fill));
  }
  if (n > kMaxFillValues) {
    throw Error(ErrorKind::Value, op, "fill",
                "at most " + std::to_string(kMaxFillValues) + " per-channel values (they travel in the kernel arguments)",
                std::to_string(n) + " values");
  }
}

void check_dtype(const char* op, DType dtype, DTypeSet supported) {
  if (!supported.contains(dtype)) {
    throw Error(ErrorKind::UnsupportedDType, op, "image", "dtype in {" + supported.to_string() + "}", dtype_name(dtype));
  }
}

Tensor batchable(const Tensor& image, const Stream& stream) {
  if (kernels::as_image_batch(image)) return image;
  return functional::convert_layout(image, MemoryFormat::Contiguous,
                                    image.device().is_cuda() ? std::optional<Stream>(stream) : std::nullopt);
}

kernels::ImageBatch image_batch(const Tensor& t) {
  const auto b = kernels::as_image_batch(t);
  if (!b) throw Error(ErrorKind::Runtime, "geometry", "image", "leading dims that merge into one batch dim", t.str());
  return *b;
}

bool is_interleaved(const Tensor& t) {
  if (t.dim() < 3 || t.size(-3) <= 1) return false;
  for (int d : {-2, -1}) {
    if (t.size(d) > 1 && t.stride(d) <= t.stride(-3)) return false;
  }
  return true;
}

Tensor empty_image_like(const Tensor& input, const Dims& shape, const Stream& stream) {
  const Dims strides = is_interleaved(input) ? channels_last_strides(shape) : contiguous_strides(shape);
  return empty_strided(shape, strides, input.dtype(), input.device(),
                       input.device().is_cuda() ? std::optional<Stream>(stream) : std::nullopt);
}

}  // namespace streamvision::detail
