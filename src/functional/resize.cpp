// resize / resized_crop: torchvision's output-size rules and checks; the kernels are in
// src/cpu/resize.cpp and src/cuda/resize_*.cu over kernels/resize_weights.hpp.
#include "streamvision/functional/resize.hpp"

#include <cmath>
#include <string>

#include "functional/op_context.hpp"
#include "streamvision/functional/crop.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Resize)

namespace streamvision::functional {

namespace {

constexpr const char* kOp = "resize";

// Python's int(a * b / c) for non-negative int operands: an exact product, a correctly rounded
// true division, truncation. A product or quotient past int64 is an error (no image is that large).
std::int64_t scaled(std::int64_t a, std::int64_t b, std::int64_t c) {
  std::int64_t product = 0;
  const double q = __builtin_mul_overflow(a, b, &product) ? INFINITY : static_cast<double>(product) / static_cast<double>(c);
  if (!(q < 0x1p62)) {
    throw Error(ErrorKind::Value, kOp, "size", "an output size that fits in int64",
                std::to_string(a) + " * " + std::to_string(b) + " / " + std::to_string(c));
  }
  return static_cast<std::int64_t>(q);
}

bool is_tensor_mode(InterpolationMode mode) {
  return mode == InterpolationMode::Nearest || mode == InterpolationMode::NearestExact ||
         mode == InterpolationMode::Bilinear || mode == InterpolationMode::Bicubic;
}

// Everything resize checks before it allocates: the mode, the sizes, the dtype and device. `op`
// is the public op that errors name (resize, resized_crop).
ops::Resize::Kernel check_resize(const char* op, const Tensor& image, std::int64_t h, std::int64_t w, std::int64_t out_h,
                                 std::int64_t out_w, InterpolationMode interpolation) {
  if (!is_tensor_mode(interpolation)) {
    // torch's wording ("got hamming", unquoted) is what torchvision's tests match.
    throw Error(ErrorKind::NotImplemented, op, "interpolation", "nearest, nearest-exact, bilinear or bicubic for tensors",
                interpolation_mode_name(interpolation));
  }
  // An empty batch (no planes) resizes to an empty batch; otherwise every size must be positive.
  std::int64_t planes = 1;
  for (int d = 0; d < image.dim() - 2; ++d) planes *= image.size(d);
  if (out_h < 0 || out_w < 0 || (planes > 0 && (h <= 0 || w <= 0 || out_h == 0 || out_w == 0))) {
    throw Error(ErrorKind::Runtime, op, "size", "input and output sizes greater than 0",
                "input (H: " + std::to_string(h) + ", W: " + std::to_string(w) + ") output (H: " + std::to_string(out_h) +
                    ", W: " + std::to_string(out_w) + ")");
  }
  detail::check_spatial_size(op, std::max(h, out_h), std::max(w, out_w));
  detail::check_kernel_dtype<ops::Resize>(op, image);
  return kernel_table<ops::Resize>().get(image.device(), image.dtype());
}

// Resize of `image` to out_h x out_w (different from its size) after check_resize.
Tensor resize_to(ops::Resize::Kernel kernel, const Tensor& image, std::int64_t out_h, std::int64_t out_w,
                 InterpolationMode interpolation, std::optional<bool> antialias, const std::optional<Stream>& stream) {
  const bool aa = antialias.value_or(false) &&
                  (interpolation == InterpolationMode::Bilinear || interpolation == InterpolationMode::Bicubic);
  auto [_, on, src, out] = detail::prepare<ops::Resize>(
      image, stream, {.height = out_h, .width = out_w, .layout = detail::OutputLayout::ChannelsLastOrContiguous, .image_batch = true});
  if (out.numel() > 0) kernel(src, out, interpolation, aa, on);
  return out;
}

}  // namespace

std::vector<std::int64_t> resized_output_size(std::int64_t height, std::int64_t width, const Size& size,
                                              std::optional<std::int64_t> max_size) {
  // The max_size errors end with torchvision's own sentence in parentheses (its tests match it).
  // torchvision: short, long = (w, h) if w <= h else (h, w)
  const std::int64_t short_side = width <= height ? width : height;
  const std::int64_t long_side = width <= height ? height : width;
  std::int64_t new_short = 0, new_long = 0;
  if (size && size->size() != 1 && max_size) {
    throw Error(ErrorKind::Value, kOp, "max_size", "None unless size is None or one value",
                std::to_string(*max_size) + " with size " + format_list(*size) +
                    " (max_size should only be passed if size is None or specifies the length of the smaller edge, "
                    "i.e. size should be an int or a sequence of length 1)");
  }
  if (!size) {
    if (!max_size) {
      throw Error(ErrorKind::Value, kOp, "max_size", "an integer", "None (max_size must be an integer when size is None)");
    }
    if (long_side == 0) throw Error(ErrorKind::Value, kOp, "image", "a non-empty height and width", "0");
    new_short = scaled(*max_size, short_side, long_side);
    new_long = *max_size;
  } else if (size->size() == 1) {
    const std::int64_t requested = (*size)[0];
    if (short_side == 0) throw Error(ErrorKind::Value, kOp, "image", "a non-empty height and width", "0");
    new_short = requested;
    new_long = scaled(requested, long_side, short_side);
    if (max_size) {
      if (*max_size <= requested) {
        throw Error(ErrorKind::Value, kOp, "max_size", "a value greater than the requested smaller edge",
                    std::to_string(*max_size) + " (max_size = " + std::to_string(*max_size) +
                        " must be strictly greater than the requested size for the smaller edge size = " +
                        format_list(*size) + ")");
      }
      if (new_long > *max_size) {
        new_short = scaled(*max_size, new_short, new_long);
        new_long = *max_size;
      }
    }
  } else if (size->size() == 2) {
    return {(*size)[0], (*size)[1]};
  } else {
    throw Error(ErrorKind::Value, kOp, "size", "None, one value (the shorter edge) or two values (h, w)",
                std::to_string(size->size()) + " values " + format_list(*size));
  }
  return width <= height ? std::vector<std::int64_t>{new_long, new_short} : std::vector<std::int64_t>{new_short, new_long};
}

Tensor resize(const Tensor& image, const Size& size, InterpolationMode interpolation,
              std::optional<std::int64_t> max_size, std::optional<bool> antialias, const std::optional<Stream>& stream) {
  detail::check_image(kOp, image, 3);
  const std::int64_t h = image.size(-2), w = image.size(-1);
  const std::vector<std::int64_t> hw = resized_output_size(h, w, size, max_size);
  if (hw[0] == h && hw[1] == w) return image;
  const auto kernel = check_resize(kOp, image, h, w, hw[0], hw[1], interpolation);
  return resize_to(kernel, image, hw[0], hw[1], interpolation, antialias, stream);
}

Tensor resized_crop(const Tensor& image, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width,
                    const std::vector<std::int64_t>& size, InterpolationMode interpolation, std::optional<bool> antialias,
                    const std::optional<Stream>& stream) {
  detail::check_image("resized_crop", image, 3);
  if (height < 0 || width < 0) {
    throw Error(ErrorKind::Value, "resized_crop", "height/width", "a non-negative height and width",
                std::to_string(height) + " x " + std::to_string(width));
  }
  const std::vector<std::int64_t> hw = resized_output_size(height, width, size, std::nullopt);
  const bool inside = top >= 0 && left >= 0 && top <= image.size(-2) - height && left <= image.size(-1) - width;
  if (hw[0] == height && hw[1] == width) return crop(image, top, left, height, width, stream);
  const auto kernel = check_resize("resized_crop", image, height, width, hw[0], hw[1], interpolation);
  // A window inside the image is resized straight from a view; otherwise the zero-padded crop is
  // materialised first (torchvision pads it).
  const Tensor cropped = inside ? image.slice(-2, top, top + height).slice(-1, left, left + width)
                                : crop(image, top, left, height, width, stream);
  return resize_to(kernel, cropped, hw[0], hw[1], interpolation, antialias, stream);
}

}  // namespace streamvision::functional
