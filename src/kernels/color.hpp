// Internal: the math of the colour ops (torchvision.transforms.v2.functional._color), shared by
// the CPU and CUDA engines.
//
// Each function follows the sequence of torch operations torchvision performs, rounding where
// torch materialises a tensor: integer images are computed in float32 (torch promotes
// uint8 * python float to float32) and truncated back; float images are computed in their own
// dtype, 16-bit floats through float with a rounding after every torch op. torch's
// `a.add_(b, alpha=s)` is a fused multiply-add on both its CPU (vectorised fmadd) and CUDA
// (contracted) paths, so it is an explicit fma here. Python scalars become the computation type
// (float for float32 and integer images, double for float64) before use.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/byte_word.hpp"
#include "kernels/cast.hpp"
#include "kernels/color_math.hpp"
#include "kernels/to_dtype.hpp"

namespace streamvision::kernels {

// torchvision's _max_value for the dtypes the colour ops support.
template <class T> struct ColorBound { static constexpr double value = 1.0; };
template <> struct ColorBound<std::uint8_t> { static constexpr double value = 255.0; };
template <> struct ColorBound<std::uint16_t> { static constexpr double value = 65535.0; };
template <> struct ColorBound<std::int8_t> { static constexpr double value = 127.0; };
template <> struct ColorBound<std::int16_t> { static constexpr double value = 32767.0; };
template <> struct ColorBound<std::int32_t> { static constexpr double value = 2147483647.0; };
template <> struct ColorBound<std::int64_t> { static constexpr double value = 9223372036854775807.0; };

// torchvision's _num_value_bits: every bit for unsigned integers, all but the sign bit for signed.
template <class T>
inline constexpr int kValueBits = static_cast<int>(sizeof(T) * 8) - (std::is_signed_v<T> ? 1 : 0);

template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> bound_of() {
  return static_cast<opmath_t<T>>(ColorBound<T>::value);
}

// An intermediate result as torch materialises it: in T for float images (16-bit floats round),
// in float32 (unrounded) for integer images.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> mat(opmath_t<T> v) {
  if constexpr (is_half_like<T>) {
    return static_cast<float>(T(v));
  } else {
    return v;
  }
}

// The final `.to(image.dtype)`: truncation toward zero for integers, rounding for 16-bit floats.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T to_image(opmath_t<T> v) {
  return cast<T>(v);
}

// to_image of a value that is NaN or within [0, bound] (after clamp_value, or a grayscale value):
// integers go through int32, which gives what cast's int64 route for uint8 gives for every such
// value (NaN included: both end as 0) and which CPUs convert in vector registers (AVX2 has no
// float -> int64 conversion).
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T in_range_to_image(opmath_t<T> v) {
  if constexpr (is_int_like<T> && sizeof(T) <= 2) {
#if defined(__CUDA_ARCH__)
    // One F2I: it gives 0 for NaN (the int32 route's INT32_MIN also ends as 0 in T) and is exact
    // inside the range, so the range test of float_to_int32 and its branch are not needed.
    return static_cast<T>(__float2int_rz(v));
#else
    return static_cast<T>(float_to_int32(v));
#endif
  } else {
    return to_image<T>(v);
  }
}

// torch.clamp: NaN stays NaN.
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F clamp_value(F v, F lo, F hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}

// r.mul(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114), in the computation type, of values
// already there.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> gray_of(opmath_t<T> r, opmath_t<T> g, opmath_t<T> b) {
  using F = opmath_t<T>;
  F l = mat<T>(r * F(0.2989));
  l = mat<T>(pmath::fma_(g, F(0.587), l));
  return mat<T>(pmath::fma_(b, F(0.114), l));
}

template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> grayscale_value(T r, T g, T b) {
  return gray_of<T>(to_opmath(r), to_opmath(g), to_opmath(b));
}

