// Image metadata (torchvision.transforms.v2.functional, _meta.py). No device work.
#pragma once

#include <cstdint>
#include <vector>

#include "streamvision/core/tensor.hpp"

namespace streamvision::functional {

// [C, H, W]; a 2-D tensor is one channel. TypeError below 2 dims.
std::vector<std::int64_t> get_dimensions(const Tensor& image);
// C (1 for a 2-D tensor). TypeError below 2 dims.
std::int64_t get_num_channels(const Tensor& image);
// [H, W]. TypeError below 2 dims.
std::vector<std::int64_t> get_size(const Tensor& image);

}  // namespace streamvision::functional
