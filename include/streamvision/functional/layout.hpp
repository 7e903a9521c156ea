// Copies between layouts and devices. All of them are one strided-copy kernel over views, so
// any layout (contiguous, channels_last, sliced) converts without an intermediate copy.
#pragma once

#include <optional>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: copy `input` into `output` (same shape and dtype, any strides, same device).
struct Copy {
  static constexpr const char* name = "copy";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Stream& stream);
};
}  // namespace ops

namespace functional {

// A copy of `image` in `format` (Contiguous or ChannelsLast). Returns `image` itself when it
// already has that layout, as torch's Tensor.contiguous() does.
Tensor convert_layout(const Tensor& image, MemoryFormat format, const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional

inline Tensor contiguous(const Tensor& t) { return functional::convert_layout(t, MemoryFormat::Contiguous); }
inline Tensor to_channels_last(const Tensor& t) { return functional::convert_layout(t, MemoryFormat::ChannelsLast); }

// Writes `src` into `dst` (same shape and dtype; any strides). Across devices, through a
// dense staging copy; the copy is ordered on `stream` (default: current stream of the CUDA
// side). A copy to the CPU waits for its completion before returning, so the host can read.
void copy_(const Tensor& dst, const Tensor& src, const std::optional<Stream>& stream = std::nullopt);
// A copy of `t` on `device` with the same layout (dense). Same device returns `t`.
Tensor to_device(const Tensor& t, Device device, const std::optional<Stream>& stream = std::nullopt);

}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Copy)
