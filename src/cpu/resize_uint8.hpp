// Internal: the CPU engine's uint8 resize in torch's CPU integer scheme (int16 weights with a
// per-dimension precision, a horizontal pass rounded to uint8, then a vertical pass), the scheme
// torchvision's CPU uint8 results come from.
#pragma once

#include "kernels/image_batch.hpp"
#include "kernels/resize_weights.hpp"

namespace streamvision::cpu {

void resize_uint8_int16(const kernels::ImageBatch& in, const kernels::ImageBatch& out, bool antialias,
                        kernels::ResampleFilter filter);

}  // namespace streamvision::cpu
