// Internal: the per-element math of to_dtype (torchvision.transforms.v2.functional.to_dtype).
//
// scale=false is a plain cast. scale=true, by dtype kinds:
//  * float -> float: a cast;
//  * float -> int:   cast(round_to<In>(x * (max(Out) + 1 - 1e-3))), no clamp (torchvision
//                    multiplies in the input dtype, then casts);
//  * int   -> float: round_to<Out>(cast<Out>(x) * (1 / max(In))), a multiply, not a divide;
//  * int   -> int:   narrowing shifts right by the difference of value bits in the input
//                    type; widening casts (wrapping) and shifts left in the output type.
// The host (src/functional/to_dtype.cpp) rejects the pairs torchvision rejects and fills the
// factors; the functor only computes.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/cast.hpp"
#include "streamvision/core/dtype.hpp"

namespace streamvision::kernels {

template <class In, class Out>
struct ToDtypeOp {
  static constexpr bool kUsesChannel = false;

  bool scale = false;
  opmath_t<In> in_factor = 1;    // float -> int
  opmath_t<Out> out_factor = 1;  // int -> float
  int shift = 0;                 // int -> int: > 0 shifts left (widening), < 0 right

  SV_HOST_DEVICE SV_FORCE_INLINE Out operator()(In x, std::uint32_t) const {
    if constexpr (is_float_like<In> && is_float_like<Out>) {
      return cast<Out>(x);
    } else if constexpr (is_float_like<In>) {
      if (!scale) return cast<Out>(x);
      return cast<Out>(round_to<In>(to_opmath(x) * in_factor));
    } else if constexpr (is_float_like<Out>) {
      if (!scale) return cast<Out>(x);
      const opmath_t<Out> v = to_opmath(cast<Out>(x)) * out_factor;
      if constexpr (is_half_like<Out>) {
        return Out(v);
      } else {
        return v;
      }
    } else if constexpr (is_int_like<In> && is_int_like<Out>) {
      if (!scale || shift == 0) return cast<Out>(x);
      if (shift < 0) return cast<Out>(static_cast<In>(x >> -shift));  // arithmetic for signed
      using U = std::make_unsigned_t<Out>;
      return static_cast<Out>(static_cast<U>(static_cast<U>(cast<Out>(x)) << shift));
    } else {
      return cast<Out>(x);  // bool <-> int: the host allows only scale=false
    }
  }
};

// Host side: the factors for an (In, Out) pair, from torchvision's formulas.
template <class In, class Out>
ToDtypeOp<In, Out> make_to_dtype_op(bool scale) {
  ToDtypeOp<In, Out> op;
  op.scale = scale;
  constexpr DType from = dtype_of<In>, to = dtype_of<Out>;
  if constexpr (is_float_like<In> && !is_float_like<Out>) {
    op.in_factor = static_cast<opmath_t<In>>(max_value(to) + 1.0 - 1e-3);
  }
  if constexpr (!is_float_like<In> && is_float_like<Out>) {
    op.out_factor = static_cast<opmath_t<Out>>(1.0 / max_value(from));
  }
  if constexpr (is_int_like<In> && is_int_like<Out>) {
    op.shift = value_bits(to) - value_bits(from);
  }
  return op;
}

}  // namespace streamvision::kernels
