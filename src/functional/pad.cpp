// pad: torchvision's padding forms and modes; the kernel does one pass (see kernels/pad_plan.hpp).
#include "streamvision/functional/pad.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "core/dtype_dispatch.hpp"
#include "functional/op_context.hpp"
#include "kernels/border.hpp"
#include "kernels/cast.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Pad)

namespace streamvision::functional {

namespace {

constexpr const char* kOp = "pad";

// [left, top, right, bottom] from torchvision's 1, 2 or 4 element forms.
std::array<std::int64_t, 4> parse_padding(const std::vector<std::int64_t>& padding) {
  switch (padding.size()) {
    case 1: return {padding[0], padding[0], padding[0], padding[0]};
    case 2: return {padding[0], padding[1], padding[0], padding[1]};
    case 4: return {padding[0], padding[1], padding[2], padding[3]};
    default:
      throw Error(ErrorKind::Value, kOp, "padding", "an int or a 1, 2, or 4 element list",
                  std::to_string(padding.size()) + " elements " + format_list(padding));
  }
}

// torch's fill_(value) conversion check (c10 checked_convert): a RuntimeError when the scalar
// does not fit the image dtype.
template <class T>
bool scalar_fits(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return true;  // torch converts any value to bool (nonzero: true), e.g. a mask padded with 255
  } else if constexpr (kernels::is_float_like<T>) {
    if (std::isinf(v) || v != v) return true;
    double max = 0;
    if constexpr (std::is_same_v<T, Half>) max = 65504.0;
    else if constexpr (std::is_same_v<T, BFloat16>) max = 3.3895313892515355e38;
    else max = static_cast<double>(std::numeric_limits<T>::max());
    return v >= -max && v <= max;
  } else {
    return v == v && v >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
           v <= static_cast<double>(std::numeric_limits<T>::max());
  }
}

void check_scalar_fill(double v, DType dtype) {
  bool fits = true;
  detail::AllDTypes::dispatch(dtype, kOp, [&](auto tag) { fits = scalar_fits<typename decltype(tag)::type>(v); });
  if (!fits) {
    throw Error(ErrorKind::Runtime, kOp, "fill", std::string("a value that converts to ") + dtype_name(dtype) + " without overflow",
                format_list(std::vector<double>{v}));
  }
}

}  // namespace

Tensor pad(const Tensor& image, const std::vector<std::int64_t>& padding, const Fill& fill, PaddingMode padding_mode,
           const std::optional<Stream>& stream) {
  detail::check_image(kOp, image, 2);
  const auto [left, top, right, bottom] = parse_padding(padding);
  // Output sides are below 2^31 (check_spatial_size), so larger paddings can never be valid;
  // refusing them first also keeps the size arithmetic below free of int64 overflow.
  constexpr std::int64_t kMaxPadding = std::int64_t{1} << 31;
  for (const std::int64_t p : {left, top, right, bottom}) {
    if (p <= -kMaxPadding || p >= kMaxPadding) {
      throw Error(ErrorKind::Runtime, kOp, "padding", "paddings of magnitude below 2^31", format_list(padding));
    }
  }
  const std::int64_t h = image.size(-2), w = image.size(-1), channels = detail::channels_of(image);
  const std::vector<double> given = fill ? *fill : std::vector<double>{0.0};
  if (given.empty()) throw Error(ErrorKind::Value, kOp, "fill", "a value or one value per channel", "an empty list");
  std::vector<double> fill_values = given;
  if (given.size() > 1) {
    if (padding_mode != PaddingMode::Constant) {
      throw Error(ErrorKind::Value, kOp, "fill", "a scalar fill with padding mode '" + std::string(padding_mode_name(padding_mode)) + "'",
                  format_list(given) + " (Padding mode '" + padding_mode_name(padding_mode) +
                      "' is not supported if fill is not scalar)");
    }
    if (static_cast<std::int64_t>(given.size()) != channels) {
      throw Error(ErrorKind::Runtime, kOp, "fill", "1 or " + std::to_string(channels) + " values (one per channel)",
                  std::to_string(given.size()) + " values " + format_list(given));
    }
    if (given.size() > kernels::kMaxFillValues) {
      throw Error(ErrorKind::Value, kOp, "fill",
                  "at most " + std::to_string(kernels::kMaxFillValues) + " per-channel values", std::to_string(given.size()));
    }
    // torch.tensor(fill) is int64 when every value is an integer, else float32; then .to(dtype).
    bool integral = true;
    for (double v : given) integral = integral && std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.0e15;
    if (!integral) {
      for (double& v : fill_values) v = static_cast<double>(static_cast<float>(v));
    }
  } else if (padding_mode == PaddingMode::Constant) {
    check_scalar_fill(given[0], image.dtype());
  }

  const std::int64_t out_h = h + top + bottom, out_w = w + left + right;
  const std::string input_desc = "input of shape " + Dims(image.shape()).str() + " and padding [" + std::to_string(left) +
                                 ", " + std::to_string(top) + ", " + std::to_string(right) + ", " + std::to_string(bottom) + "]";
  switch (padding_mode) {
    case PaddingMode::Constant:
      if (out_h < 0 || out_w < 0) {
        throw Error(ErrorKind::Runtime, kOp, "padding", "paddings that leave a non-negative output size",
                    input_desc + " (output " + std::to_string(out_h) + " x " + std::to_string(out_w) + ")");
      }
      break;
    case PaddingMode::Reflect:
      if (left >= w || right >= w || top >= h || bottom >= h) {
        throw Error(ErrorKind::Runtime, kOp, "padding", "paddings smaller than the image side in reflect mode", input_desc);
      }
      [[fallthrough]];
    case PaddingMode::Edge:
      if (h == 0 || w == 0 || channels == 0 || out_h < 1 || out_w < 1) {
        throw Error(ErrorKind::Runtime, kOp, "padding",
                    "a non-empty image and an output of at least 1 x 1 in " + std::string(padding_mode_name(padding_mode)) + " mode",
                    input_desc);
      }
      break;
    case PaddingMode::Symmetric: {
      // torchvision crops the negative paddings away first, then mirrors at most once.
      const std::int64_t kept_h = h - std::max<std::int64_t>(-top, 0) - std::max<std::int64_t>(-bottom, 0);
      const std::int64_t kept_w = w - std::max<std::int64_t>(-left, 0) - std::max<std::int64_t>(-right, 0);
      if (std::max<std::int64_t>(left, 0) > std::max<std::int64_t>(kept_w, 0) ||
          std::max<std::int64_t>(right, 0) > std::max<std::int64_t>(kept_w, 0) ||
          std::max<std::int64_t>(top, 0) > std::max<std::int64_t>(kept_h, 0) ||
          std::max<std::int64_t>(bottom, 0) > std::max<std::int64_t>(kept_h, 0)) {
        throw Error(ErrorKind::Value, kOp, "padding", "paddings at most the image side in symmetric mode", input_desc);
      }
      if (out_h < 0 || out_w < 0) {
        throw Error(ErrorKind::Value, kOp, "padding", "paddings that leave a non-negative output size", input_desc);
      }
      break;
    }
  }
  detail::check_spatial_size(kOp, std::max(h, out_h), std::max(w, out_w));
  auto [kernel, on, src, out] = detail::prepare<ops::Pad>(
      image, stream, {.height = out_h, .width = out_w, .layout = detail::OutputLayout::ChannelsLastOrContiguous, .image_batch = true});
  if (out.numel() > 0) kernel(src, out, left, top, padding_mode, fill_values, on);
  return out;
}

}  // namespace streamvision::functional
