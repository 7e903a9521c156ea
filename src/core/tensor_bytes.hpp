// Internal: the byte size a tensor factory allocates, validated once for every factory (empty
// on any device, empty_pinned).
#pragma once

#include <cstddef>

#include "streamvision/core/dtype.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision::detail {

// The bytes that memory for (shape, strides, dtype) must span. Throws Error (ValueError, named
// `op`) for a negative size or stride, a rank mismatch, or a size that overflows int64.
std::size_t checked_nbytes(const char* op, const Dims& shape, const Dims& strides, DType dtype);

}  // namespace streamvision::detail
