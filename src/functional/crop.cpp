// crop, center_crop, five_crop, ten_crop. A window inside the image is a strided view of it (no
// kernel, no allocation: torchvision slices too); a window reaching outside is one pass of pad's
// kernel (a constant-zero pad with negative paddings). ten_crop's flipped crops are one flip pass
// over a view of the mirrored region.
#include "streamvision/functional/crop.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "functional/op_context.hpp"
#include "streamvision/functional/flip.hpp"
#include "streamvision/functional/pad.hpp"

namespace streamvision::functional {

namespace {

struct Window {
  std::int64_t top, left, height, width;
};

// [h, w] from {s} or {h, w}.
std::array<std::int64_t, 2> parse_size(const char* op, const char* argument, const std::vector<std::int64_t>& size,
                                       const char* expected) {
  if (size.size() == 1) return {size[0], size[0]};
  if (size.size() == 2) return {size[0], size[1]};
  throw Error(ErrorKind::Value, op, argument, expected,
              std::to_string(size.size()) + " values " + format_list(size));
}

void check_crop_size(const char* op, const char* argument, std::int64_t h, std::int64_t w) {
  if (h < 0 || w < 0) {
    throw Error(ErrorKind::Value, op, argument, "a non-negative height and width",
                std::to_string(h) + " x " + std::to_string(w));
  }
}

bool inside(const Tensor& image, const Window& win) {
  // Differences, not sums: a fuzzed window near INT64_MAX must not overflow.
  return win.top >= 0 && win.left >= 0 && win.height <= image.size(-2) - win.top && win.width <= image.size(-1) - win.left;
}

// Validated crop of `image` (any window; outside is zero): a view when the window is inside.
Tensor crop_unchecked(const Tensor& image, const Window& win, const std::optional<Stream>& stream) {
  detail::check_spatial_size("crop", std::max(image.size(-2), win.height), std::max(image.size(-1), win.width));
  if (inside(image, win)) {
    kernel_table<ops::Pad>().get(image.device(), image.dtype());  // the errors of a padded crop: unsupported device
    return image.slice(-2, win.top, win.top + win.height).slice(-1, win.left, win.left + win.width);
  }
  // A window wholly outside the image crops to zeros however far out it lies: clamping its
  // offset keeps it outside and keeps the kernel's margins (-top, -left) far from int64 overflow.
  const std::int64_t top = std::clamp(win.top, -win.height, image.size(-2));
  const std::int64_t left = std::clamp(win.left, -win.width, image.size(-1));
  auto [kernel, on, src, out] = detail::prepare<ops::Pad>(
      image, stream,
      {.height = win.height, .width = win.width, .layout = detail::OutputLayout::ChannelsLastOrContiguous, .image_batch = true});
  if (out.numel() > 0) kernel(src, out, -left, -top, PaddingMode::Constant, {0.0}, on);
  return out;
}

// torchvision's center crop window of an H x W image (padding folded into negative offsets).
Window center_window(std::int64_t h, std::int64_t w, std::int64_t ch, std::int64_t cw) {
  // torchvision pads a too-small image by ((cw - w) // 2, (cw - w + 1) // 2) on the sides, so the
  // padded width is max(w, cw); written that way it cannot overflow for sizes near INT64_MAX.
  const std::int64_t pad_left = cw > w ? (cw - w) / 2 : 0;
  const std::int64_t pad_top = ch > h ? (ch - h) / 2 : 0;
  const std::int64_t ww = std::max(w, cw);
  const std::int64_t hh = std::max(h, ch);
  if ((ch > h || cw > w) && cw == ww && ch == hh) return {-pad_top, -pad_left, ch, cw};
  // Python's round: half to even.
  const auto top = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(hh - ch) / 2.0));
  const auto left = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(ww - cw) / 2.0));
  return {top - pad_top, left - pad_left, ch, cw};
}

std::array<std::int64_t, 2> five_crop_size(const char* op, const Tensor& image, const std::vector<std::int64_t>& size) {
  detail::check_image(op, image, 2);
  const auto [ch, cw] = parse_size(op, "size", size, "one or two values (h, w) (Please provide only two dimensions (h, w) for size.)");
  check_crop_size(op, "size", ch, cw);
  const std::int64_t h = image.size(-2), w = image.size(-1);
  if (cw > w || ch > h) {
    throw Error(ErrorKind::Value, op, "size", "a crop no larger than the input size (" + std::to_string(h) + ", " + std::to_string(w) + ")",
                format_list(size) + " (Requested crop size is bigger than input size)");
  }
  kernel_table<ops::Pad>().get(image.device(), image.dtype());  // unsupported device: raise before any work
  return {ch, cw};
}

// The five windows: tl, tr, bl, br, center.
std::array<Window, 5> five_windows(std::int64_t h, std::int64_t w, std::int64_t ch, std::int64_t cw) {
  return {Window{0, 0, ch, cw}, Window{0, w - cw, ch, cw}, Window{h - ch, 0, ch, cw}, Window{h - ch, w - cw, ch, cw},
          center_window(h, w, ch, cw)};
}

}  // namespace

Tensor crop(const Tensor& image, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width,
            const std::optional<Stream>& stream) {
  detail::check_image("crop", image, 2);
  check_crop_size("crop", "height/width", height, width);
  return crop_unchecked(image, {top, left, height, width}, stream);
}

Tensor center_crop(const Tensor& image, const std::vector<std::int64_t>& output_size, const std::optional<Stream>& stream) {
  detail::check_image("center_crop", image, 2);
  const auto [ch, cw] = parse_size("center_crop", "output_size", output_size, "one or two values (h, w)");
  check_crop_size("center_crop", "output_size", ch, cw);
  return crop_unchecked(image, center_window(image.size(-2), image.size(-1), ch, cw), stream);
}

std::array<Tensor, 5> five_crop(const Tensor& image, const std::vector<std::int64_t>& size,
                                const std::optional<Stream>& stream) {
  const auto [ch, cw] = five_crop_size("five_crop", image, size);
  std::array<Tensor, 5> out;
  const auto windows = five_windows(image.size(-2), image.size(-1), ch, cw);
  for (int i = 0; i < 5; ++i) out[i] = crop_unchecked(image, windows[i], stream);
  return out;
}

std::array<Tensor, 10> ten_crop(const Tensor& image, const std::vector<std::int64_t>& size, bool vertical_flip,
                                const std::optional<Stream>& stream) {
  const auto [ch, cw] = five_crop_size("ten_crop", image, size);
  const std::int64_t h = image.size(-2), w = image.size(-1);
  std::array<Tensor, 10> out;
  const auto windows = five_windows(h, w, ch, cw);
  for (int i = 0; i < 5; ++i) out[i] = crop_unchecked(image, windows[i], stream);
  // A crop of the flipped image is the flip of the mirrored crop of the image.
  for (int i = 0; i < 5; ++i) {
    Window m = windows[i];
    if (vertical_flip) {
      m.top = h - ch - m.top;
    } else {
      m.left = w - cw - m.left;
    }
    const Tensor view = image.slice(-2, m.top, m.top + ch).slice(-1, m.left, m.left + cw);
    out[5 + i] = vertical_flip ? functional::vertical_flip(view, stream) : functional::horizontal_flip(view, stream);
  }
  return out;
}

}  // namespace streamvision::functional
