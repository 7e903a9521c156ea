// Internal: where a coordinate outside an image reads from (padding, border handling), shared by
// both engines.
#pragma once

#include <cstddef>
#include <cstdint>

#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

// Constant: outside reads a fill value. Replicate: the nearest edge pixel. Reflect101: mirror
// about the edge pixel without repeating it (torch "reflect", OpenCV BORDER_REFLECT_101:
// dcb|abcd|cba). Reflect: mirror repeating the edge (torchvision "symmetric", OpenCV
// BORDER_REFLECT: cba|abcd|dcb).
enum class Border : std::uint8_t { Constant, Replicate, Reflect101, Reflect };

// Most per-channel fill values an op takes: they travel by value in the kernel arguments.
inline constexpr std::size_t kMaxFillValues = 64;

// The index in [0, size) that coordinate x reads, or -1 for a Constant border outside. The
// reflections repeat as often as needed (size > 0).
SV_HOST_DEVICE inline std::int64_t border_index(std::int64_t x, std::int64_t size, Border border) {
  if (x >= 0 && x < size) return x;
  switch (border) {
    case Border::Constant:
      return -1;
    case Border::Replicate:
      return x < 0 ? 0 : size - 1;
    case Border::Reflect101: {
      if (size == 1) return 0;
      const std::int64_t period = 2 * (size - 1);
      std::int64_t m = x % period;
      if (m < 0) m += period;
      return m < size ? m : period - m;
    }
    case Border::Reflect: {
      const std::int64_t period = 2 * size;
      std::int64_t m = x % period;
      if (m < 0) m += period;
      return m < size ? m : period - 1 - m;
    }
  }
  return -1;
}

}  // namespace streamvision::kernels
