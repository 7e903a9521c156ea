// Internal: uint8 values four to a 32-bit word, converted to float and back without the GPU's
// conversion instructions. I2F and F2I run at a quarter of the FMA rate on the H100/H200 (16 per
// clock per SM), and a uint8 colour op that converts every byte both ways is bound by them (the
// saturation kernel spent 6 of its instructions per pixel there: bench/RESULTS.md, eleventh
// session). On the GPU:
//  * byte -> float: the byte placed in the mantissa of 2^23 by one byte permute, minus 2^23;
//  * float -> byte: NaN to 0 and the range [0, 255] by min/max, then a round-down add of 2^23,
//    whose low mantissa byte is floor(v);
//  * four results into one word by byte permutes.
// The host functions give the same values the plain way; the ops that use them are tested equal
// to their per-value forms on both (tests/cpp/color_test.cpp, Color.*CudaEqualsCpu).
#pragma once

#include <cmath>
#include <cstdint>

#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

// Byte k of w as a float, exactly. two23 holds 2^23's bits, 0x4b000000. A kernel that passes
// them in as an argument lets ptxas keep them in a register (or the constant bank) and make each
// conversion's selector the immediate. Given the constant, ptxas does the reverse and holds every
// conversion's selector in a register of its own, one MOV each (49 in the uint8 saturation
// kernel's 475 instructions).
SV_HOST_DEVICE SV_FORCE_INLINE float word_byte(std::uint32_t w, int k, std::uint32_t two23 = 0x4b000000u) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(static_cast<int>(__byte_perm(w, two23, 0x7440u + static_cast<unsigned>(k)))) - 8388608.0f;
#else
  (void)two23;
  return static_cast<float>((w >> (8 * k)) & 0xffu);
#endif
}

// floor(v) for v in [0, 2^23), as a float.
SV_HOST_DEVICE SV_FORCE_INLINE float floor_small(float v) {
#if defined(__CUDA_ARCH__)
  return __fadd_rd(v, 8388608.0f) - 8388608.0f;
#else
  return std::floor(v);
#endif
}

// A byte in the low 8 bits of a word whose other bits are unspecified (pack_bytes reads only
// those): floor(v) for v in [0, 256), the caller's guarantee.
SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t floor_byte(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(__fadd_rd(v, 8388608.0f));  // 2^23 + floor(v): the low byte is floor(v)
#else
  return static_cast<std::uint32_t>(v);
#endif
}

// torch's clamp_(0, 255) then .to(uint8) of a float: NaN gives 0 (what the per-value ops give,
// kernels/color.hpp in_range_to_image), other values are clamped and truncated.
SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t clamped_byte(float v) {
#if defined(__CUDA_ARCH__)
  return floor_byte(fminf(fmaxf(v, 0.0f), 255.0f));  // fmaxf(NaN, 0) is 0
#else
  return v > 0.0f ? static_cast<std::uint32_t>(v < 255.0f ? v : 255.0f) : 0u;
#endif
}

// The low bytes of b0..b3 as bytes 0..3 of one word.
SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t pack_bytes(std::uint32_t b0, std::uint32_t b1, std::uint32_t b2,
                                                        std::uint32_t b3) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(__byte_perm(b0, b1, 0x0040u), __byte_perm(b2, b3, 0x0040u), 0x5410u);
#else
  return (b0 & 0xffu) | ((b1 & 0xffu) << 8) | ((b2 & 0xffu) << 16) | ((b3 & 0xffu) << 24);
#endif
}

}  // namespace streamvision::kernels
