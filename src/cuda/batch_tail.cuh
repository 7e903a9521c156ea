// Internal: what the batch kernels do to each value they write when a BatchTail asks for it
// (functional/batch.hpp): to_dtype(dtype, scale), then normalize(mean, std), each value rounded
// as those ops' outputs are. Shared by resized_crop_batch (batch.cu, after the resize's rounding)
// and color_jitter_batch (batch_jitter.cu, after the jitter's steps).
#pragma once

#include <cstddef>
#include <type_traits>

#include "kernels/normalize.hpp"
#include "kernels/to_dtype.hpp"
#include "streamvision/functional/batch.hpp"

namespace streamvision::cuda {

// A value of T to the output's O, for channel c (C: the most channels normalize holds).
template <class T, class O, int C>
struct ConvertNormalize {
  bool convert = false, normalize = false;
  kernels::ToDtypeOp<T, O> to_dtype;
  kernels::NormalizeOp<O, C> norm;

  // `tail` as the functional layer checked it: mean and std one value per channel.
  static ConvertNormalize make(const BatchTail& tail) {
    ConvertNormalize t{};
    t.to_dtype = kernels::make_to_dtype_op<T, O>(tail.scale);
    t.convert = tail.dtype.has_value();
    t.normalize = !tail.mean.empty();
    for (std::size_t c = 0; c < tail.mean.size() && c < static_cast<std::size_t>(C); ++c) {
      t.norm.mean[c] = kernels::to_opmath(kernels::cast<O>(tail.mean[c]));
      t.norm.stdev[c] = kernels::to_opmath(kernels::cast<O>(tail.std[c]));
    }
    return t;
  }

  SV_HOST_DEVICE SV_FORCE_INLINE O operator()(T v, int c) const {
    O o;
    if constexpr (std::is_same_v<T, O>) {
      o = convert ? to_dtype(v, 0u) : v;
    } else {
      o = to_dtype(v, 0u);
    }
    if constexpr (kernels::is_float_like<O>) {
      if (normalize) o = norm(o, static_cast<std::uint32_t>(c));
    }
    return o;
  }
};

}  // namespace streamvision::cuda
