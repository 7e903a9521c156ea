// Internal: elementary functions written only with + - * / fma sqrt floor rint and bit
// operations, all of which are correctly rounded (or exact) on the host and on the GPU. The
// CPU and CUDA engines therefore compute them bit for bit alike, which libm and CUDA's own
// powf/logf/sinf do not guarantee. Accuracy is a few ulp of the instantiated type (float or
// double); ops that need them (gamma's pow, the normals of gaussian_noise) stay well within
// torchvision's tolerances.
#pragma once

#include <math.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "streamvision/core/macros.hpp"

namespace streamvision::kernels::pmath {

SV_HOST_DEVICE SV_FORCE_INLINE float fma_(float a, float b, float c) { return ::fmaf(a, b, c); }
SV_HOST_DEVICE SV_FORCE_INLINE double fma_(double a, double b, double c) { return ::fma(a, b, c); }
SV_HOST_DEVICE SV_FORCE_INLINE float fmax_(float a, float b) { return ::fmaxf(a, b); }
SV_HOST_DEVICE SV_FORCE_INLINE float fmin_(float a, float b) { return ::fminf(a, b); }
SV_HOST_DEVICE SV_FORCE_INLINE float floor_(float a) { return ::floorf(a); }
SV_HOST_DEVICE SV_FORCE_INLINE double floor_(double a) { return ::floor(a); }
SV_HOST_DEVICE SV_FORCE_INLINE float sqrt_(float a) { return ::sqrtf(a); }
SV_HOST_DEVICE SV_FORCE_INLINE double sqrt_(double a) { return ::sqrt(a); }
// Round half to even (the default rounding mode on the host; cvt.rni on the GPU).
SV_HOST_DEVICE SV_FORCE_INLINE float rint_(float a) { return ::rintf(a); }
SV_HOST_DEVICE SV_FORCE_INLINE double rint_(double a) { return ::rint(a); }

// c[0] * x^(N-1) + ... + c[N-1], by Horner's rule with fma.
template <class F, int N>
SV_HOST_DEVICE SV_FORCE_INLINE F horner(F x, const F (&c)[N]) {
  F p = c[0];
  // Unrolled on the CPU too: a loop nested in a pixel loop keeps GCC from vectorising that loop.
  SV_UNROLL
  for (int i = 1; i < N; ++i) p = fma_(p, x, c[i]);
  return p;
}

// IEEE layout facts of float and double.
template <class F> struct FloatBits;
template <> struct FloatBits<float> {
  using U = std::uint32_t;
  static constexpr int kMantissa = 23, kBias = 127, kMinExp = -126, kMaxExp = 127;
};
template <> struct FloatBits<double> {
  using U = std::uint64_t;
  static constexpr int kMantissa = 52, kBias = 1023, kMinExp = -1022, kMaxExp = 1023;
};

template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE typename FloatBits<F>::U to_bits(F f) {
  typename FloatBits<F>::U u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F from_bits(typename FloatBits<F>::U u) {
  F f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F infinity_() {
  return from_bits<F>(static_cast<typename FloatBits<F>::U>(2 * FloatBits<F>::kBias + 1) << FloatBits<F>::kMantissa);
}

// 2^n for n in [kMinExp, kMaxExp], exactly.
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F exp2_int(int n) {
  using B = FloatBits<F>;
  return from_bits<F>(static_cast<typename B::U>(n + B::kBias) << B::kMantissa);
}

// a / b for operands whose quotient's fast path is exact: a = 0 or 2^-90 <= |a| <= 4, and b in
// [2^-90, 4] (adjust_hue's finite-path quotients; log_reduced's (m - 1) / (m + 1)): far from the
// exponents for which the range check sends a division to the slow path (divisors and quotients
// near the denormal or overflow range, residuals a - b q below 2^-126). On the
// GPU: the fast path of the compiler's own IEEE division (approximate reciprocal, one Newton step,
// one correction; its SASS in bench/RESULTS.md, eleventh session) without the range check (FCHK)
// and the slow-path call that such operands never take: the same bits in fewer instructions and
// no branch. The CUDA tests that cover every uint8 colour through adjust_hue, float32 hue down to
// 2^-64 and every float32 mantissa through adjust_gamma compare it with the CPU's IEEE division.
SV_HOST_DEVICE SV_FORCE_INLINE float divide_unit(float a, float b) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  r = __fmaf_rn(r, __fmaf_rn(-b, r, 1.0f), r);
  const float q = __fmaf_rn(a, r, 0.0f);
  return __fmaf_rn(r, __fmaf_rn(-b, q, a), q);
#else
  return a / b;
#endif
}

// x = m * 2^e with m in [sqrt(1/2), sqrt(2)), for finite x > 0 (subnormals included). Selects,
// no branches: the CPU's vectorised gamma loop runs it, and nvcc predicates it either way.
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F split_exponent(F x, int& e) {
  using B = FloatBits<F>;
  using U = typename B::U;
  const bool subnormal = x < exp2_int<F>(B::kMinExp);  // scaled into the normal range first (exact)
  const U u = to_bits(subnormal ? x * exp2_int<F>(B::kMantissa + 1) : x);
  e = static_cast<int>(u >> B::kMantissa) - B::kBias + (subnormal ? -(B::kMantissa + 1) : 0);
  const U mantissa_mask = (U(1) << B::kMantissa) - 1;
  const F m = from_bits<F>((u & mantissa_mask) | (static_cast<U>(B::kBias) << B::kMantissa));  // [1, 2)
  const bool upper = m > F(1.4142135623730951);
  e = upper ? e + 1 : e;
  return upper ? m * F(0.5) : m;
}

// Natural log of m in [sqrt(1/2), sqrt(2)): 2 atanh(s) with s = (m-1)/(m+1), a series in s^2.
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F log_reduced(F m) {
  // m - 1 is exact (Sterbenz): 0 or at least 2^-24 in magnitude, below 0.42; m + 1 in [1.7, 2.5).
  F s;
  if constexpr (std::is_same_v<F, float>) {
    s = divide_unit(m - F(1), m + F(1));
  } else {
    s = (m - F(1)) / (m + F(1));
  }
  const F z = s * s;                    // z <= 0.0295
  F p;
  if constexpr (std::is_same_v<F, float>) {
    constexpr float c[] = {0.2222222222222222f, 0.2857142857142857f, 0.4f, 0.6666666666666666f, 2.0f};
    p = horner(z, c);
  } else {
    constexpr double c[] = {0.09523809523809523, 0.10526315789473684, 0.11764705882352941, 0.13333333333333333,
                            0.15384615384615385, 0.18181818181818182, 0.2222222222222222,  0.2857142857142857,
                            0.4,                 0.6666666666666666,  2.0};
    p = horner(z, c);
  }
  return s * p;
}

// log2(x) for finite x > 0.
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F log2_(F x) {
  int e = 0;
  const F m = split_exponent(x, e);
  return fma_(log_reduced(m), F(1.4426950408889634), static_cast<F>(e));
}

// Natural log for finite x > 0.
template <class F>
SV_HOST_DEVICE inline F log_(F x) {
  int e = 0;
  const F m = split_exponent(x, e);
  return fma_(static_cast<F>(e), F(0.6931471805599453), log_reduced(m));
}

// 2^f for f in [-0.5, 0.5]: the Taylor series of exp(f ln 2), coefficients (ln 2)^k / k!.
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F exp2_reduced(F f) {
  if constexpr (std::is_same_v<F, float>) {
    constexpr float c[] = {1.5252733804059841e-05f, 0.0001540353039338161f, 0.0013333558146428443f,
                           0.009618129107628477f,   0.05550410866482158f,   0.24022650695910072f,
                           0.6931471805599453f,     1.0f};
    return horner(f, c);
  } else {
    constexpr double c[] = {1.3691488853904128e-12, 2.5678435993488206e-11, 4.4455382718708116e-10,
                            7.054911620801123e-09,  1.01780860092397e-07,   1.321548679014431e-06,
                            1.5252733804059841e-05, 0.0001540353039338161,  0.0013333558146428443,
                            0.009618129107628477,   0.05550410866482158,    0.24022650695910072,
                            0.6931471805599453,     1.0};
    return horner(f, c);
  }
}

// 2^t (NaN -> NaN, overflow -> inf, underflow -> 0).
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F exp2_(F t) {
  using B = FloatBits<F>;
  if (!(t == t)) return t;
  if (t >= F(B::kMaxExp + 1)) return infinity_<F>();
  if (t < F(B::kMinExp - B::kMantissa - 1)) return F(0);
  const F n = rint_(t);
  const F f = t - n;  // exact, in [-0.5, 0.5]
  const F p = exp2_reduced(f);
  const int k = static_cast<int>(n);
  if (k > B::kMaxExp) return (p * F(2)) * exp2_int<F>(k - 1);  // t in [max + 0.5, max + 1)
  if (k >= B::kMinExp) return p * exp2_int<F>(k);
  // Subnormal result: p * 2^kMinExp is exact, so the product below rounds once.
  return (p * exp2_int<F>(B::kMinExp)) * exp2_int<F>(k - B::kMinExp);
}

// x^y with C's special cases (the ones torch reaches for real x and y). Not recursive and
// inlined: as a called subroutine (it was recursive for negative x) it saved and restored 7
// registers through local memory per element, and float32 adjust_gamma ran at 20 % of the copy
// bandwidth. (nvcc runs with --fmad=false, so inlining changes no rounding.)
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F pow_(F x, F y) {
  if (y == F(0) || x == F(1)) return F(1);
  if (!(x == x) || !(y == y)) return x + y;  // NaN
  const bool y_integer = floor_(y) == y;
  const bool y_odd = y_integer && floor_(y * F(0.5)) != y * F(0.5);
  const F inf = infinity_<F>();
  if (x == F(0)) {
    const F r = y > F(0) ? F(0) : inf;
    return (y_odd && to_bits(x) != 0) ? -r : r;  // -0 to an odd power keeps its sign
  }
  F magnitude = x;
  bool negate = false;
  if (x < F(0)) {  // (-x)^y, negated for odd y; NaN unless y is an integer
    if (!y_integer) return (x - x) / (x - x);
    magnitude = -x;
    negate = y_odd;
  }
  F r;
  if (magnitude == F(1)) {
    r = F(1);  // (-1)^y for integer y, infinite ones included
  } else if (magnitude == inf) {
    r = y > F(0) ? inf : F(0);
  } else {
    r = exp2_(y * log2_(magnitude));
  }
  return negate ? -r : r;
}

// ---- the same functions with selects instead of branches --------------------------------------
// Bit for bit exp2_ and pow_, every case computed and the right one selected, so that a CPU loop
// over them vectorises (the branches kept GCC from it: float32 adjust_gamma ran at 0.2x
// torchvision's CPU speed; log2_ has no branches). The GPU keeps the branches: its warps mostly
// agree on them.

// exp2_(t).
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F exp2_select(F t) {
  using B = FloatBits<F>;
  const bool nan = !(t == t), over = t >= F(B::kMaxExp + 1), under = t < F(B::kMinExp - B::kMantissa - 1);
  const F in_range = (nan || over || under) ? F(0) : t;  // the special lanes compute on 0, then are replaced
  const F n = rint_(in_range);
  const F f = in_range - n;
  const F p = exp2_reduced(f);
  const int k = static_cast<int>(n);
  // exp2_'s three scalings in one: p 2^k1 2^k2 with k1 = k clamped to the normal exponents and
  // k2 = k - k1 (0, 1 or down to -24). Scaling by powers of two is exact short of overflow and
  // underflow, so this is (p 2) 2^(k-1) for k = max + 1, p 2^k, and (p 2^min) 2^(k-min) below.
  const int k1 = k > B::kMaxExp ? B::kMaxExp : (k < B::kMinExp ? B::kMinExp : k);
  F r = (p * exp2_int<F>(k1)) * exp2_int<F>(k - k1);
  r = under ? F(0) : r;
  r = over ? infinity_<F>() : r;
  return nan ? t : r;
}

// pow_(x, y). (In a loop over x, the compiler hoists y's tests.)
template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE F pow_select(F x, F y) {
  using U = typename FloatBits<F>::U;
  const bool y_integer = floor_(y) == y;
  const bool y_odd = y_integer & (floor_(y * F(0.5)) != y * F(0.5));  // &: a branch here kept GCC from vectorising
  const F inf = infinity_<F>();
  const F magnitude = from_bits<F>(to_bits(x) & ~(U(1) << (8 * sizeof(F) - 1)));  // -x for x < 0
  const bool ordinary = magnitude > F(0) && magnitude < inf;                      // not NaN either
  F r = exp2_select(y * log2_(ordinary ? magnitude : F(2)));
  r = magnitude == F(1) ? F(1) : r;
  r = magnitude == inf ? (y > F(0) ? inf : F(0)) : r;
  r = magnitude == F(0) ? (y > F(0) ? F(0) : inf) : r;
  const bool negative = x < F(0), minus_zero = x == F(0) && to_bits(x) != 0;
  r = ((negative && y_integer) || minus_zero) && y_odd ? -r : r;
  r = negative && !y_integer ? (x - x) / (x - x) : r;  // NaN, as pow_ makes it
  r = (!(x == x) || !(y == y)) ? x + y : r;
  return (y == F(0) || x == F(1)) ? F(1) : r;
}

// sin(2 pi u) and cos(2 pi u) for u in [0, 1], in double.
SV_HOST_DEVICE inline void sincos_2pi(double u, double& s, double& c) {
  const double r = u * 4.0;                // exact
  const double q = rint_(r);               // quadrant
  const double a = (r - q) * 1.5707963267948966;  // in [-pi/4, pi/4]
  const double z = a * a;
  // sin(a) / a and cos(a) as series in -a^2: 1 / (2k + 1)! and 1 / (2k)!.
  constexpr double sin_c[] = {2.8114572543455206e-15, 7.647163731819816e-13, 1.6059043836821613e-10,
                              2.505210838544172e-08,  2.7557319223985893e-06, 0.0001984126984126984,
                              0.008333333333333333,   0.16666666666666666,    1.0};
  constexpr double cos_c[] = {1.5619206968586225e-16, 4.779477332387385e-14, 1.1470745597729725e-11,
                              2.08767569878681e-09,   2.755731922398589e-07,  2.48015873015873e-05,
                              0.001388888888888889,   0.041666666666666664,   0.5,
                              1.0};
  const double ps = horner(-z, sin_c);
  const double pc = horner(-z, cos_c);
  const double sa = a * ps, ca = pc;
  switch (static_cast<int>(q) & 3) {
    case 0: s = sa; c = ca; break;
    case 1: s = ca; c = -sa; break;
    case 2: s = -sa; c = -ca; break;
    default: s = -ca; c = sa; break;
  }
}

}  // namespace streamvision::kernels::pmath
