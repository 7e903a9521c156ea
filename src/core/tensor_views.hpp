// Internal: what the kernels see of a Tensor. Both engines and the front ends include this; the
// kernels themselves (src/kernels/) never see a Tensor, only these plain views.
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/image_batch.hpp"
#include "kernels/strided_view.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision::detail {

kernels::StridedView strided_view(const Tensor& t);

// An image [..., C, H, W] (at least 2 dims; a 2-D tensor is one single-channel image) as a
// strided [N, C, H, W] batch without copying: leading dims merge into N when their strides
// allow it (contiguous, channels_last and most slices). nullopt when they do not.
std::optional<kernels::ImageBatch> try_image_batch(const Tensor& t);

// try_image_batch for a tensor known to merge (the front ends make sure of it: op_context's
// prepare); a RuntimeError otherwise.
kernels::ImageBatch image_batch(const Tensor& t);

// True when `t` keeps its channels innermost (channels-last order: the smallest stride of C, H, W).
bool is_interleaved(const Tensor& t);

// The shape of an image op's output: the input's leading dims, then [C, H, W].
Dims image_output_shape(const Tensor& input, std::int64_t channels, std::int64_t height, std::int64_t width);

}  // namespace streamvision::detail
