// to_dtype (torchvision.transforms.v2.functional.to_dtype): convert an image's dtype, with
// or without value scaling. The same dtype returns the input itself. With scale=true:
// float->float casts; float->int multiplies by (max+1-1e-3) and truncates (float32->int32/int64
// and float64->int64 raise); int->float multiplies by 1/max; int->int shifts by the
// difference of value bits; bool takes part only as a float counterpart (max value 1).
#pragma once

#include <optional>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace ops {
// Kernel contract: `output` has the input's shape and the target dtype; the host has already
// rejected pairs torchvision rejects. Dispatch is on the input dtype.
struct ToDtype {
  static constexpr const char* name = "to_dtype";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, bool scale, const Stream& stream);
};
}  // namespace ops

namespace functional {

Tensor to_dtype(const Tensor& image, DType dtype = DType::Float32, bool scale = false,
                const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::ToDtype)
