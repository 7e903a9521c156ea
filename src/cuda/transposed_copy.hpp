// Internal: the strided copy of a transposed view through shared-memory tiles (rotate's quarter
// turns), used by copy_view where a plan has that shape (cuda/transposed_copy.cu).
#pragma once

#include <cstddef>

#include "kernels/elementwise_plan.hpp"
#include "streamvision/core/stream.hpp"

namespace streamvision::cuda {

// Queues out = in over `plan` on `stream` and returns true when the plan is a transpose (output
// dim 0 contiguous and stepping the input by rows, output dim 1 along an input row; rank 2 or 3);
// returns false, queuing nothing, for any other plan. `in` and `out` point at the plan's first
// elements, of `itemsize` (1, 2, 4 or 8) bytes; they must not overlap.
bool copy_transposed(const kernels::ElementwisePlan& plan, const void* in, void* out, std::size_t itemsize,
                     const Stream& stream, const char* op);

}  // namespace streamvision::cuda
