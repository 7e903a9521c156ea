// resized_crop_batch's front end: the checks, the output, and the CPU path, which is the chain of
// functionals itself (resized_crop, horizontal_flip, to_dtype, normalize) per image: the
// definition the CUDA kernel (src/cuda/batch.cu) reproduces bit for bit in two launches.
#include "streamvision/functional/batch.hpp"

#include <cmath>
#include <string>

#include "functional/op_context.hpp"
#include "kernels/color_jitter_params.hpp"
#include "kernels/resized_crop_boxes.hpp"
#include "streamvision/functional/color.hpp"
#include "streamvision/functional/crop.hpp"
#include "streamvision/functional/flip.hpp"
#include "streamvision/functional/layout.hpp"
#include "streamvision/functional/normalize.hpp"
#include "streamvision/functional/resize.hpp"
#include "streamvision/functional/to_dtype.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::ResizedCropBatch)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::ColorJitterBatch)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::ResizedCropBoxes)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::ColorJitterParams)

namespace streamvision::functional {

namespace {

constexpr const char* kOp = "resized_crop_batch";

std::string describe(const Tensor& t) {
  std::string dims;
  for (int d = 0; d < t.dim(); ++d) dims += (d ? ", " : "") + std::to_string(t.size(d));
  return std::string(dtype_name(t.dtype())) + " [" + dims + "] on " + t.device().str();
}

void check_images(const std::vector<Tensor>& images) {
  if (images.empty()) throw Error(ErrorKind::Value, kOp, "images", "at least one image", "an empty list");
  const Tensor& first = images.front();
  for (std::size_t i = 0; i < images.size(); ++i) {
    const Tensor& x = images[i];
    const std::string name = "images[" + std::to_string(i) + "]";
    if (!x.defined() || x.dim() != 3) {
      throw Error(ErrorKind::Value, kOp, name.c_str(), "a [C, H, W] image", x.defined() ? describe(x) : "an undefined tensor");
    }
    if (x.device() != first.device() || x.dtype() != first.dtype() || x.size(0) != first.size(0)) {
      throw Error(ErrorKind::Value, kOp, name.c_str(), ("the device, dtype and channels of images[0] (" + describe(first) + ")").c_str(),
                  describe(x));
    }
    if (x.size(1) <= 0 || x.size(2) <= 0) throw Error(ErrorKind::Value, kOp, name.c_str(), "a non-empty image", describe(x));
  }
  if (first.size(0) > ops::ResizedCropBatch::kMaxChannels) {
    throw Error(ErrorKind::Value, kOp, "images", "at most 4 channels", describe(first));
  }
}

void check_parameter(const Tensor& t, const char* name, DType dtype, const Dims& shape, const Tensor& like,
                     const char* alternative = "") {
  bool ok = t.defined() && t.dtype() == dtype && t.device() == like.device() && t.dim() == shape.size();
  for (int d = 0; ok && d < shape.size(); ++d) ok = t.size(d) == shape[d];
  if (!ok) {
    std::string want = std::string(dtype_name(dtype)) + " [";
    for (int d = 0; d < shape.size(); ++d) want += (d ? ", " : "") + std::to_string(shape[d]);
    want += "] on " + like.device().str() + alternative;
    throw Error(ErrorKind::Value, kOp, name, want.c_str(), t.defined() ? describe(t) : "an undefined tensor");
  }
}

// A sampler's (min, max) range: finite, min <= max, and min > 0 where asked.
void check_range(const char* op, const char* name, const std::array<double, 2>& v, bool positive = false) {
  if (!(std::isfinite(v[0]) && std::isfinite(v[1]) && v[0] <= v[1]) || (positive && !(v[0] > 0))) {
    throw Error(ErrorKind::Value, op, name, positive ? "finite (min, max) with 0 < min <= max" : "finite (min, max) with min <= max",
                format_list(std::vector<double>{v[0], v[1]}));
  }
}

// The CPU path: the functionals, image by image.
void run_cpu(const std::vector<Tensor>& images, const Tensor& boxes, const Tensor& hflip, const Tensor& out,
             const std::vector<std::int64_t>& size, InterpolationMode interpolation, std::optional<bool> antialias,
             const std::optional<BatchWindow>& window, const BatchTail& tail) {
  const Tensor b = contiguous(boxes);
  const Tensor f = hflip.defined() ? contiguous(hflip) : Tensor();
  const bool one_box = b.dim() == 1;  // [4]: the same box for every image
  const bool one_flip = f.defined() && f.size(0) == 1;  // [1]: the same flip for every image
  const auto* box_data = static_cast<const std::int64_t*>(b.data());
  for (std::size_t i = 0; i < images.size(); ++i) {
    const std::int64_t* box = box_data + (one_box ? 0 : 4 * i);
    const std::int64_t top = box[0], left = box[1], h = box[2], w = box[3];
    const Tensor& x = images[i];
    // Written as subtractions: top + h would overflow for boxes near the int64 limits.
    if (h <= 0 || w <= 0 || top < 0 || left < 0 || top > x.size(1) - h || left > x.size(2) - w) {
      throw Error(ErrorKind::Value, kOp, ("boxes[" + std::to_string(i) + "]").c_str(),
                  ("a box inside its " + std::to_string(x.size(1)) + "x" + std::to_string(x.size(2)) + " image").c_str(),
                  "(top " + std::to_string(top) + ", left " + std::to_string(left) + ", height " + std::to_string(h) +
                      ", width " + std::to_string(w) + ")");
    }
    Tensor y;
    if (window) {
      y = resized_crop(x, top, left, h, w, {window->resize_h, window->resize_w}, interpolation, antialias);
      y = crop(y, window->top, window->left, size[0], size[1]);
    } else {
      y = resized_crop(x, top, left, h, w, size, interpolation, antialias);
    }
    if (f.defined() && static_cast<const bool*>(f.data())[one_flip ? 0 : i]) y = horizontal_flip(y);
    if (tail.dtype) y = to_dtype(y, *tail.dtype, tail.scale);
    if (!tail.mean.empty()) y = normalize(y, tail.mean, tail.std);
    copy_(out.select(0, static_cast<std::int64_t>(i)), y);
  }
}

// A to_dtype + normalize tail checked (normalize needs a float output, mean and std hold 1 or
// `channels` values, std none zero) and with mean and std one value per channel, as the kernels
// take them.
BatchTail checked_tail(const char* op, const BatchTail& tail, DType input, std::int64_t channels) {
  const DType out_dtype = tail.dtype.value_or(input);
  if (!tail.mean.empty() || !tail.std.empty()) {
    if (!is_floating_point(out_dtype)) {
      throw Error(ErrorKind::Type, op, "mean", "a float output dtype to normalize", dtype_name(out_dtype));
    }
    auto check_len = [&](const std::vector<double>& v, const char* name) {
      if (v.size() != 1 && static_cast<std::int64_t>(v.size()) != channels) {
        throw Error(ErrorKind::Value, op, name, ("1 or " + std::to_string(channels) + " values").c_str(), format_list(v));
      }
    };
    check_len(tail.mean, "mean");
    check_len(tail.std, "std");
    for (double s : tail.std) {
      if (s == 0.0) throw Error(ErrorKind::Value, op, "std", "non-zero values", format_list(tail.std));
    }
  }
  BatchTail t = tail;
  if (!t.mean.empty()) {  // one value per channel for the kernel
    if (t.mean.size() == 1) t.mean.assign(static_cast<std::size_t>(channels), t.mean[0]);
    if (t.std.size() == 1) t.std.assign(static_cast<std::size_t>(channels), t.std[0]);
  }
  return t;
}

}  // namespace

Tensor resized_crop_batch(const std::vector<Tensor>& images, const Tensor& boxes, const std::vector<std::int64_t>& size,
                          InterpolationMode interpolation, std::optional<bool> antialias, const std::optional<Tensor>& hflip,
                          const BatchTail& tail, const std::optional<BatchWindow>& window, MemoryFormat format,
                          const std::optional<Stream>& stream) {
  check_images(images);
  if (format != MemoryFormat::Contiguous && format != MemoryFormat::ChannelsLast) {
    throw Error(ErrorKind::Value, kOp, "format", "Contiguous or ChannelsLast", "Preserve");
  }
  const Tensor& first = images.front();
  const auto n = static_cast<std::int64_t>(images.size());
  // One box [4] or one flip [1] on the host serves every image (on CUDA, in the kernel's arguments).
  auto on_host = [](const Tensor& t, DType dtype, std::int64_t len) {
    return t.defined() && t.device().is_cpu() && t.dtype() == dtype && t.dim() == 1 && t.size(0) == len;
  };
  if (!on_host(boxes, DType::Int64, 4)) {
    check_parameter(boxes, "boxes", DType::Int64, {n, 4}, first, " (or int64 [4] on cpu: one box for every image)");
  }
  const Tensor flip = hflip ? *hflip : Tensor();
  if (flip.defined() && !on_host(flip, DType::Bool, 1)) {
    check_parameter(flip, "hflip", DType::Bool, {n}, first, " (or bool [1] on cpu: one flip for every image)");
  }
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
    throw Error(ErrorKind::Value, kOp, "size", "two positive values (height, width)", format_list(size));
  }
  if (window && (window->resize_h <= 0 || window->resize_w <= 0 || window->top < 0 || window->left < 0 ||
                 window->top + size[0] > window->resize_h || window->left + size[1] > window->resize_w)) {
    throw Error(ErrorKind::Value, kOp, "window", "an output window inside the resized image",
                "window (top " + std::to_string(window->top) + ", left " + std::to_string(window->left) + ") of " +
                    format_list(size) + " in " + std::to_string(window->resize_h) + "x" + std::to_string(window->resize_w));
  }
  const DType out_dtype = tail.dtype.value_or(first.dtype());
  const std::int64_t channels = first.size(0);
  const BatchTail t = checked_tail(kOp, tail, first.dtype(), channels);
  const Stream on = detail::op_stream(kOp, first, stream);
  if (first.device().is_cpu()) {
    Tensor out = empty({n, channels, size[0], size[1]}, out_dtype, first.device(), format);
    run_cpu(images, boxes, flip, out, size, interpolation, antialias, window, t);
    return out;
  }
  const auto kernel = kernel_table<ops::ResizedCropBatch>().get(first.device(), first.dtype());
  Tensor out = empty({n, channels, size[0], size[1]}, out_dtype, first.device(), format, on);
  const bool aa = antialias.value_or(false);
  const BatchWindow win = window.value_or(BatchWindow{size[0], size[1], 0, 0});
  auto dense = [&](const Tensor& x) {
    return !x.defined() || x.device().is_cpu() ? (x.defined() ? contiguous(x) : x) : functional::convert_layout(x, MemoryFormat::Contiguous, on);
  };
  kernel(images, dense(boxes), dense(flip), out, interpolation, aa, win, t, on);
  return out;
}

