#include "core/tensor_views.hpp"

#include "streamvision/core/error.hpp"

namespace streamvision::detail {

kernels::StridedView strided_view(const Tensor& t) {
  kernels::StridedView v;
  v.data = t.data();
  v.rank = t.dim();
  for (int d = 0; d < v.rank; ++d) {
    v.shape[d] = t.shape()[d];
    v.strides[d] = t.strides()[d];
  }
  v.dtype = t.dtype();
  return v;
}

std::optional<kernels::ImageBatch> try_image_batch(const Tensor& t) {
  const int rank = t.dim();
  kernels::ImageBatch b;
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
  std::int64_t expected = -1;  // the stride the next (outer) dim must have to merge
  for (int d = rank - 4; d >= 0; --d) {
    const std::int64_t size = t.shape()[d], stride = t.strides()[d];
    if (size == 1) continue;
    if (expected == -1) {
      b.stride_n = stride;
    } else if (stride != expected && t.numel() != 0) {
      return std::nullopt;
    }
    b.n *= size;
    expected = stride * size;
  }
  return b;
}

kernels::ImageBatch image_batch(const Tensor& t) {
  const auto b = try_image_batch(t);
  if (!b) throw Error(ErrorKind::Runtime, "image_batch", "image", "leading dims that merge into one batch dim", t.str());
  return *b;
}

bool is_interleaved(const Tensor& t) {
  if (t.dim() < 3) return false;
  kernels::ImageBatch b;
  b.c = t.size(-3);
  b.h = t.size(-2);
  b.w = t.size(-1);
  b.stride_c = t.stride(-3);
  b.stride_h = t.stride(-2);
  b.stride_w = t.stride(-1);
  return kernels::channels_innermost(b);
}

Dims image_output_shape(const Tensor& input, std::int64_t channels, std::int64_t height, std::int64_t width) {
  Dims shape(input.shape());
  const int rank = shape.size();
  if (rank >= 3) shape[rank - 3] = channels;
  shape[rank - 2] = height;
  shape[rank - 1] = width;
  return shape;
}

}  // namespace streamvision::detail