// The grayscale image saturation and contrast blend with: floored for integer images.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> blend_gray(T r, T g, T b) {
  const opmath_t<T> l = grayscale_value(r, g, b);
  if constexpr (is_float_like<T>) {
    return l;
  } else {
    return pmath::floor_(l);
  }
}

// _blend(image1, image2, ratio): image1.mul(ratio).add_(image2, alpha=1-ratio).clamp_(0, bound).
template <class T>
struct BlendFactors {
  opmath_t<T> ratio = 1;
  opmath_t<T> other = 0;  // 1 - ratio, computed in double like Python does

  SV_HOST_DEVICE static BlendFactors make(double ratio) {
    return {static_cast<opmath_t<T>>(ratio), static_cast<opmath_t<T>>(1.0 - ratio)};
  }
};

// The blend before its clamp, of a value already in the computation type.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> blend_unclamped(opmath_t<T> x, opmath_t<T> other, const BlendFactors<T>& f) {
  const opmath_t<T> v = mat<T>(x * f.ratio);
  return mat<T>(pmath::fma_(other, f.other, v));
}

template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T blend(T x, opmath_t<T> other, const BlendFactors<T>& f) {
  using F = opmath_t<T>;
  return in_range_to_image<T>(clamp_value(blend_unclamped<T>(to_opmath(x), other, f), F(0), bound_of<T>()));
}

// ---- elementwise functors (the elementwise engine: op(x, channel)) ----------------------------

// image.mul(factor).clamp_(0, bound)
template <class T>
struct BrightnessOp {
  static constexpr bool kUsesChannel = false;
  opmath_t<T> factor = 1;
  SV_HOST_DEVICE SV_FORCE_INLINE T operator()(T x, std::uint32_t) const {
    using F = opmath_t<T>;
    return in_range_to_image<T>(clamp_value(mat<T>(to_opmath(x) * factor), F(0), bound_of<T>()));
  }
};

// Floats: 1 - x. Integers: x xor all value bits (bitwise_not for unsigned; the sign bit of a
// signed integer stays).
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T invert_value(T x) {
  if constexpr (is_float_like<T>) {
    return to_image<T>(opmath_t<T>(1) - to_opmath(x));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(x ^ static_cast<T>(std::make_unsigned_t<T>(~std::make_unsigned_t<T>(0)) >> 1));
  } else {
    return static_cast<T>(~x);
  }
}

// ---- word forms of the 1-byte integer ops: op.quad(w) is the op on each of w's four bytes (the
// CUDA elementwise engine applies them to 16-byte vectors, kRawVectors in cuda/elementwise.cuh,
// instead of unpacking every byte: uint8 solarize ran at 77 % of the copy bandwidth per byte).

// 0xff in each byte of w that is >= the same byte of l (unsigned), else 0x00.
SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t bytes_at_least(std::uint32_t w, std::uint32_t l) {
  constexpr std::uint32_t kHigh = 0x80808080u;
  // The low seven bits: (w | 0x80) - (l & 0x7f) keeps its top bit exactly when w's are >= l's,
  // and no borrow crosses into the next byte.
  const std::uint32_t low_ge = ((w | kHigh) - (l & ~kHigh)) & kHigh;
  // The top bits decide where they differ.
  const std::uint32_t ge = ((w & ~l) | (~(w ^ l) & low_ge)) & kHigh;
  return ge | (ge - (ge >> 7));
}

template <class T>
inline constexpr bool kByteInteger = !is_float_like<T> && sizeof(T) == 1;

template <class T>
struct InvertOp {
  static constexpr bool kUsesChannel = false;
  SV_HOST_DEVICE SV_FORCE_INLINE T operator()(T x, std::uint32_t) const { return invert_value(x); }
  SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t quad(std::uint32_t w) const
    requires kByteInteger<T>
  {
    return w ^ (0x01010101u * static_cast<std::uint8_t>(invert_value(T(0))));
  }
};

