// Internal: division by a runtime-constant divisor as a multiply-high and a shift
// (Granlund & Montgomery). Integer division is tens of instructions on a GPU; index
// arithmetic in memory-bound kernels must not cost more than the memory access itself.
// Valid for dividends below 2^31, which the CUDA engine guarantees by splitting large work.
#pragma once

#include <cstdint>

#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

struct FastDivmod {
  std::uint32_t divisor = 1;
  std::uint32_t multiplier = 0;
  std::uint32_t shift = 0;

  FastDivmod() = default;
  explicit FastDivmod(std::uint32_t d) : divisor(d == 0 ? 1 : d) {
    while ((1ull << shift) < divisor) ++shift;
    multiplier = static_cast<std::uint32_t>(((1ull << 32) * ((1ull << shift) - divisor)) / divisor + 1);
  }

  SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t div(std::uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const std::uint32_t high = __umulhi(n, multiplier);
#else
    const std::uint32_t high = static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * multiplier) >> 32);
#endif
    return (high + n) >> shift;
  }

  SV_HOST_DEVICE SV_FORCE_INLINE void divmod(std::uint32_t n, std::uint32_t& q, std::uint32_t& r) const {
    q = div(n);
    r = n - q * divisor;
  }
};

}  // namespace streamvision::kernels