Tensor resized_crop_boxes(const Tensor& random, const std::vector<std::array<std::int64_t, 2>>& sizes,
                          const std::array<double, 2>& scale, const std::array<double, 2>& ratio,
                          const std::optional<Stream>& stream) {
  constexpr const char* op = "resized_crop_boxes";
  if (!random.defined() || random.dtype() != DType::Float32 || random.dim() != 2 || random.size(1) < 4 ||
      random.size(1) % 2 != 0 || random.size(0) != static_cast<std::int64_t>(sizes.size())) {
    throw Error(ErrorKind::Value, op, "random",
                ("float32 [" + std::to_string(sizes.size()) + ", 2 * attempts + 2] with attempts >= 1").c_str(),
                random.defined() ? describe(random) : "an undefined tensor");
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i][0] <= 0 || sizes[i][1] <= 0) {
      throw Error(ErrorKind::Value, op, ("sizes[" + std::to_string(i) + "]").c_str(), "a positive height and width",
                  format_list(std::vector<std::int64_t>{sizes[i][0], sizes[i][1]}));
    }
  }
  check_range(op, "scale", scale);
  check_range(op, "ratio", ratio, /*positive=*/true);
  const Stream on = detail::op_stream(op, random, stream);
  const std::int64_t n = random.size(0);
  Tensor boxes = empty({n, 4}, DType::Int64, random.device(), MemoryFormat::Contiguous, on);
  if (n == 0) return boxes;
  if (random.device().is_cpu()) {
    const Tensor u = contiguous(random);
    const int attempts = static_cast<int>((random.size(1) - 2) / 2);
    const kernels::CropBoxRule rule = kernels::make_crop_box_rule(attempts, scale[0], scale[1], ratio[0], ratio[1]);
    const auto* uv = static_cast<const float*>(u.data());
    auto* out = static_cast<std::int64_t*>(boxes.data());
    for (std::int64_t i = 0; i < n; ++i) {
      kernels::resized_crop_box(rule, uv + i * random.size(1), sizes[static_cast<std::size_t>(i)][0],
                                sizes[static_cast<std::size_t>(i)][1], out + 4 * i);
    }
    return boxes;
  }
  const auto kernel = kernel_table<ops::ResizedCropBoxes>().get(random.device(), random.dtype());
  kernel(contiguous(random), sizes, scale, ratio, boxes, on);
  return boxes;
}

