// Internal: adjust_hue's per-pixel math, shared by the CPU and CUDA engines.
//
// torchvision converts the image to float32 (to_dtype, scale=True), goes to HSV
// (_rgb_to_hsv, modelled on PIL), adds the factor to the hue modulo 1, comes back
// (_hsv_to_rgb) and converts back to the image dtype (to_dtype, scale=True: truncation for
// integers). Every tensor op rounds to float32; the sequence below repeats them one by one
// (no contraction: nvcc runs with --fmad=false and the host compiler does not contract).
#pragma once

#include <climits>
#include <cstdint>

#include "kernels/color.hpp"

namespace streamvision::kernels {

// fmod(a, 1): a - trunc(a) is exact (Sterbenz) and equals fmodf for every finite a, except that
// it gives +0 where fmod gives -0 for negative integers; the hues below never depend on the sign
// of a zero (h6 - floor(h6) is +0 either way). It avoids fmodf's slow generic path on the GPU.
SV_HOST_DEVICE SV_FORCE_INLINE float fmod_one(float a) { return a - ::truncf(a); }

// torch.remainder(a, 1.0) for floats: fmod, then moved into the divisor's sign.
SV_HOST_DEVICE SV_FORCE_INLINE float remainder_one(float a) {
  float m = fmod_one(a);
  if (m < 0.0f) m += 1.0f;
  return m;
}

// torch.remainder(a, 1.0) for |a| < 2^22 (the finite path's hue in [0, 1] plus a factor in
// [-0.5, 0.5]): a - floor(a), which is fmod's a - trunc(a) moved into [0, 1) by the same + 1,
// rounded the same way, for negative a. On the GPU the floor is one addition rounded down at
// 1.5 * 2^23, where floats are the integers (at 2^23 they step by 1/2 below it): three
// instructions instead of five.
SV_HOST_DEVICE SV_FORCE_INLINE float remainder_one_small(float a) {
#if defined(__CUDA_ARCH__)
  constexpr float kShift = 12582912.0f;
  return a - (__fadd_rd(a, kShift) - kShift);
#else
  return a - std::floor(a);
#endif
}

struct Hsv {
  float h, s, v;
};

// The larger / smaller of two values that are never NaN and never -0: fmaxf / fminf on the GPU,
// one instruction each; a compare and select on the host, where fmaxf is a libm call (for NaN's
// rules) that kept the CPU's hue loop scalar. The same bits for such values.
SV_HOST_DEVICE SV_FORCE_INLINE float max_number(float a, float b) {
#if defined(__CUDA_ARCH__)
  return pmath::fmax_(a, b);
#else
  return a > b ? a : b;
#endif
}
SV_HOST_DEVICE SV_FORCE_INLINE float min_number(float a, float b) {
#if defined(__CUDA_ARCH__)
  return pmath::fmin_(a, b);
#else
  return a < b ? a : b;
#endif
}

// kFinite: r, g and b are +0 or in [2^-64, 1] (images of an integer dtype scaled to [0, 1], and
// the pixels of float images that hue_ordinary accepts). Then of the three quotients
// (maxc - x) / divisor, the maximum's is 0 / divisor = +0 and the minimum's is range / range = 1
// exactly, so only the middle channel's needs a division: two IEEE divisions per pixel instead
// of four, the same bits. Their operands are 0 or at least 2^-87 (a difference of two such values)
// and at most 1, where pmath::divide_unit is exact. With NaN or inf the shortcut would not hold
// (inf - inf is NaN, not 0), so those divide all three.
template <bool kFinite = false>
SV_HOST_DEVICE SV_FORCE_INLINE Hsv rgb_to_hsv(float r, float g, float b) {
  float maxc, minc;
  if constexpr (kFinite) {
    // One min/max instruction each on the GPU; the same bits for values that are not NaN (ties
    // are equal values, and the inputs are never -0).
    maxc = max_number(max_number(r, g), b);
    minc = min_number(min_number(r, g), b);
  } else {
    maxc = r > g ? (r > b ? r : b) : (g > b ? g : b);
    minc = r < g ? (r < b ? r : b) : (g < b ? g : b);
  }
  const bool eqc = maxc == minc;
  const float range = maxc - minc;
  const float s = kFinite ? pmath::divide_unit(range, eqc ? 1.0f : maxc) : range / (eqc ? 1.0f : maxc);
  const float divisor = eqc ? 1.0f : range;
  float h;
  if constexpr (kFinite) {
    // torchvision's hue is (xc + k) - yc, where the channel holding the maximum (r before g before
    // b, as its masks pick) sets k and which two channels x and y are: r gives bc - gc (k = 0; the
    // + 0 is exact), g gives (rc + 2) - bc, b gives (gc + 4) - rc; xc = (maxc - x) / range. Of x
    // and y one is the median and the other the minimum, ties included, so their quotients are q
    // and 1: (q, 1) where x >= y, (1, q) otherwise. q is 0 exactly where the median ties the maximum
    // and 1 where it ties the minimum, torchvision's quotients there. A grey pixel (range 0, where
    // torchvision's hue is 0 - 0) has its hue set. On the GPU this is 5.5 fewer SASS instructions
    // a pixel than forming rc, gc and bc (uint8: 98.5 -> 93). Selects one at a time, for the CPU's
    // if-conversion (nested, they merge into a join it refuses). (Deciding x >= y from three
    // compares of the inputs instead of selecting x and y compiled to more: nvcc kept the bools in
    // registers.)
    const float mid = max_number(min_number(r, g), min_number(max_number(r, g), b));
    const float q = pmath::divide_unit(maxc - mid, divisor);
    const bool max_r = r == maxc, max_g = g == maxc;
    float x = g, y = r, k = 4.0f;  // the maximum in b
    x = max_g ? r : x;
    y = max_g ? b : y;
    k = max_g ? 2.0f : k;
    x = max_r ? b : x;
    y = max_r ? g : y;
    k = max_r ? 0.0f : k;
    const bool x_is_median = x >= y;
    const float xc = x_is_median ? q : 1.0f;
    const float yc = x_is_median ? 1.0f : q;
    h = (xc + k) - yc;
    h = eqc ? 0.0f : h;
  } else {
    const float rc = (maxc - r) / divisor;
    const float gc = (maxc - g) / divisor;
    const float bc = (maxc - b) / divisor;
    const bool max_is_not_r = maxc != r;
    const bool max_is_g = maxc == g;
    // The masks multiply (x * 1 or x * 0), as in torchvision: with inf, x * 0 is NaN.
    const float hg = ((rc + 2.0f) - bc) * static_cast<float>(max_is_g && max_is_not_r);
    const float hr = (bc - gc) * static_cast<float>(!max_is_not_r);
    const float hb = ((gc + 4.0f) - rc) * static_cast<float>(max_is_not_r && !max_is_g);
    h = (hr + hg) + hb;
  }
  h = h * static_cast<float>(1.0 / 6.0);
  h = h + 1.0f;
  if constexpr (kFinite) {
    h = h - floor_small(h);  // h is in [5/6, 11/6] here, where trunc is floor: fmod_one's bits
  } else {
    h = fmod_one(h);
  }
  return {h, s, maxc};
}

// kFinite: the hue is in [0, 1] (rgb_to_hsv<true> then remainder_one_small of a finite sum), so the
// sector floor(h * 6) is 0..6 and needs neither the range check nor the remainder by 6.
template <bool kFinite = false>
SV_HOST_DEVICE SV_FORCE_INLINE void hsv_to_rgb(const Hsv& hsv, float& r, float& g, float& b) {
  const float h6 = hsv.h * 6.0f;
  const float fi = kFinite ? floor_small(h6) : ::floorf(h6);
  const float f = h6 - fi;
  const float sxf = hsv.s * f;
  const float one_minus_s = 1.0f - hsv.s;
  const float v = hsv.v;
  // torchvision's table by sector, as selects rather than a switch: neighbouring pixels fall in
  // different sectors, and a switch's branches diverge within a GPU warp.
  //   sector: 0        1        2        3        4        5
  //   (r,g,b) (v,t,p)  (q,v,p)  (p,v,t)  (p,q,v)  (t,p,v)  (v,p,q)
  // In the finite path, products of values in [0, 1] are never below +0 and never NaN, so
  // clamping to [0, 1] is only the upper bound, and only qt needs it (t's sum can round above 1;
  // p = (1 - s) v is a product of two values in [0, 1], which never rounds above 1).
  if constexpr (kFinite) {
#if !defined(__CUDA_ARCH__)
    // The host tests the sector on the float floor (0..6, where 6 is sector 0): from the integer
    // compares GCC builds a switch, which its if-conversion gives up on, and the CPU's pixel loop
    // stayed scalar (a 1080p uint8 adjust_hue 61 ms, vectorised 8.3).
    const bool s0 = (fi == 0.0f) | (fi == 6.0f), s1 = fi == 1.0f, s2 = fi == 2.0f, s3 = fi == 3.0f, s4 = fi == 4.0f,
               s5 = fi == 5.0f;
    // A sector reads q (odd sectors) or t (even ones), never both: only that one, qt, is formed
    // and clamped (the same bits; 1080p uint8 8.2 -> 4.7 ms, one thread, twenty-sixth session).
    float qt = ((s1 | s3 | s5) ? 1.0f - sxf : sxf + one_minus_s) * v, p = one_minus_s * v;
    qt = qt > 1.0f ? 1.0f : qt;
    // One select at a time (the sectors exclude each other): nested, they merge into one
    // many-way join that the if-conversion also refuses.
    r = (s1 | s4) ? qt : p;
    r = (s0 | s5) ? v : r;
    g = (s0 | s3) ? qt : p;
    g = (s1 | s2) ? v : g;
    b = (s2 | s5) ? qt : p;
    b = (s3 | s4) ? v : b;
#else
    // The sector as one bit of a 7-bit set, 1 << floor(h * 6) (the same floor without a
    // conversion), so that each choice is one mask test; bit 6 (h * 6 rounded up to 6) is sector 0
    // by torch's remainder by 6, folded into the masks. With qt as on the host: 116.5 -> 101.5
    // SASS instructions a pixel for uint8 (pixel_quad_kernel, twenty-sixth session).
    const unsigned sector = 1u << (floor_byte(h6) & 0xffu);
    float qt = ((sector & 0x2Au) != 0 ? 1.0f - sxf : sxf + one_minus_s) * v, p = one_minus_s * v;  // odd: 1, 3, 5
    qt = qt > 1.0f ? 1.0f : qt;
    r = (sector & 0x61u) ? v : ((sector & 0x12u) ? qt : p);  // v: 0, 5; qt: 1, 4
    g = (sector & 0x06u) ? v : ((sector & 0x49u) ? qt : p);  // v: 1, 2; qt: 0, 3
    b = (sector & 0x18u) ? v : ((sector & 0x24u) ? qt : p);  // v: 3, 4; qt: 2, 5
#endif
  } else {
    // NaN and out-of-range values convert as torch's CPU .to(int32) does on x86 (cvttss2si's
    // "integer indefinite", INT_MIN); a plain cast would be undefined behaviour for them.
    const int whole = (fi >= -2147483648.0f && fi < 2147483648.0f) ? static_cast<int>(fi) : INT_MIN;
    int i = whole % 6;  // torch's int32 remainder: non-negative
    if (i < 0) i += 6;
    const float q = clamp_value((1.0f - sxf) * v, 0.0f, 1.0f);
    const float t = clamp_value((sxf + one_minus_s) * v, 0.0f, 1.0f);
    const float p = clamp_value(one_minus_s * v, 0.0f, 1.0f);
    r = (i == 0 || i == 5) ? v : (i == 1 ? q : (i == 4 ? t : p));
    g = (i == 1 || i == 2) ? v : (i == 0 ? t : (i == 3 ? q : p));
    b = (i == 3 || i == 4) ? v : (i == 2 ? t : (i == 5 ? q : p));
  }
}

#if defined(__CUDA_ARCH__)
// prmt.b32 in its default mode: byte n of the result is byte (selector >> 4n) & 7 of the pair
// (a, b), a's bytes 0-3 and b's 4-7, where nibble bit 3 is clear (every selector below);
// __byte_perm is the same instruction, written here so that a computed selector stays one PRMT.
__device__ SV_FORCE_INLINE std::uint32_t permute_bytes(std::uint32_t a, std::uint32_t b, std::uint32_t selector) {
  std::uint32_t r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(selector));
  return r;
}

