// normalize (torchvision.transforms.v2.functional.normalize): (image - mean[c]) / std[c] per
// channel, for float images of shape [..., C, H, W]. mean and std have 1 or C values; any zero
// in std raises. inplace=true writes into the input and returns it.
#pragma once

#include <optional>
#include <vector>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: `output` has the input's shape and dtype and may be the input itself;
// mean and std hold one value per channel (already broadcast).
struct Normalize {
  static constexpr const char* name = "normalize";
  static constexpr int kMaxChannels = 1024;
  using Kernel = void (*)(const Tensor& input, const Tensor& output, const std::vector<double>& mean,
                          const std::vector<double>& std, const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor normalize(const Tensor& image, const std::vector<double>& mean, const std::vector<double>& std,
                 bool inplace = false, const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::Normalize)
