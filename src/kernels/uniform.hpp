// Uniform random numbers mapped the way torch maps them, for the per-sample samplers of both
// engines (kernels/resized_crop_boxes.hpp, kernels/color_jitter_params.hpp): the samplers take
// torch.rand's float32 numbers in [0, 1) and turn them into draws here.
#pragma once

#include <cstdint>

#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

// torch's uniform_(lo, hi) of one float32 number u in [0, 1): u * (hi - lo) + lo, in float32.
SV_HOST_DEVICE SV_FORCE_INLINE float uniform_in(float u, float lo, float hi) { return u * (hi - lo) + lo; }

// A uniform integer in [0, count) from u in [0, 1): floor(u * count), kept below count.
SV_HOST_DEVICE SV_FORCE_INLINE std::int64_t uniform_index(float u, std::int64_t count) {
  const auto k = static_cast<std::int64_t>(static_cast<double>(u) * static_cast<double>(count));
  return k < count ? k : count - 1;
}

}  // namespace streamvision::kernels