// adjust_hue's uint8 quad form on the GPU: hsv_to_rgb<true>, then to_dtype's scale back to bytes
// (x * to_byte truncated), as one word whose bytes 0, 1 and 2 are r, g and b. The same bits as
// hsv_to_rgb<true> and floor_byte per channel, in fewer instructions: instead of choosing each
// channel among v, qt and p as floats (two mask tests and two selects a channel), the three
// candidates become bytes and one byte permute places them, its selector computed from the
// sector by one multiply-add. The roles by sector (v 0, qt 1, p 2) are R = 0 1 2 2 1 0 for r,
// R shifted by 4 for g and by 2 for b; R is symmetric (R[i] = R[5 - i]), so g's is also
// R[(7 - i) mod 6], and with the eight bytes U = R[0..5] R[0] R[1] of two words, r = U[i],
// g = U[7 - i] and b = U[i + 2] stay inside U for sectors 0..5: selector nibbles i, 7 - i, i + 2,
// i * 0xF1 + 0x270. Sector 6 (h rounded up to 1 by the remainder; its b would fall outside U) is
// torch's sector 0 with f = 0, (v, t, p) with t = (0 + (1 - s)) v = p exactly; it takes sector
// 5's selector, (v, p, qt), where qt is that same t (sector 6 counts as even): the same bytes,
// for one min instead of a compare and a select.
__device__ SV_FORCE_INLINE std::uint32_t hsv_to_rgb_word(const Hsv& hsv, float to_byte) {
  const float h6 = hsv.h * 6.0f;
  const std::uint32_t sector = floor_byte(h6);  // the bits of 2^23 + floor(h6): the sector 0..6 in the low byte
  const float f = h6 - (__uint_as_float(sector) - 8388608.0f);  // floor_small's floor
  const float sxf = hsv.s * f;
  const float one_minus_s = 1.0f - hsv.s;
  const float v = hsv.v;
  float qt = ((sector & 1u) != 0 ? 1.0f - sxf : sxf + one_minus_s) * v;  // q in odd sectors, t in even ones
  qt = qt > 1.0f ? 1.0f : qt;                                             // as hsv_to_rgb<true>
  const float p = one_minus_s * v;
  const std::uint32_t bv = floor_byte(v * to_byte), bq = floor_byte(qt * to_byte), bp = floor_byte(p * to_byte);
  const std::uint32_t u_low = permute_bytes(permute_bytes(bv, bq, 0x0040u), bp, 0x4410u);  // roles 0 1 2 2
  const std::uint32_t u_high = permute_bytes(bv, bq, 0x4004u);                            // roles 1 0 0 1
  // Only the selector's low 16 bits count: the 2^23 above them multiplies into bits 24 and up.
  const std::uint32_t selector = (sector < 0x4b000005u ? sector : 0x4b000005u) * 0xF1u + 0x270u;
  return permute_bytes(u_low, u_high, selector);
}