// Integers: x & mask. Floats: image.mul(levels).floor_().clamp_(0, levels - 1).mul_(1 / levels).
template <class T>
struct PosterizeOp {
  static constexpr bool kUsesChannel = false;
  opmath_t<T> levels = 256;
  opmath_t<T> inv_levels = 1.0 / 256;
  T mask = T(0);
  SV_HOST_DEVICE SV_FORCE_INLINE T operator()(T x, std::uint32_t) const {
    if constexpr (is_float_like<T>) {
      using F = opmath_t<T>;
      const F v = pmath::floor_(mat<T>(to_opmath(x) * levels));
      return to_image<T>(mat<T>(clamp_value(v, F(0), levels - F(1)) * inv_levels));
    } else {
      return static_cast<T>(x & mask);
    }
  }
  SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t quad(std::uint32_t w) const
    requires kByteInteger<T>
  {
    return w & (0x01010101u * static_cast<std::uint8_t>(mask));
  }
};

template <class T>
PosterizeOp<T> make_posterize_op(int bits) {
  PosterizeOp<T> op;
  if constexpr (is_float_like<T>) {
    op.levels = static_cast<opmath_t<T>>(1 << bits);
    op.inv_levels = static_cast<opmath_t<T>>(1.0 / (1 << bits));
  } else {
    // The top `bits` value bits; every bit when bits covers them all (torchvision returns the image).
    const int vb = kValueBits<T>;
    op.mask = bits >= vb ? static_cast<T>(~T(0))
                         : static_cast<T>(((std::uint64_t{1} << bits) - 1u) << (vb - bits));
  }
  return op;
}

// torch.where(image >= threshold, invert(image), image). The threshold is a Python float: it
// becomes the comparison's common dtype (float32 for integer images, T for float images).
template <class T>
struct SolarizeOp {
  static constexpr bool kUsesChannel = false;
  // Integers of up to 16 bits compare with an integer level instead: float(x) >= t exactly when
  // x >= ceil(t), and every such x is exact in float32. That drops the int-to-float conversion,
  // a quarter-rate instruction on the GPU, from every value (uint8 solarize ran at 76 % of the
  // copy bandwidth with it, ff59c01 on the H200).
  static constexpr bool kIntegerLevel = !is_float_like<T> && sizeof(T) <= 2;
  opmath_t<T> threshold = 0;
  std::int32_t level = 0;
  // uint8: the level in every byte (0 when every value inverts) and whether any value inverts.
  std::uint32_t level_quad = 0;
  std::uint32_t quad_enable = 0;
  SV_HOST_DEVICE SV_FORCE_INLINE T operator()(T x, std::uint32_t) const {
    if constexpr (kIntegerLevel) {
      return static_cast<std::int32_t>(x) >= level ? invert_value(x) : x;
    } else {
      return to_opmath(x) >= threshold ? invert_value(x) : x;
    }
  }
  SV_HOST_DEVICE SV_FORCE_INLINE std::uint32_t quad(std::uint32_t w) const
    requires std::is_same_v<T, std::uint8_t>
  {
    return w ^ (bytes_at_least(w, level_quad) & quad_enable);
  }
};

template <class T>
SolarizeOp<T> make_solarize_op(double threshold) {
  SolarizeOp<T> op;
  if constexpr (is_float_like<T>) {
    op.threshold = to_opmath(cast<T>(threshold));
  } else {
    op.threshold = static_cast<float>(threshold);
    // ceil of the float32 threshold, kept within what a 16-bit value can be compared with; NaN
    // inverts nothing (every comparison with it is false).
    const double t = static_cast<double>(op.threshold);
    op.level = std::isnan(t) ? 65537 : static_cast<std::int32_t>(std::fmin(std::fmax(std::ceil(t), -65537.0), 65537.0));
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      op.level_quad = 0x01010101u * static_cast<std::uint32_t>(std::clamp(op.level, 0, 255));
      op.quad_enable = op.level <= 255 ? 0xffffffffu : 0u;
    }
  }
  return op;
}

