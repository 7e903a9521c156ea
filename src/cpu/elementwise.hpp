// Internal: the CPU engine for elementwise ops. It walks the same ElementwisePlan as the CUDA
// engine, row by row (dim 0 of the plan), rows spread over the thread pool.
#pragma once

#include <cstdint>

#include "core/tensor_views.hpp"
#include "cpu/parallel.hpp"
#include "kernels/elementwise_plan.hpp"

namespace streamvision::cpu {

template <class In, class Out, class Op>
void run_elementwise(const kernels::ElementwisePlan& plan, const In* in, Out* out, const Op& op) {
  if (plan.numel == 0) return;
  const std::int64_t row_len = plan.size[0];
  const std::int64_t rows = plan.numel / row_len;
  const std::int64_t is0 = plan.in_stride[0];
  const std::int64_t os0 = plan.out_stride[0];
  parallel_for(rows, std::max<std::int64_t>(1, (1 << 16) / row_len), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t row = first; row < last; ++row) {
      std::int64_t in_off = 0, out_off = 0, rest = row;
      for (int d = 1; d < plan.rank; ++d) {
        const std::int64_t i = rest % plan.size[d];
        rest /= plan.size[d];
        in_off += i * plan.in_stride[d];
        out_off += i * plan.out_stride[d];
      }
      const In* src = in + in_off;
      Out* dst = out + out_off;
      if constexpr (Op::kUsesChannel) {
        const std::int64_t flat = row * row_len;
        std::int64_t within = flat % plan.channel_inner;
        std::uint32_t channel = static_cast<std::uint32_t>((flat / plan.channel_inner) % plan.channels);
        for (std::int64_t j = 0; j < row_len; ++j) {
          dst[j * os0] = op(src[j * is0], channel);
          if (++within == plan.channel_inner) {
            within = 0;
            if (++channel == plan.channels) channel = 0;
          }
        }
      } else if (is0 == 1 && os0 == 1) {
        for (std::int64_t j = 0; j < row_len; ++j) dst[j] = op(src[j], 0u);  // vectorizable
      } else {
        for (std::int64_t j = 0; j < row_len; ++j) dst[j * os0] = op(src[j * is0], 0u);
      }
    }
  });
}

// The elementwise engine over same-dtype tensors (input and output may be the same tensor).
template <class T, class Op>
void run_map(const Tensor& input, const Tensor& output, const Op& op) {
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(detail::strided_view(input), detail::strided_view(output));
  run_elementwise(plan, static_cast<const T*>(input.data()), static_cast<T*>(output.data()), op);
}

// out = in element by element, any dtype (cpu/layout.cpp).
void copy_view(const kernels::StridedView& in, const kernels::StridedView& out);

}  // namespace streamvision::cpu