// Four pixels' words of bytes r, g, b, - to one word a channel.
__device__ SV_FORCE_INLINE void rgb_words_to_planes(const std::uint32_t (&px)[4], std::uint32_t (&y)[3]) {
  const std::uint32_t rg01 = permute_bytes(px[0], px[1], 0x5140u);  // r0 r1 g0 g1
  const std::uint32_t rg23 = permute_bytes(px[2], px[3], 0x5140u);  // r2 r3 g2 g3
  const std::uint32_t b01 = permute_bytes(px[0], px[1], 0x0062u);   // b0 b1 - -
  const std::uint32_t b23 = permute_bytes(px[2], px[3], 0x0062u);   // b2 b3 - -
  y[0] = permute_bytes(rg01, rg23, 0x5410u);
  y[1] = permute_bytes(rg01, rg23, 0x7632u);
  y[2] = permute_bytes(b01, b23, 0x5410u);
}
#endif

// A float pixel channel the finite path takes: +0 or in [2^-64, 1] (one unsigned compare each way:
// -0, negatives and NaN have the sign bit or a larger pattern). All of an image in [0, 1] except
// values below 2^-64; everything else takes the general path, NaN and inf included.
SV_HOST_DEVICE SV_FORCE_INLINE bool hue_ordinary(float v) {
  const std::uint32_t u = pmath::to_bits(v);
  return u <= 0x3f800000u && (u == 0u || u >= 0x1f800000u);
}