// adjust_gamma: integer images are scaled to float32 (to_dtype), then
// x ** gamma (torch's pow on CUDA: 0 -> ones, 1 -> x, 0.5 -> sqrt, then with the exponent
// converted to the image's dtype: 2 -> x*x, 3 -> x*x*x, else pow), then, only when gain != 1,
// .mul_(gain).clamp_(0, 1), and back with to_dtype (x * (max + 1 - 1e-3), truncated).
template <class T>
struct GammaOp {
  static constexpr bool kUsesChannel = false;
  enum Kind : int { kPow, kOne, kIdentity, kSqrt, kSquare, kCube };
  using F = opmath_t<T>;
  int kind = kPow;
  F gamma = 1;
  F gain = 1;
  bool use_gain = false;
  F in_scale = 1;    // integers: 1 / max
  F out_scale = 1;   // integers: max + 1 - 1e-3
  F zero_power = 0;  // kPow: pow_(+0, gamma)

  SV_HOST_DEVICE SV_FORCE_INLINE F pow_gamma(F v) const;

  SV_HOST_DEVICE SV_FORCE_INLINE T operator()(T x, std::uint32_t) const {
    F v = to_opmath(x);
    if constexpr (!is_float_like<T>) v = v * in_scale;
    F p;
    if (kind == kPow) {  // tested first: a switch compiled to a jump table for every value
      p = pow_gamma(v);
    } else {
      switch (kind) {
        case kOne: p = F(1); break;
        case kIdentity: p = v; break;
        case kSqrt: p = pmath::sqrt_(v); break;
        case kSquare: p = v * v; break;
        default: p = mat<T>(v * v) * v; break;  // kCube; torch: base * base * base, in T
      }
    }
    p = mat<T>(p);
    if (use_gain) p = clamp_value(mat<T>(p * gain), F(0), F(1));
    if constexpr (is_float_like<T>) {
      return to_image<T>(p);
    } else {
      return to_image<T>(p * out_scale);
    }
  }
};

// pow_(x, y) for the values an image's gamma rarely meets (negative, -0, NaN, inf): called, not
// inlined, so that the kernels inline only the path of positive finite values (it was called for
// every value: float32 adjust_gamma ran at 20 % of the copy bandwidth on the H200).
template <class F>
SV_HOST_DEVICE SV_NOINLINE F pow_rare(F x, F y) {
  return pmath::pow_(x, y);
}

template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> GammaOp<T>::pow_gamma(F v) const {
#if defined(__CUDA_ARCH__)
  // pow_'s own cases, in its order: x = 1 gives 1, +0 gives 0 (gamma > 0) or inf (gamma < 0;
  // gamma is never 0 here), and a positive finite x != 1 gives exp2(gamma * log2(x)).
  if (v > F(0) && v < pmath::infinity_<F>()) {
    return v == F(1) ? F(1) : pmath::exp2_(gamma * pmath::log2_(v));
  }
  if (pmath::to_bits(v) == 0) return zero_power;
  return pow_rare(v, gamma);
#else
  // The CPU: every case by selects, so that the elementwise loop vectorises (the same bits).
  return pmath::pow_select(v, gamma);
#endif
}

template <class T>
GammaOp<T> make_gamma_op(double gamma, double gain) {
  using F = opmath_t<T>;
  GammaOp<T> op;
  if (gamma == 0.0) op.kind = GammaOp<T>::kOne;
  else if (gamma == 1.0) op.kind = GammaOp<T>::kIdentity;
  else if (gamma == 0.5) op.kind = GammaOp<T>::kSqrt;
  // The exponent becomes the image's dtype (float32 for integer images) before the checks.
  op.gamma = to_opmath(cast<std::conditional_t<is_float_like<T>, T, float>>(gamma));
  if (op.kind == GammaOp<T>::kPow && op.gamma == F(2)) op.kind = GammaOp<T>::kSquare;
  if (op.kind == GammaOp<T>::kPow && op.gamma == F(3)) op.kind = GammaOp<T>::kCube;
  op.zero_power = pmath::pow_(F(0), op.gamma);
  op.use_gain = gain != 1.0;
  op.gain = static_cast<F>(gain);
  if constexpr (!is_float_like<T>) {
    op.in_scale = static_cast<F>(1.0 / ColorBound<T>::value);
    op.out_scale = static_cast<F>(ColorBound<T>::value + 1.0 - 1e-3);
  }
  return op;
}

