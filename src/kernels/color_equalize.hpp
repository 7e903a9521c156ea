// Internal: equalize's lookup table (PIL's scheme, as torchvision computes it), shared by the
// CPU and CUDA engines. Histograms are integer counts, so every way of summing them is exact.
#pragma once

#include <cstdint>

#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

inline constexpr int kEqualizeBins = 256;

// From one channel's 256-bin histogram: step = (pixels - count of the last non-empty bin) // 255;
// step == 0 leaves the channel unchanged (the identity table); otherwise lut[0] = 0 and
// lut[k + 1] = min((cumulative[k] + step // 2) // step, 255).
SV_HOST_DEVICE inline void equalize_lut(const std::uint32_t* hist, std::uint8_t* lut) {
  std::uint64_t total = 0;
  int last = -1;
  for (int k = 0; k < kEqualizeBins; ++k) {
    total += hist[k];
    if (hist[k] != 0) last = k;
  }
  const std::uint64_t step = last < 0 ? 0 : (total - hist[last]) / 255;
  if (step == 0) {
    for (int k = 0; k < kEqualizeBins; ++k) lut[k] = static_cast<std::uint8_t>(k);
    return;
  }
  lut[0] = 0;
  std::uint64_t cumulative = 0;
  for (int k = 0; k + 1 < kEqualizeBins; ++k) {
    cumulative += hist[k];
    const std::uint64_t v = (cumulative + step / 2) / step;
    lut[k + 1] = static_cast<std::uint8_t>(v > 255 ? 255 : v);
  }
}

}  // namespace streamvision::kernels