// Byte k of w as a float, for adjust_hue's uint8 quad form. Bytes 0 and 3 take one conversion
// instruction each on the GPU (I2F.U8 reads byte 0 or byte 3 of a register directly) instead of
// word_byte's permute and subtract: hue is bound by instruction issue, not by the conversion
// unit that I2F shares with the two reciprocals (101.5 -> 98.5 SASS instructions a pixel).
// Bytes 1 and 2 would need a shift and a mask first, so they keep word_byte.
SV_HOST_DEVICE SV_FORCE_INLINE float hue_byte(std::uint32_t w, int k, std::uint32_t two23) {
#if defined(__CUDA_ARCH__)
  if (k == 0) return __uint2float_rn(w & 0xffu);
  if (k == 3) return __uint2float_rn(w >> 24);
#endif
  return word_byte(w, k, two23);
}

template <class T>
struct HueOp {
  static constexpr int kIn = 3, kOut = 3;
  static constexpr bool kQuads = std::is_same_v<T, std::uint8_t>;
  // The quad kernel at 5 blocks a multiprocessor: 64 -> 48 registers, the same 1576 SASS
  // instructions, no spills; ncu had it issue-bound at 50 % occupancy with 9.7 cycles a warp
  // instruction (bench/RESULTS.md, thirty-first session). The element kernel keeps 4 (at 5 it spills).
  static constexpr int kQuadMinBlocks = 5;
  float hue_factor = 0;
  std::uint32_t two23 = 0x4b000000u;  // word_byte's constant as a kernel argument (byte_word.hpp)
  ToDtypeOp<T, float> to_float;  // to_dtype(image, float32, scale=True)
  ToDtypeOp<float, T> from_float;

