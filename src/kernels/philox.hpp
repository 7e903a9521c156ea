// Internal: a counter-based random generator (Philox4x32-10, Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC 2011) and Box-Muller normals, shared by the CPU and CUDA
// engines. Everything is integer arithmetic plus the portable functions of color_math.hpp, so
// both engines produce the same bits: the value drawn for element i of a call depends only on
// (seed, offset, i).
#pragma once

#include <cstdint>

#include "kernels/color_math.hpp"

namespace streamvision::kernels {

// Four 32-bit words for a 64-bit counter under a 64-bit key.
SV_HOST_DEVICE inline void philox4x32(std::uint64_t key, std::uint64_t counter, std::uint32_t (&out)[4]) {
  std::uint32_t c0 = static_cast<std::uint32_t>(counter), c1 = static_cast<std::uint32_t>(counter >> 32);
  std::uint32_t c2 = 0, c3 = 0;
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53u) * c0;
    const std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57u) * c2;
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

// Standard normals per Philox counter (two Box-Muller pairs).
inline constexpr int kNormalsPerCounter = 4;

// The four standard normals of counter `counter` of the stream keyed by `seed`, in double.
SV_HOST_DEVICE inline void normal4(std::uint64_t seed, std::uint64_t counter, double (&z)[4]) {
  std::uint32_t r[4];
  philox4x32(seed, counter, r);
  constexpr double kScale = 2.3283064365386963e-10;  // 2^-32
  for (int p = 0; p < 2; ++p) {
    const double u1 = (static_cast<double>(r[2 * p]) + 0.5) * kScale;  // (0, 1)
    const double u2 = static_cast<double>(r[2 * p + 1]) * kScale;       // [0, 1)
    const double radius = pmath::sqrt_(-2.0 * pmath::log_(u1));
    double s, c;
    pmath::sincos_2pi(u2, s, c);
    z[2 * p] = radius * c;
    z[2 * p + 1] = radius * s;
  }
}

}  // namespace streamvision::kernels
