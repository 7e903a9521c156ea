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
// side). A copy to the CPU waits for its completion before returning, so the host can read. A
// copy from pageable CPU memory has read `src` when it returns (CUDA stages pageable memory
// before its copy call returns); from page-locked memory the transfer may still be queued, so
// keep such a `src` unchanged as non_blocking requires.
//
// non_blocking (torch's): a copy between a CUDA tensor and a page-locked CPU tensor (is_pinned,
// empty_pinned) is queued on `stream` and copy_ returns without waiting. The caller then
// orders host access: record an Event on `stream` after the copy and synchronize it (or the
// stream) before the host reads a CPU destination, or writes, reuses or frees a CPU source;
// until then the CPU tensor must stay alive (hold a reference to it) and untouched. The CPU
// side must also be laid out so that one transfer covers it: a destination dense in any dim
// order, a source dense in any dim order (the CUDA side's layout does not matter; a layout
// change happens on the device, on `stream`). Otherwise, and whenever the CPU side is pageable,
// the copy falls back to the blocking behaviour above, as torch does. Same-device copies and
// copies between GPUs ignore it (they never block the host).
void copy_(const Tensor& dst, const Tensor& src, const std::optional<Stream>& stream = std::nullopt,
           bool non_blocking = false);
// A copy of `t` on `device` with the same layout (dense). Same device returns `t`. non_blocking
// as in copy_; the copy's destination is allocated here, pageable on the CPU, so to the CPU it
// blocks: to download without waiting, copy_ into an empty_pinned tensor instead.
Tensor to_device(const Tensor& t, Device device, const std::optional<Stream>& stream = std::nullopt,
                 bool non_blocking = false);

}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Copy)
