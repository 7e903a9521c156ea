#include "functional/color_common.hpp"

#include <sstream>

#include "kernels/image_batch.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::detail::color {

std::string format_number(double value) {
  std::ostringstream out;
  out.precision(10);
  out << value;
  return out.str();
}

void check_one_or_three_channels(const char* op, const Tensor& image) {
  const std::int64_t c = image.size(-3);
  if (c != 1 && c != 3) {
    throw Error(ErrorKind::Type, op, "image", "1 or 3 channels (Input image tensor can have 1 or 3 channels; permitted channel values are 1 or 3)",
                std::to_string(c) + " channels");
  }
}

void check_value(bool ok, ErrorKind kind, const char* op, const char* argument, const char* expected, double value,
                 const char* torchvision_words) {
  if (ok) return;
  std::string got = format_number(value);
  if (torchvision_words) got += std::string(" (") + torchvision_words + ")";
  throw Error(kind, op, argument, expected, got);
}

Tensor batchable(const Tensor& image, const Stream& stream) {
  if (kernels::as_image_batch(image)) return image;
  return functional::convert_layout(image, MemoryFormat::Contiguous, stream);
}

Tensor image_output(const Tensor& image, std::int64_t channels, const Stream& stream) {
  const Dims shape = kernels::image_output_shape(image, channels, image.size(-2), image.size(-1));
  // A 1-channel image is both contiguous and channels_last: prefer contiguous, then
  // channels_last, then the image's own stride order.
  const Dims strides = image.is_contiguous()       ? contiguous_strides(shape)
                       : image.is_channels_last()  ? channels_last_strides(shape)
                                                   : dense_strides_like(shape, image.strides());
  return empty_strided(shape, strides, image.dtype(), image.device(), stream);
}

}  // namespace streamvision::detail::color
