// Internal: an image tensor [..., C, H, W] seen as a strided [N, C, H, W] batch, the shape
// every image kernel (geometry, colour, filters) works on. Leading dims merge into N without a
// copy whenever their strides allow it, which is the case for contiguous, channels_last and
// most sliced tensors; kernels read any C/H/W strides directly.
#pragma once

#include <cstdint>
#include <optional>

#include "streamvision/core/tensor.hpp"

namespace streamvision::kernels {

struct ImageBatch {
  void* data = nullptr;
  std::int64_t n = 1, c = 1, h = 1, w = 1;
  std::int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;  // elements
};

// `t` must have at least 2 dims; a 2-D tensor is one single-channel image. Returns nullopt
// when the leading dims cannot be merged into one stride (make the tensor contiguous first).
inline std::optional<ImageBatch> as_image_batch(const Tensor& t) {
  const int rank = t.dim();
  ImageBatch b;
  b.data = t.data();
  b.h = t.shape()[rank - 2];
  b.w = t.shape()[rank - 1];
  b.stride_h = t.strides()[rank - 2];
  b.stride_w = t.strides()[rank - 1];
  if (rank >= 3) {
    b.c = t.shape()[rank - 3];
    b.stride_c = t.strides()[rank - 3];
  }
  // Merge leading dims from the innermost outwards; size-1 dims are skipped.
  b.n = 1;
  b.stride_n = 0;
  std::int64_t expected = -1;  // the stride the next (outer) dim must have to merge
  for (int d = rank - 4; d >= 0; --d) {
    const std::int64_t size = t.shape()[d], stride = t.strides()[d];
    if (size == 1) continue;
    if (expected == -1) {
      b.stride_n = stride;
    } else if (stride != expected) {
      if (t.numel() != 0) return std::nullopt;
    }
    b.n *= size;
    expected = stride * size;
    if (size == 0) b.n = 0;
  }
  return b;
}

// The shape of an image op's output: the input's leading dims, then [C, H, W].
inline Dims image_output_shape(const Tensor& input, std::int64_t channels, std::int64_t height, std::int64_t width) {
  Dims shape(input.shape());
  const int rank = shape.size();
  if (rank >= 3) shape[rank - 3] = channels;
  shape[rank - 2] = height;
  shape[rank - 1] = width;
  return shape;
}

}  // namespace streamvision::kernels
