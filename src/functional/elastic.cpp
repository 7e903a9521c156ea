// elastic: checks the displacement and brings it to the grid dtype on the op's stream.
#include "streamvision/functional/elastic.hpp"

#include <string>

#include "functional/op_context.hpp"
#include "streamvision/functional/to_dtype.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Elastic)

namespace streamvision::functional {

Tensor elastic(const Tensor& image, const Tensor& displacement, InterpolationMode interpolation, const Fill& fill,
               const std::optional<Stream>& stream) {
  constexpr const char* op = "elastic";
  detail::check_image(op, image, 3);
  if (!displacement.defined()) {
    throw Error(ErrorKind::Type, op, "displacement", "a Tensor (Argument displacement should be a Tensor)", "None (an undefined tensor)");
  }
  const std::int64_t h = image.size(-2), w = image.size(-1);
  const Dims expected{1, h, w, 2};
  if (!(Dims(displacement.shape()) == expected)) {
    throw Error(ErrorKind::Value, op, "displacement",
                "shape " + expected.str() + " (Argument displacement shape should be " + expected.str() + ")",
                "shape " + Dims(displacement.shape()).str());
  }
  if (displacement.device() != image.device()) {
    throw Error(ErrorKind::Value, op, "displacement", "a tensor on the image's device " + image.device().str(),
                "a tensor on " + displacement.device().str());
  }
  detail::check_grid_interpolation(op, interpolation);
  detail::check_grid_fill(op, fill, image.size(-3));
  detail::check_spatial_size(op, h, w);
  auto [kernel, on, src, out] = detail::prepare<ops::Elastic>(
      image, stream, {.layout = detail::OutputLayout::ChannelsLastOrContiguous, .image_batch = true});
  // torchvision: displacement.to(dtype) with the image's float dtype, float32 for integer images
  // and for float16 ones, which torchvision samples in float32 (kernels::ElasticGrid).
  const DType grid_dtype =
      is_floating_point(image.dtype()) && image.dtype() != DType::Float16 ? image.dtype() : DType::Float32;
  const Tensor grid_displacement = to_dtype(displacement, grid_dtype, /*scale=*/false, on);
  if (out.numel() > 0) kernel(src, out, grid_displacement, interpolation, fill, on);
  return out;
}

}  // namespace streamvision::functional
