// pad (torchvision.transforms.v2.functional.pad) on images [..., H, W] of any dtype.
//
// padding: {all}, {left/right, top/bottom} or {left, top, right, bottom}; negative values crop.
// fill (constant mode only): std::nullopt is 0; one value for every channel, or one per channel
// (constant mode only, as torchvision). Modes: constant, edge (replicate), reflect (mirror
// without repeating the edge; each padding must be smaller than the image side), symmetric
// (mirror repeating the edge; each padding at most the image side after negative paddings crop).
// Exact, except that torchvision sends int32/int64 images through float32 for edge and reflect,
// which this reproduces (values beyond 2^24 round).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: output[..., y, x] reads input[..., y - pad_top, x - pad_left] mapped into the
// image by `mode`, or fill[c] (constant mode, outside the image). `fill` holds 1 value (every
// channel) or one per channel, already in the form torchvision converts to the image dtype
// (the kernel casts each with Tensor.to semantics). `output` is dense planar or channels-last.
struct Pad {
  static constexpr const char* name = "pad";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, std::int64_t pad_left, std::int64_t pad_top,
                          PaddingMode mode, const std::vector<double>& fill, const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor pad(const Tensor& image, const std::vector<std::int64_t>& padding, const Fill& fill = std::nullopt,
           PaddingMode padding_mode = PaddingMode::Constant, const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Pad)
