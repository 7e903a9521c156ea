// Internal: the identity element op. Copies, flips and layout conversions are all this op
// over different strided views; it only moves bits, so it runs on carrier types of the
// element's size (uint8/16/32/64) and every dtype shares four instantiations.
#pragma once

#include <cstdint>

#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

struct CopyOp {
  static constexpr bool kUsesChannel = false;
  template <class T>
  SV_HOST_DEVICE SV_FORCE_INLINE T operator()(T x, std::uint32_t) const {
    return x;
  }
};

}  // namespace streamvision::kernels
