#include "streamvision/functional/to_dtype.hpp"

#include <string>

#include "functional/op_context.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::ToDtype)

namespace streamvision::functional {

Tensor to_dtype(const Tensor& image, DType dtype, bool scale, const std::optional<Stream>& stream) {
  detail::check_image("to_dtype", image, 0);
  const DType from = image.dtype();
  if (from == dtype) return image;
  if (scale) {
    const std::string pair = std::string(dtype_name(from)) + " -> " + dtype_name(dtype);
    if ((from == DType::Float32 && (dtype == DType::Int32 || dtype == DType::Int64)) ||
        (from == DType::Float64 && dtype == DType::Int64)) {
      throw Error(ErrorKind::Runtime, "to_dtype", "dtype", "a conversion that can be performed safely",
                  "The conversion from " + pair + " cannot be performed safely (scale=True)");
    }
    const bool float_from = is_floating_point(from), float_to = is_floating_point(dtype);
    if (!float_from && !float_to && (from == DType::Bool || dtype == DType::Bool)) {
      throw Error(ErrorKind::Type, "to_dtype", "dtype",
                  "integer dtypes on both sides of a scaled integer conversion (bool has no value bits)", pair);
    }
  }
  auto [kernel, on, src, out] = detail::prepare<ops::ToDtype>(image, stream, {.dtype = dtype});
  if (out.numel() > 0) kernel(src, out, scale, on);
  return out;
}

}  // namespace streamvision::functional