std::array<Tensor, 2> color_jitter_params(const Tensor& random,
                                          const std::array<std::optional<std::array<double, 2>>, 4>& ranges,
                                          const std::optional<Stream>& stream) {
  constexpr const char* op = "color_jitter_params";
  if (!random.defined() || random.dtype() != DType::Float32 || random.dim() != 2 || random.size(1) != 8) {
    throw Error(ErrorKind::Value, op, "random", "float32 [N, 8]", random.defined() ? describe(random) : "an undefined tensor");
  }
  const char* names[4] = {"brightness", "contrast", "saturation", "hue"};
  for (int k = 0; k < 4; ++k) {
    if (const auto& r = ranges[static_cast<std::size_t>(k)]) check_range(op, names[k], *r);
  }
  const Stream on = detail::op_stream(op, random, stream);
  const std::int64_t n = random.size(0);
  std::array<Tensor, 2> out{empty({n, 4}, DType::Float64, random.device(), MemoryFormat::Contiguous, on),
                            empty({n, 4}, DType::Int64, random.device(), MemoryFormat::Contiguous, on)};
  if (n == 0) return out;
  if (random.device().is_cpu()) {
    const kernels::JitterDraw draw = kernels::make_jitter_draw(ranges);
    const Tensor u = contiguous(random);
    const auto* uv = static_cast<const float*>(u.data());
    auto* factors = out[0].data_as<double>();
    auto* order = out[1].data_as<std::int64_t>();
    for (std::int64_t i = 0; i < n; ++i) kernels::color_jitter_draw(draw, uv + 8 * i, factors + 4 * i, order + 4 * i);
    return out;
  }
  const auto kernel = kernel_table<ops::ColorJitterParams>().get(random.device(), random.dtype());
  kernel(contiguous(random), ranges, out[0], out[1], on);
  return out;
}