// Integer images: a lookup table over every value of T (built with the op above).
template <class T>
struct LutOp {
  static constexpr bool kUsesChannel = false;
  // uint8: the CPU engine looks rows up 64 bytes at a time where it can (cpu/byte_table.hpp).
  static constexpr bool kByteTable = std::is_same_v<T, std::uint8_t>;
  const T* lut = nullptr;
  SV_HOST_DEVICE SV_FORCE_INLINE T operator()(T x, std::uint32_t) const { return lut[x]; }
};

// ---- per-pixel functors (the pixel engines: op(n, x[kIn], y[kOut]) for image n) ------------

// Per-pixel ops of uint8 images may also offer quad(n, x, y): the op on four pixels, channel c of
// pixel k in byte k of x[c] (y likewise); the CUDA pixel engine calls it on 16-byte vectors
// (cuda/pixels.cuh) and converts through kernels/byte_word.hpp, not the conversion instructions.

// rgb_to_grayscale of a 3-channel image into 1 or 3 identical channels.
template <class T, int Out>
struct GrayscaleOp {
  static constexpr int kIn = 3, kOut = Out;
  static constexpr bool kQuads = std::is_same_v<T, std::uint8_t>;
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t, const T (&x)[3], T (&y)[Out]) const {
    // The weights sum to 0.9999: an integer image's gray value stays within [0, bound].
    const T g = in_range_to_image<T>(grayscale_value(x[0], x[1], x[2]));
    SV_UNROLL
    for (int c = 0; c < Out; ++c) y[c] = g;
  }
  SV_HOST_DEVICE SV_FORCE_INLINE void quad(std::int64_t, const std::uint32_t (&x)[3], std::uint32_t (&y)[Out]) const {
    std::uint32_t g[4];
    SV_UNROLL
    for (int k = 0; k < 4; ++k) g[k] = floor_byte(gray_of<T>(word_byte(x[0], k), word_byte(x[1], k), word_byte(x[2], k)));
    const std::uint32_t word = pack_bytes(g[0], g[1], g[2], g[3]);
    SV_UNROLL
    for (int c = 0; c < Out; ++c) y[c] = word;
  }
};

// adjust_saturation: blend with the (floored) grayscale image.
//
// Convex (a factor in [0, 1], both blend factors in [0, 1] as floats): every blend of values in
// [0, 255] stays in [0, 256) (255 * (ratio + other) with the two roundings is below 256), where
// clamp_(0, 255) then truncation is the floor alone, so the uint8 quad form drops the two clamps
// (a sixth of its instructions; the kernel is issue-bound: ncu on the H200, issue slots 73 %).
template <class T, bool Convex = false>
struct SaturationOp {
  static constexpr int kIn = 3, kOut = 3;
  static constexpr bool kQuads = std::is_same_v<T, std::uint8_t>;
  BlendFactors<T> factors;
  std::uint32_t two23 = 0x4b000000u;  // word_byte's constant as a kernel argument
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t, const T (&x)[3], T (&y)[3]) const {
    const opmath_t<T> g = blend_gray(x[0], x[1], x[2]);
    SV_UNROLL
    for (int c = 0; c < 3; ++c) y[c] = blend(x[c], g, factors);
  }
  SV_HOST_DEVICE SV_FORCE_INLINE void quad(std::int64_t, const std::uint32_t (&x)[3], std::uint32_t (&y)[3]) const {
    std::uint32_t b[3][4];
    SV_UNROLL
    for (int k = 0; k < 4; ++k) {
      float v[3];
      SV_UNROLL
      for (int c = 0; c < 3; ++c) v[c] = word_byte(x[c], k, two23);
      const float g = floor_small(gray_of<T>(v[0], v[1], v[2]));  // in [0, 255): blend_gray's floor
      SV_UNROLL
      for (int c = 0; c < 3; ++c) {
        const float blended = blend_unclamped<T>(v[c], g, factors);
        b[c][k] = Convex ? floor_byte(blended) : clamped_byte(blended);
      }
    }
    SV_UNROLL
    for (int c = 0; c < 3; ++c) y[c] = pack_bytes(b[c][0], b[c][1], b[c][2], b[c][3]);
  }
};

