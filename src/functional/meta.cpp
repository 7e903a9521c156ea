#include "streamvision/functional/meta.hpp"

#include <string>

#include "streamvision/core/error.hpp"

namespace streamvision::functional {

namespace {

void check_rank(const char* op, const Tensor& image) {
  if (!image.defined()) throw Error(ErrorKind::Type, op, "image", "a tensor", "an undefined tensor");
  if (image.dim() < 2) {
    throw Error(ErrorKind::Type, op, "image", "a tensor with at least two dimensions",
                std::to_string(image.dim()) + " dimensions");
  }
}

}  // namespace

std::vector<std::int64_t> get_dimensions(const Tensor& image) {
  check_rank("get_dimensions", image);
  return {get_num_channels(image), image.size(-2), image.size(-1)};
}

std::int64_t get_num_channels(const Tensor& image) {
  check_rank("get_num_channels", image);
  return image.dim() >= 3 ? image.size(-3) : 1;
}

std::vector<std::int64_t> get_size(const Tensor& image) {
  check_rank("get_size", image);
  return {image.size(-2), image.size(-1)};
}

}  // namespace streamvision::functional
