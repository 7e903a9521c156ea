// 16-bit floating-point storage types (IEEE binary16 and bfloat16).
//
// They are storage only: arithmetic converts to float explicitly, exactly as PyTorch's
// "opmath" does, so every op decides where rounding back to 16 bits happens. Conversions
// round to nearest even on host and device; NaN becomes the canonical NaN 0x7fff on both,
// so CPU and CUDA results agree bit for bit.
#pragma once

#include <cstdint>
#include <cstring>

#include "streamvision/core/macros.hpp"

namespace streamvision {

namespace detail {

SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

SV_HOST_DEVICE SV_FORCE_INLINE float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

SV_HOST_DEVICE inline std::uint16_t float_to_half_bits(float f) {
#if defined(__CUDA_ARCH__)
  unsigned short r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
#else
  const std::uint32_t x = float_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return 0x7fffu;                    // NaN (canonical, like the GPU)
  if (abs >= 0x477ff000u) return sign | 0x7c00u;            // >= 65520 rounds to infinity
  if (abs < 0x38800000u) {                                   // below 2^-14: subnormal or zero
    // Scale so one half-subnormal ulp is 1.0, then let float addition round to an integer
    // (nearest even) by pushing the value into [2^23, 2^24).
    const float scaled = bits_float(abs) * 16777216.0f;      // * 2^24, exact
    const float rounded = (scaled + 8388608.0f) - 8388608.0f;
    return sign | static_cast<std::uint16_t>(static_cast<std::uint32_t>(rounded));
  }
  const std::uint32_t exponent = (abs >> 23) - 127u + 15u;
  const std::uint32_t mantissa = abs & 0x7fffffu;
  std::uint32_t h = (exponent << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h += 1u;  // carry may bump the exponent
  return sign | static_cast<std::uint16_t>(h);
#endif
}

SV_HOST_DEVICE inline float half_bits_to_float(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#else
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;  // 2^-24
    return bits_float(float_bits(magnitude) | sign);
  }
  if (exponent == 31) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
#endif
}

SV_HOST_DEVICE inline std::uint16_t float_to_bfloat16_bits(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned short r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
#else
  std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;      // NaN (canonical)
  x += 0x7fffu + ((x >> 16) & 1u);                           // round to nearest even
  return static_cast<std::uint16_t>(x >> 16);
#endif
}

SV_HOST_DEVICE SV_FORCE_INLINE float bfloat16_bits_to_float(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace detail

struct alignas(2) Half {
  std::uint16_t bits = 0;
  Half() = default;
  SV_HOST_DEVICE explicit Half(float f) : bits(detail::float_to_half_bits(f)) {}
  SV_HOST_DEVICE explicit operator float() const { return detail::half_bits_to_float(bits); }
  SV_HOST_DEVICE static Half from_bits(std::uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct alignas(2) BFloat16 {
  std::uint16_t bits = 0;
  BFloat16() = default;
  SV_HOST_DEVICE explicit BFloat16(float f) : bits(detail::float_to_bfloat16_bits(f)) {}
  SV_HOST_DEVICE explicit operator float() const { return detail::bfloat16_bits_to_float(bits); }
  SV_HOST_DEVICE static BFloat16 from_bits(std::uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

}  // namespace streamvision