  // The pixel in HSV with its hue shifted (hue_factor is in [-0.5, 0.5], checked by the op).
  template <bool kFinite>
  SV_HOST_DEVICE SV_FORCE_INLINE Hsv shifted(float r0, float g0, float b0) const {
    Hsv hsv = rgb_to_hsv<kFinite>(r0, g0, b0);
    hsv.h = kFinite ? remainder_one_small(hsv.h + hue_factor) : remainder_one(hsv.h + hue_factor);
    return hsv;
  }
  template <bool kFinite>
  SV_HOST_DEVICE SV_FORCE_INLINE void shift(float r0, float g0, float b0, float& r, float& g, float& b) const {
    hsv_to_rgb<kFinite>(shifted<kFinite>(r0, g0, b0), r, g, b);
  }

  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t, const T (&x)[3], T (&y)[3]) const {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      // uint8 on the GPU (pixel_map_kernel's layouts: channels last, rows not of whole vectors):
      // the quad form's word, fewer instructions and registers than three float selects a channel.
      const float k = to_float.out_factor;
      const std::uint32_t w = hsv_to_rgb_word(
          shifted<true>(static_cast<float>(x[0]) * k, static_cast<float>(x[1]) * k, static_cast<float>(x[2]) * k),
          from_float.in_factor);
      y[0] = static_cast<T>(w);
      y[1] = static_cast<T>(w >> 8);
      y[2] = static_cast<T>(w >> 16);
      return;
    }
