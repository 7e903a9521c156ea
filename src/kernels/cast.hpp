// Internal: element conversions with PyTorch's semantics (torch's .to(dtype)), shared by both
// engines so CPU and CUDA agree bit for bit.
//
//  * to bool: x != 0.  From bool: 0 or 1.
//  * float <-> float: through float for the 16-bit types (c10::Half has only a float
//    constructor, so double -> half rounds twice, as in PyTorch), round to nearest even.
//  * int -> float: int -> float (or double) rounding to nearest even, then to 16 bits.
//  * float -> int: truncation toward zero. C++ leaves out-of-range values undefined and
//    PyTorch's CPU and CUDA builds differ there; we define them as PyTorch on x86 CPUs gives
//    them, on both engines: targets narrower than 32 bits and int32 convert through int32,
//    uint8 and int64 through int64 (PyTorch's uint8 path), and NaN or a value out of the range
//    of that intermediate becomes its minimum (x86's "integer indefinite"), then wraps.
//  * int -> int: two's complement wrap.
#pragma once

#include <cstdint>
#include <type_traits>

#include "streamvision/core/half.hpp"
#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

template <class T> inline constexpr bool is_half_like = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class T> inline constexpr bool is_float_like = is_half_like<T> || std::is_floating_point_v<T>;
template <class T> inline constexpr bool is_int_like = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type arithmetic on T happens in ("opmath"): float for 16-bit floats, else T itself for
// floats, float for integers.
template <class T> struct OpMath { using type = float; };
template <> struct OpMath<double> { using type = double; };
template <class T> using opmath_t = typename OpMath<T>::type;

template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> to_opmath(T x) {
  if constexpr (is_half_like<T>) {
    return static_cast<float>(x);
  } else {
    return static_cast<opmath_t<T>>(x);
  }
}

template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE std::int64_t float_to_int64(F v) {
  if (!(v >= static_cast<F>(-9.2233720368547758e18) && v < static_cast<F>(9.2233720368547758e18))) return INT64_MIN;
  return static_cast<std::int64_t>(v);
}

template <class F>
SV_HOST_DEVICE SV_FORCE_INLINE std::int32_t float_to_int32(F v) {
  if (!(v >= static_cast<F>(-2147483648.0) && v < static_cast<F>(2147483648.0))) return INT32_MIN;
  return static_cast<std::int32_t>(v);
}

template <class Out, class In>
SV_HOST_DEVICE SV_FORCE_INLINE Out cast(In x) {
  if constexpr (std::is_same_v<Out, In>) {
    return x;
  } else if constexpr (std::is_same_v<Out, bool>) {
    if constexpr (is_half_like<In>) {
      return static_cast<float>(x) != 0.0f;
    } else {
      return x != In(0);
    }
  } else if constexpr (std::is_same_v<In, bool>) {
    if constexpr (is_half_like<Out>) {
      return Out(x ? 1.0f : 0.0f);
    } else {
      return static_cast<Out>(x ? 1 : 0);
    }
  } else if constexpr (is_half_like<Out>) {
    // Everything reaches a 16-bit float through float.
    if constexpr (is_half_like<In>) {
      return Out(static_cast<float>(x));
    } else {
      return Out(static_cast<float>(x));
    }
  } else if constexpr (is_half_like<In>) {
    return cast<Out>(static_cast<float>(x));
  } else if constexpr (std::is_floating_point_v<Out>) {
    return static_cast<Out>(x);  // int -> float/double, float <-> double
  } else if constexpr (std::is_floating_point_v<In>) {
    // float -> int: truncate; out of range as x86 PyTorch (see the header comment); wrap.
    if constexpr (std::is_same_v<Out, std::uint8_t> || std::is_same_v<Out, std::int64_t>) {
      return static_cast<Out>(float_to_int64(x));
    } else {
      return static_cast<Out>(float_to_int32(x));
    }
  } else {
    return static_cast<Out>(x);  // int -> int: wrap
  }
}

// Rounds an opmath value to T and back: where PyTorch materialises an intermediate in T.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE opmath_t<T> round_to(opmath_t<T> v) {
  if constexpr (is_half_like<T>) {
    return static_cast<float>(T(v));
  } else {
    return static_cast<opmath_t<T>>(static_cast<T>(v));
  }
}

}  // namespace streamvision::kernels