// adjust_contrast's second pass: blend with the mean of image n's grayscale image.
template <class T, int C>
struct ContrastApplyOp {
  static constexpr int kIn = C, kOut = C;
  BlendFactors<T> factors;
  const opmath_t<T>* means = nullptr;  // one per image
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, const T (&x)[C], T (&y)[C]) const {
    const opmath_t<T> m = means[n];
    SV_UNROLL
    for (int c = 0; c < C; ++c) y[c] = blend(x[c], m, factors);
  }
};

// autocontrast: per image and channel, the minimum and (max - min) / bound, or 0 and 1 when the
// channel is constant.
template <class T>
struct AutocontrastChannel {
  opmath_t<T> minimum = 0;
  opmath_t<T> inv_scale = 1;
};

template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE AutocontrastChannel<T> autocontrast_channel(opmath_t<T> lo, opmath_t<T> hi) {
  using F = opmath_t<T>;
  AutocontrastChannel<T> p;
  if (!(hi == lo)) {
    p.minimum = lo;
    p.inv_scale = mat<T>(mat<T>(hi - lo) * F(1.0 / ColorBound<T>::value));
  }
  return p;
}

// One value of a channel, rescaled: (x - minimum) / inv_scale, clamped to the bound.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T autocontrast_value(T x, const AutocontrastChannel<T>& p) {
  using F = opmath_t<T>;
  const F diff = mat<T>(to_opmath(x) - p.minimum);
  return in_range_to_image<T>(clamp_value(mat<T>(diff / p.inv_scale), F(0), bound_of<T>()));
}

template <class T, int C>
struct AutocontrastApplyOp {
  static constexpr int kIn = C, kOut = C;
  const AutocontrastChannel<T>* channels = nullptr;  // [n][C]
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, const T (&x)[C], T (&y)[C]) const {
    SV_UNROLL
    for (int c = 0; c < C; ++c) y[c] = autocontrast_value(x[c], channels[n * C + c]);
  }
};

// equalize's last pass: to uint8 (to_dtype scale), through the image's lookup table, back.
template <class T, int C>
struct EqualizeApplyOp {
  static constexpr int kIn = C, kOut = C;
  ToDtypeOp<T, std::uint8_t> to_u8;
  ToDtypeOp<std::uint8_t, T> from_u8;
  const std::uint8_t* luts = nullptr;  // image n, channel c: luts + n * lut_stride + c * 256
  std::int64_t lut_stride = 0;
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, const T (&x)[C], T (&y)[C]) const {
    const std::uint8_t* lut = luts + n * lut_stride;
    for (int c = 0; c < C; ++c) y[c] = from_u8(lut[c * 256 + to_u8(x[c], 0u)], 0u);
  }
};

template <class T, int C>
EqualizeApplyOp<T, C> make_equalize_apply_op(const std::uint8_t* luts, std::int64_t lut_stride) {
  EqualizeApplyOp<T, C> op;
  if constexpr (!std::is_same_v<T, std::uint8_t>) {
    op.to_u8 = make_to_dtype_op<T, std::uint8_t>(true);
    op.from_u8 = make_to_dtype_op<std::uint8_t, T>(true);
  }
  op.luts = luts;
  op.lut_stride = lut_stride;
  return op;
}

}  // namespace streamvision::kernels
