// Internal: a strided view of an image that kernels read, the only place where strides may be
// negative. A flip is this view with one stride negated and the data pointer moved to the
// first logical element; kernels then need no flip-specific code. Made from a tensor by
// core/tensor_views.hpp.
#pragma once

#include <cstdint>

#include "streamvision/core/dtype.hpp"
#include "streamvision/core/tensor.hpp"  // kMaxRank

namespace streamvision::kernels {

struct StridedView {
  void* data = nullptr;  // address of logical element (0, ..., 0)
  int rank = 0;
  std::int64_t shape[kMaxRank] = {};
  std::int64_t strides[kMaxRank] = {};  // elements; may be negative
  DType dtype = DType::UInt8;

  // The same elements with dim `d` (non-negative) read backwards.
  StridedView flipped(int d) const {
    StridedView v = *this;
    if (shape[d] > 1) {
      v.data = static_cast<char*>(data) + (shape[d] - 1) * strides[d] * static_cast<std::int64_t>(itemsize(dtype));
      v.strides[d] = -strides[d];
    }
    return v;
  }
};

}  // namespace streamvision::kernels