#endif
    float r, g, b;
    if constexpr (is_int_like<T>) {
      // to_float's scaled path (make_hue_op always scales), without its branch on `scale`, which
      // kept the CPU's pixel loop from vectorising and doubles the GPU kernel's code (4,312 ->
      // 2,640 SASS instructions for uint8 without it).
      const float k = to_float.out_factor;
      shift<true>(static_cast<float>(x[0]) * k, static_cast<float>(x[1]) * k, static_cast<float>(x[2]) * k, r, g, b);
    } else {
      const float r0 = to_float(x[0], 0u), g0 = to_float(x[1], 0u), b0 = to_float(x[2], 0u);
#if defined(__CUDA_ARCH__)
      // Float images on the GPU: the finite path where every channel allows it, the same bits
      // with two divisions without the range check instead of four with it. (The CPU keeps the
      // general path: there the branch and the selects cost more than the divisions they save,
      // 71 -> 89 ms for a 1080p image in a scalar loop.)
      if (hue_ordinary(r0) & hue_ordinary(g0) & hue_ordinary(b0)) {
        shift<true>(r0, g0, b0, r, g, b);
      } else {
        shift<false>(r0, g0, b0, r, g, b);
      }
#else
      shift<false>(r0, g0, b0, r, g, b);
#endif
    }
    if constexpr (is_int_like<T>) {
      // to_dtype(scale=True) of values in [0, 1] (clamped, or an input's own value): the scaled
      // value is far inside int32, where truncating through int32 is what cast<T>'s range-checked
      // path gives (make_hue_op always scales).
      y[0] = static_cast<T>(static_cast<std::int32_t>(r * from_float.in_factor));
      y[1] = static_cast<T>(static_cast<std::int32_t>(g * from_float.in_factor));
      y[2] = static_cast<T>(static_cast<std::int32_t>(b * from_float.in_factor));
    } else {
      y[0] = from_float(r, 0u);
      y[1] = from_float(g, 0u);
      y[2] = from_float(b, 0u);
    }
  }
  // The CPU engine's float32 rows (cpu/pixels.hpp, kFiniteRows): a row whose every value
  // hue_ordinary accepts takes the finite path in one loop the compiler vectorises (`finite`,
  // the same bits as operator()'s general path there: ColorHue.FloatFinitePathEqualsGeneralPath);
  // any other row the general path. The GPU decides pixel by pixel (operator() above).
  static constexpr bool kFiniteRows = std::is_same_v<T, float>;
  SV_HOST_DEVICE SV_FORCE_INLINE bool takes_finite(const T (&x)[3]) const {
    return hue_ordinary(x[0]) & hue_ordinary(x[1]) & hue_ordinary(x[2]);
  }
  SV_HOST_DEVICE SV_FORCE_INLINE void finite(std::int64_t, const T (&x)[3], T (&y)[3]) const {
    float r, g, b;
    shift<true>(x[0], x[1], x[2], r, g, b);
    y[0] = r;
    y[1] = g;
    y[2] = b;
  }
  // The uint8 op on four pixels (kernels/color.hpp's quad forms): scaling to float32 multiplies
  // by 1/255; scaling back truncates r * 255.999, a value in [0, 256).
  SV_HOST_DEVICE SV_FORCE_INLINE void quad(std::int64_t, const std::uint32_t (&x)[3], std::uint32_t (&y)[3]) const {
#if defined(__CUDA_ARCH__)
    std::uint32_t px[4];
#else
    std::uint32_t out[3][4];
#endif
    SV_UNROLL
    for (int k = 0; k < 4; ++k) {
      const float scale = to_float.out_factor;
      const Hsv hsv = shifted<true>(hue_byte(x[0], k, two23) * scale, hue_byte(x[1], k, two23) * scale,
                                    hue_byte(x[2], k, two23) * scale);
#if defined(__CUDA_ARCH__)
      px[k] = hsv_to_rgb_word(hsv, from_float.in_factor);
#else
      float r, g, b;
      hsv_to_rgb<true>(hsv, r, g, b);
      out[0][k] = floor_byte(r * from_float.in_factor);
      out[1][k] = floor_byte(g * from_float.in_factor);
      out[2][k] = floor_byte(b * from_float.in_factor);
#endif
    }
#if defined(__CUDA_ARCH__)
    rgb_words_to_planes(px, y);
#else
    SV_UNROLL
    for (int c = 0; c < 3; ++c) y[c] = pack_bytes(out[c][0], out[c][1], out[c][2], out[c][3]);
#endif
  }
};

template <class T>
HueOp<T> make_hue_op(double hue_factor) {
  HueOp<T> op;
  op.hue_factor = static_cast<float>(hue_factor);
  if constexpr (!std::is_same_v<T, float>) {
    op.to_float = make_to_dtype_op<T, float>(true);
    op.from_float = make_to_dtype_op<float, T>(true);
  }
  return op;
}

}  // namespace streamvision::kernels
