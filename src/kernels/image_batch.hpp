// Internal: an image tensor [..., C, H, W] seen as a strided [N, C, H, W] batch, the shape every
// image kernel (geometry, colour, filters) works on; kernels read any C/H/W strides directly.
// Made from a tensor by core/tensor_views.hpp.
#pragma once

#include <cstdint>

namespace streamvision::kernels {

struct ImageBatch {
  void* data = nullptr;
  std::int64_t n = 1, c = 1, h = 1, w = 1;
  std::int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;  // elements
};

// True when the batch keeps its channels innermost (channels-last order: the smallest stride of
// C, H, W is C's).
inline bool channels_innermost(const ImageBatch& b) {
  return b.c > 1 && (b.h <= 1 || b.stride_h > b.stride_c) && (b.w <= 1 || b.stride_w > b.stride_c);
}

}  // namespace streamvision::kernels