Tensor color_jitter_batch(const Tensor& images, const Tensor& factors, const Tensor& order,
                          const std::array<bool, 4>& enabled, const BatchTail& tail, const std::optional<Stream>& stream) {
  constexpr const char* op = "color_jitter_batch";
  detail::check_image(op, images, 4);
  if (images.dim() != 4) throw Error(ErrorKind::Value, op, "images", "a batch [N, C, H, W]", describe(images));
  const std::int64_t n = images.size(0);
  check_parameter(factors, "factors", DType::Float64, {n, 4}, images);
  check_parameter(order, "order", DType::Int64, {n, 4}, images);
  const BatchTail t = checked_tail(op, tail, images.dtype(), images.size(1));
  const DType out_dtype = t.dtype.value_or(images.dtype());
  const Stream on = detail::op_stream(op, images, stream);
  if (images.device().is_cpu()) {
    // The functionals image by image (their checks included: channels, dtype, factor ranges).
    const Tensor f = contiguous(factors), o = contiguous(order);
    const auto* fv = static_cast<const double*>(f.data());
    const auto* ov = static_cast<const std::int64_t*>(o.data());
    detail::OutputSpec spec;
    spec.dtype = out_dtype;
    Tensor out = detail::new_output(images, spec, on);  // the CUDA path's layout rule
    for (std::int64_t i = 0; i < n; ++i) {
      Tensor y = images.select(0, i);
      unsigned seen = 0;
      for (int k = 0; k < 4; ++k) {
        const std::int64_t which = ov[4 * i + k];
        const bool repeated = which >= 0 && which <= 3 && ((seen >> which) & 1u);
        if (which >= 0 && which <= 3) seen |= 1u << which;
        if (which < 0 || which > 3 || repeated) {
          throw Error(ErrorKind::Value, op, "order", "a permutation of 0, 1, 2, 3 per image",
                      "order[" + std::to_string(i) + "][" + std::to_string(k) + "] = " + std::to_string(which));
        }
        if (!enabled[static_cast<std::size_t>(which)]) continue;
        const double factor = fv[4 * i + which];
        switch (which) {
          case 0: y = adjust_brightness(y, factor); break;
          case 1: y = adjust_contrast(y, factor); break;
          case 2: y = adjust_saturation(y, factor); break;
          default: y = adjust_hue(y, factor); break;
        }
      }
      if (t.dtype) y = to_dtype(y, *t.dtype, t.scale);
      if (!t.mean.empty()) y = normalize(y, t.mean, t.std);
      copy_(out.select(0, i), y);
    }
    return out;
  }
  if (images.size(1) != 3) {
    throw Error(ErrorKind::NotImplemented, op, "images", "3 channels on CUDA (the per-image ops take 1)", describe(images));
  }
  const bool has_tail = t.dtype.has_value() || !t.mean.empty();
  if (has_tail && images.dtype() != DType::UInt8 && images.dtype() != DType::Float32) {
    // The CUDA kernel fuses the tail for the images the fused Compose chain makes; others take it
    // as the separate ops (the same result).
    Tensor y = color_jitter_batch(images, factors, order, enabled, {}, on);
    if (t.dtype) y = to_dtype(y, *t.dtype, t.scale, on);
    if (!t.mean.empty()) y = normalize(y, t.mean, t.std, false, on);
    return y;
  }
  const auto kernel = kernel_table<ops::ColorJitterBatch>().get(images.device(), images.dtype());
  detail::OutputSpec spec;
  spec.dtype = out_dtype;
  Tensor out = detail::new_output(images, spec, on);
  if (out.numel() == 0) return out;
  kernel(images, contiguous(factors), contiguous(order), enabled, t, out, on);
  return out;
}

}  // namespace streamvision::functional
