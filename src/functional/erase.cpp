// Front end of erase.
#include "streamvision/functional/erase.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "functional/op_context.hpp"
#include "streamvision/functional/layout.hpp"
#include "streamvision/functional/to_dtype.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Erase)

namespace streamvision::functional {

namespace {

// Python's slice(start, stop) on a dim of size n: [first, last).
std::pair<std::int64_t, std::int64_t> python_slice(std::int64_t start, std::int64_t stop, std::int64_t n) {
  auto bound = [n](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + n : i, 0, n); };
  const std::int64_t first = bound(start);
  return {first, std::max(first, bound(stop))};
}

// Python's i + h for the slice stop, saturated instead of overflowing: a stop beyond either
// int64 limit slices exactly as the limit does (python_slice clamps it to the dim).
std::int64_t slice_stop(std::int64_t start, std::int64_t length) {
  std::int64_t stop = 0;
  if (__builtin_add_overflow(start, length, &stop)) {
    return length > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  }
  return stop;
}

}  // namespace

Tensor erase(const Tensor& image, std::int64_t i, std::int64_t j, std::int64_t h, std::int64_t w, const Tensor& v,
             bool inplace, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::Erase::name;
  detail::check_image(op, image, 2);
  if (!v.defined()) throw Error(ErrorKind::Type, op, "v", "a tensor", "an undefined tensor");
  const int rank = image.dim();
  const auto [top, bottom] = python_slice(i, slice_stop(i, h), image.size(-2));
  const auto [left, right] = python_slice(j, slice_stop(j, w), image.size(-1));
  Dims window(image.shape());
  window[rank - 2] = bottom - top;
  window[rank - 1] = right - left;

  // torch's assignment strips v's leading unit dims, then broadcasts v to the window.
  int first = 0;
  while (first < v.dim() && v.size(first) == 1) ++first;
  const int v_rank = v.dim() - first;
  Dims strides(window);
  bool ok = v_rank <= rank;
  for (int d = rank - 1; ok && d >= 0; --d) {
    const int vd = v.dim() - (rank - d);
    strides[d] = 0;
    if (vd < first) continue;
    if (v.size(vd) == window[d]) strides[d] = window[d] == 1 ? 0 : v.stride(vd);
    else ok = v.size(vd) == 1;
  }
  if (!ok) {
    throw Error(ErrorKind::Runtime, op, "v", "a tensor that broadcasts to the erased region's shape " + window.str(),
                "shape " + Dims(v.shape()).str());
  }
  if (!(v.device() == image.device()) && !v.device().is_cpu()) {
    throw Error(ErrorKind::Value, op, "v", "a tensor on the image's device " + image.device().str() + " or the CPU",
                "a tensor on " + v.device().str());
  }
  auto [kernel, on, src, out] = detail::prepare<ops::Erase>(image, stream, {.in_place = inplace});

  // Everything is checked: from here on the call writes.
  Tensor value = v;
  if (value.dtype() != image.dtype()) {
    value = to_dtype(value, image.dtype(), false, value.device().is_cuda() ? std::optional<Stream>(on) : std::nullopt);
  }
  if (!(value.device() == image.device())) value = to_device(value, image.device(), on);
  // The conversions above may have changed the layout: broadcast strides come from `value`.
  for (int d = rank - 1; d >= 0; --d) {
    const int vd = value.dim() - (rank - d);
    if (strides[d] != 0) strides[d] = value.stride(vd);
  }
  const Tensor view = from_blob(value.data(), window, strides, image.dtype(), image.device(), value.owner());
  if (out.numel() > 0) kernel(src, out, view, top, left, on);
  return out;
}

}  // namespace streamvision::functional
