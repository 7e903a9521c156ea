// erase (torchvision.transforms.v2.functional, _augment.py): image[..., i:i+h, j:j+w] = v.
//
// The window follows Python's slice rules (negative i / j count from the end, the window is
// clipped to the image, an empty window changes nothing). v broadcasts to the window's shape
// [..., C, h', w'] (RuntimeError otherwise) and is cast to the image's dtype like torch's
// assignment (a plain cast). v on the CPU with a CUDA image is copied to the device first (pass
// v on the image's device to keep the call free of host copies, e.g. under graph capture).
// inplace=false copies the image first; inplace=true writes into it and returns it. Any dtype.
#pragma once

#include <cstdint>
#include <optional>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: output is the input or a tensor of its shape and dtype on its device; value
// has the window's shape (broadcast strides may be 0) and the image's dtype and device; the
// window is rows [top, bottom) and columns [left, right) of the last two dims, non-empty.
struct Erase {
  static constexpr const char* name = "erase";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const Tensor& value, std::int64_t top,
                          std::int64_t left, const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor erase(const Tensor& image, std::int64_t i, std::int64_t j, std::int64_t h, std::int64_t w, const Tensor& v,
             bool inplace = false, const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Erase)
