#include "functional/op_context.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "kernels/border.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::detail {

void check_image(const char* op, const Tensor& t, int min_rank) {
  if (!t.defined()) throw Error(ErrorKind::Type, op, "image", "a tensor", "an undefined tensor");
  if (t.dim() < min_rank) {
    std::string expected = "a tensor with at least " + std::to_string(min_rank) + " dims";
    if (min_rank == 3) expected += " ([..., C, H, W])";
    if (min_rank == 2) expected += " ([..., H, W])";
    throw Error(ErrorKind::Value, op, "image", expected, "shape " + Dims(t.shape()).str());
  }
}

void check_value(bool ok, ErrorKind kind, const char* op, const char* argument, const char* expected, double value,
                 const char* torchvision_words) {
  if (ok) return;
  std::string got = format_number(value);
  if (torchvision_words) got += std::string(" (") + torchvision_words + ")";
  throw Error(kind, op, argument, expected, got);
}

void check_finite(const char* op, const char* argument, double v) {
  if (!std::isfinite(v)) throw Error(ErrorKind::Value, op, argument, "a finite value", format_number(v));
}

void check_finite(const char* op, const char* argument, const std::vector<double>& values) {
  for (double v : values) {
    if (!std::isfinite(v)) throw Error(ErrorKind::Value, op, argument, "finite values", format_list(values));
  }
}

void check_one_or_three_channels(const char* op, const Tensor& image) {
  const std::int64_t c = image.size(-3);
  if (c != 1 && c != 3) {
    throw Error(ErrorKind::Type, op, "image",
                "1 or 3 channels (Input image tensor can have 1 or 3 channels; permitted channel values are 1 or 3)",
                std::to_string(c) + " channels");
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
                std::to_string(n) + " values " + format_list(*fill));
  }
  if (n > kernels::kMaxFillValues) {
    throw Error(ErrorKind::Value, op, "fill",
                "at most " + std::to_string(kernels::kMaxFillValues) +
                    " per-channel values (they travel in the kernel arguments)",
                std::to_string(n) + " values");
  }
}

Stream op_stream(const char* op, const Tensor& input, const std::optional<Stream>& stream) {
  if (!input.device().is_cuda()) return Stream();
  if (!stream) return Stream::current(input.device().index);
  if (!stream->is_valid() || stream->device_index() != input.device().index) {
    throw Error(ErrorKind::Value, op, "stream", "a stream on the input's device " + input.device().str(),
                stream->is_valid() ? "a stream on cuda:" + std::to_string(stream->device_index()) : "no stream");
  }
  return *stream;
}

Tensor new_output(const Tensor& input, const OutputSpec& spec, const Stream& stream) {
  const bool same_shape = spec.channels < 0 && spec.height < 0 && spec.width < 0;
  const Dims shape = same_shape ? Dims(input.shape())
                                : image_output_shape(input, spec.channels >= 0 ? spec.channels : channels_of(input),
                                                     spec.height >= 0 ? spec.height : input.size(-2),
                                                     spec.width >= 0 ? spec.width : input.size(-1));
  Dims strides;
  if (spec.layout == OutputLayout::ChannelsLastOrContiguous) {
    strides = is_interleaved(input) ? channels_last_strides(shape) : contiguous_strides(shape);
  } else {
    strides = input.is_contiguous()      ? contiguous_strides(shape)
              : input.is_channels_last() ? channels_last_strides(shape)
                                         : dense_strides_like(shape, input.strides());
  }
  return empty_strided(shape, strides, spec.dtype.value_or(input.dtype()), input.device(), stream);
}

Tensor batchable(const Tensor& image, const Stream& stream) {
  if (try_image_batch(image)) return image;
  return functional::convert_layout(image, MemoryFormat::Contiguous, stream);
}

void check_no_internal_overlap(const char* op, const char* argument, const Tensor& t) {
  // Provably distinct addresses: with the dims of more than one element sorted by stride, each
  // stride steps past everything the smaller dims span. A tensor that fails this may write one
  // location twice (a zero stride, or rows overlapping like strides [20, 2] for [2, 20]), which
  // would make the result depend on the order the engine writes in; refused (torch refuses the
  // zero-stride case and lets the others through).
  struct Dim {
    std::int64_t stride, size;
  };
  std::array<Dim, kMaxRank> dims{};
  int n = 0;
  for (int d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1) dims[static_cast<std::size_t>(n++)] = {t.stride(d) < 0 ? -t.stride(d) : t.stride(d), t.size(d)};
  }
  std::sort(dims.begin(), dims.begin() + n, [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  std::int64_t span = 1;  // elements covered by the smaller dims, plus one
  bool distinct = true;
  for (int i = 0; i < n && distinct; ++i) {
    const Dim& d = dims[static_cast<std::size_t>(i)];
    distinct = d.stride >= span;
    span += (d.size - 1) * d.stride;  // no overflow: a tensor's span fits in memory
  }
  if (!distinct) {
    throw Error(ErrorKind::Runtime, op, argument, "a tensor whose elements are at distinct addresses",
                "strides " + Dims(t.strides()).str() + " for shape " + Dims(t.shape()).str() +
                    " (unsupported operation: some elements of the written-to tensor refer to a single memory "
                    "location. Please clone() the tensor before performing the operation.)");
  }
}

}  // namespace streamvision::detail
