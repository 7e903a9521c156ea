// Front end of gaussian_blur.
#include "streamvision/functional/blur.hpp"

#include <string>

#include "functional/op_context.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::GaussianBlur)

namespace streamvision::functional {

Tensor gaussian_blur(const Tensor& image, const std::vector<std::int64_t>& kernel_size,
                     const OptionalList<double>& sigma, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::GaussianBlur::name;
  detail::check_image(op, image, 3);
  if (kernel_size.size() != 2) {
    throw Error(ErrorKind::Value, op, "kernel_size", "a sequence of length 2 ([kx, ky])",
                format_list(kernel_size) + " (kernel_size is a sequence its length should be 2)");
  }
  for (std::int64_t k : kernel_size) {
    if (k % 2 == 0 || k < 0) {
      throw Error(ErrorKind::Value, op, "kernel_size", "odd and positive integers",
                  format_list(kernel_size) + " (kernel_size should have odd and positive integers)");
    }
  }
  ops::GaussianBlurParams params;
  params.kernel_x = kernel_size[0];
  params.kernel_y = kernel_size[1];
  if (!sigma) {
    params.sigma_x = static_cast<double>(kernel_size[0]) * 0.15 + 0.35;
    params.sigma_y = static_cast<double>(kernel_size[1]) * 0.15 + 0.35;
  } else if (sigma->size() == 1) {
    params.sigma_x = params.sigma_y = (*sigma)[0];
  } else if (sigma->size() == 2) {
    params.sigma_x = (*sigma)[0];
    params.sigma_y = (*sigma)[1];
  } else {
    throw Error(ErrorKind::Value, op, "sigma", "one value or a sequence of length 2",
                format_list(*sigma) + " (sigma is a sequence, its length should be 2)");
  }
  if (!(params.sigma_x > 0) || !(params.sigma_y > 0)) {
    throw Error(ErrorKind::Value, op, "sigma", "positive values",
                format_list(std::vector<double>{params.sigma_x, params.sigma_y}) + " (sigma should have positive values)");
  }
  if (image.numel() == 0) return image;
  // torch's reflect padding needs the padding to be smaller than the padded dimension.
  if (params.kernel_x / 2 >= image.size(-1) || params.kernel_y / 2 >= image.size(-2)) {
    throw Error(ErrorKind::Runtime, op, "kernel_size",
                "kernel_size / 2 < the image's width and height (reflect padding size should be less than the "
                "corresponding input dimension)",
                format_list(kernel_size) + " for an image of size " + std::to_string(image.size(-2)) + "x" +
                    std::to_string(image.size(-1)));
  }
  auto [kernel, on, src, out] = detail::prepare<ops::GaussianBlur>(image, stream, {.image_batch = true});
  kernel(src, out, params, on);
  return out;
}

}  // namespace streamvision::functional
