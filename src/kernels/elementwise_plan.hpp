// Internal: how an elementwise op walks its elements, shared by the CPU and CUDA engines.
//
// The walk follows the output's memory order (so writes are sequential), with dims of size 1
// dropped and neighbouring dims merged wherever both input and output strides allow. A
// contiguous NCHW image becomes one long dim, channels_last too, and a horizontal flip of
// NCHW becomes [rows, W] with input stride -1 on W. Dim 0 of a plan is the innermost.
//
// An op that needs the channel of an element (normalize) gets it from the flat index f of the
// walk: channel = (f / channel_inner) % channels, where channel_inner is the number of
// elements the walk visits per step of the channel dim. That stays true after merging.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "core/small_sort.hpp"
#include "kernels/strided_view.hpp"

namespace streamvision::kernels {

struct ElementwisePlan {
  int rank = 0;
  std::int64_t size[kMaxRank] = {};
  std::int64_t in_stride[kMaxRank] = {};
  std::int64_t out_stride[kMaxRank] = {};
  std::int64_t numel = 0;
  std::int64_t channel_inner = 1;  // see the header comment; 1 and channels 1 when unused
  std::int64_t channels = 1;
  // The output offset of flat index f is f itself (a freshly allocated output).
  bool out_linear = false;
};

// `channel_dim` is the logical dim holding channels (or -1 when the op does not need them).
inline ElementwisePlan plan_elementwise(const StridedView& in, const StridedView& out, int channel_dim = -1) {
  ElementwisePlan plan;
  const int rank = out.rank;
  plan.numel = 1;
  for (int d = 0; d < rank; ++d) plan.numel *= out.shape[d];

  // Output memory order, outermost first. Ties (equal output strides, e.g. size-1 dims) fall
  // back to the input's order and then to the logical order, all deterministic.
  int order[kMaxRank];
  std::iota(order, order + rank, 0);
  auto abs64 = [](std::int64_t v) { return v < 0 ? -v : v; };
  detail::stable_sort_small(order, rank, [&](int a, int b) {
    if (out.strides[a] != out.strides[b]) return out.strides[a] > out.strides[b];
    return abs64(in.strides[a]) > abs64(in.strides[b]);
  });

  if (channel_dim >= 0 && out.shape[channel_dim] > 1) {
    plan.channels = out.shape[channel_dim];
    plan.channel_inner = 1;
    bool inner = false;
    for (int i = 0; i < rank; ++i) {
      if (inner) plan.channel_inner *= out.shape[order[i]];
      if (order[i] == channel_dim) inner = true;
    }
  }

  // Innermost first, size-1 dims dropped, mergeable neighbours merged.
  for (int i = rank - 1; i >= 0; --i) {
    const int d = order[i];
    if (out.shape[d] == 1) continue;
    if (plan.rank > 0) {
      const int last = plan.rank - 1;
      if (out.strides[d] == plan.out_stride[last] * plan.size[last] &&
          in.strides[d] == plan.in_stride[last] * plan.size[last]) {
        plan.size[last] *= out.shape[d];
        continue;
      }
    }
    plan.size[plan.rank] = out.shape[d];
    plan.in_stride[plan.rank] = in.strides[d];
    plan.out_stride[plan.rank] = out.strides[d];
    ++plan.rank;
  }
  if (plan.rank == 0) {  // a single element (or all dims of size 1)
    plan.rank = 1;
    plan.size[0] = 1;
    plan.in_stride[0] = 1;
    plan.out_stride[0] = 1;
  }
  std::int64_t expected = 1;
  plan.out_linear = true;
  for (int d = 0; d < plan.rank; ++d) {
    if (plan.size[d] != 1 && plan.out_stride[d] != expected) plan.out_linear = false;
    expected *= plan.size[d];
  }
  return plan;
}

}  // namespace streamvision::kernels
