// Internal: the CUDA engine for elementwise ops (copies, flips, layout changes, casts,
// per-channel arithmetic). One kernel template walks an ElementwisePlan; the op is a functor
// from src/kernels/ shared with the CPU engine.
//
// Each thread handles VEC consecutive elements of the walk, VEC chosen so the smaller of the
// input and output types moves 16 bytes. Loads are 16-byte vectors when the chunk lies in one
// row with input stride +1 (or -1: a flip, reversed in registers) and is aligned; otherwise
// they gather element by element. Stores are vectors whenever the output is written in walk
// order. Index math is 32-bit with multiply-shift division; work above 2^30 elements is
// launched in pieces.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda_check.hpp"
#include "cuda/launch.hpp"
#include "kernels/elementwise_plan.hpp"
#include "kernels/fast_divmod.hpp"

namespace streamvision::cuda {

struct DevicePlan {
  int rank;
  std::uint32_t numel;
  kernels::FastDivmod size_div[kMaxRank];
  std::int64_t in_stride[kMaxRank];
  std::int64_t out_stride[kMaxRank];
  // Channel of flat index f of this piece (see ElementwisePlan): the piece starts at global
  // flat index base = channel_base_q * channel_inner + channel_base_r.
  kernels::FastDivmod channel_inner_div;  // min(channel_inner, 2^31): exact for f < 2^30
  std::uint64_t channel_inner;
  std::uint64_t channel_base_r;
  std::uint32_t channel_base_q;  // already reduced modulo channels
  std::uint32_t channels;
  bool out_vector;  // output offset == flat index and the output base is 16-byte aligned
};

template <class T, int N>
struct alignas(16) Pack {
  T v[N];
};

template <class T>
__device__ SV_FORCE_INLINE bool aligned16(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

// Position of one element of the walk: per-dim index and the offset it maps to.
struct Cursor {
  std::uint32_t idx[kMaxRank];
  std::int64_t offset;

  __device__ SV_FORCE_INLINE void advance(const DevicePlan& p, const std::int64_t* stride) {
    offset += stride[0];
    ++idx[0];
#pragma unroll
    for (int d = 0; d < kMaxRank - 1; ++d) {
      if (d + 1 < p.rank && idx[d] == p.size_div[d].divisor) {
        idx[d] = 0;
        offset += stride[d + 1] - static_cast<std::int64_t>(p.size_div[d].divisor) * stride[d];
        ++idx[d + 1];
      }
    }
  }
};

template <int VEC, class In, class Out, class Op>
__global__ void __launch_bounds__(256) elementwise_kernel(const In* in, Out* out, DevicePlan p, Op op) {
  const std::uint32_t first = (blockIdx.x * 256u + threadIdx.x) * VEC;
  if (first >= p.numel) return;
  const std::uint32_t count = min(static_cast<std::uint32_t>(VEC), p.numel - first);

  Cursor start;
  start.offset = 0;
  std::int64_t out_offset = 0;
  std::uint32_t rest = first;
#pragma unroll
  for (int d = 0; d < kMaxRank; ++d) {
    start.idx[d] = 0;
    if (d < p.rank) {
      std::uint32_t q, r;
      if (d + 1 < p.rank) {
        p.size_div[d].divmod(rest, q, r);
      } else {
        q = 0;
        r = rest;
      }
      start.idx[d] = r;
      rest = q;
      start.offset += static_cast<std::int64_t>(r) * p.in_stride[d];
      out_offset += static_cast<std::int64_t>(r) * p.out_stride[d];
    }
  }
  const bool one_row = count == VEC && start.idx[0] + VEC <= p.size_div[0].divisor;

  In x[VEC];
  const In* src = in + start.offset;
  if (one_row && p.in_stride[0] == 1 && aligned16(src)) {
    const Pack<In, VEC> pack = *reinterpret_cast<const Pack<In, VEC>*>(src);
#pragma unroll
    for (int j = 0; j < VEC; ++j) x[j] = pack.v[j];
  } else if (one_row && p.in_stride[0] == -1 && aligned16(src - (VEC - 1))) {
    const Pack<In, VEC> pack = *reinterpret_cast<const Pack<In, VEC>*>(src - (VEC - 1));
#pragma unroll
    for (int j = 0; j < VEC; ++j) x[j] = pack.v[VEC - 1 - j];
  } else {
    Cursor c = start;
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      if (j < count) {
        x[j] = in[c.offset];
        if (j + 1 < count) c.advance(p, p.in_stride);
      }
    }
  }

  Out y[VEC];
  if constexpr (Op::kUsesChannel) {
    std::uint32_t q, r;
    p.channel_inner_div.divmod(first, q, r);
    std::uint64_t within = p.channel_base_r + r;
    if (within >= p.channel_inner) {
      within -= p.channel_inner;
      ++q;
    }
    std::uint32_t channel = (q + p.channel_base_q) % p.channels;
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      y[j] = op(x[j], channel);
      if (++within == p.channel_inner) {
        within = 0;
        if (++channel == p.channels) channel = 0;
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < VEC; ++j) y[j] = op(x[j], 0u);
  }

  if (count == VEC && p.out_vector) {
    Pack<Out, VEC> pack;
#pragma unroll
    for (int j = 0; j < VEC; ++j) pack.v[j] = y[j];
    *reinterpret_cast<Pack<Out, VEC>*>(out + first) = pack;
  } else if (one_row && p.out_stride[0] == 1 && aligned16(out + out_offset)) {
    Pack<Out, VEC> pack;
#pragma unroll
    for (int j = 0; j < VEC; ++j) pack.v[j] = y[j];
    *reinterpret_cast<Pack<Out, VEC>*>(out + out_offset) = pack;
  } else {
    Cursor c = start;
    c.offset = out_offset;
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      if (j < count) {
        out[c.offset] = y[j];
        if (j + 1 < count) c.advance(p, p.out_stride);
      }
    }
  }
}

// Calls fn(piece, in_offset, out_offset, flat_base) for sub-plans of at most max_numel
// elements, splitting the outermost dims; flat_base is the piece's first flat index.
template <class Fn>
void for_each_piece(const kernels::ElementwisePlan& plan, std::int64_t max_numel, std::int64_t in_base,
                    std::int64_t out_base, std::int64_t flat_base, Fn&& fn) {
  if (plan.numel <= max_numel) {
    fn(plan, in_base, out_base, flat_base);
    return;
  }
  const int outer = plan.rank - 1;
  const std::int64_t per_index = plan.numel / plan.size[outer];
  kernels::ElementwisePlan piece = plan;
  if (per_index <= max_numel) {
    const std::int64_t step = std::max<std::int64_t>(1, max_numel / per_index);
    for (std::int64_t i = 0; i < plan.size[outer]; i += step) {
      piece.size[outer] = std::min(step, plan.size[outer] - i);
      piece.numel = per_index * piece.size[outer];
      fn(piece, in_base + i * plan.in_stride[outer], out_base + i * plan.out_stride[outer],
         flat_base + i * per_index);
    }
    return;
  }
  piece.rank = outer;
  piece.numel = per_index;
  piece.out_linear = false;  // offsets restart per slice, the flat index does not
  for (std::int64_t i = 0; i < plan.size[outer]; ++i) {
    for_each_piece(piece, max_numel, in_base + i * plan.in_stride[outer], out_base + i * plan.out_stride[outer],
                   flat_base + i * per_index, fn);
  }
}

template <class In, class Out>
constexpr int elementwise_vec() {
  return static_cast<int>(16 / std::min(sizeof(In), sizeof(Out)));
}

// Launches `op` over `plan` on `stream`. No allocation, no synchronization.
template <class In, class Out, class Op>
void launch_elementwise(const kernels::ElementwisePlan& plan, const In* in, Out* out, const Op& op,
                        const Stream& stream, const char* op_name) {
  if (plan.numel == 0) return;
  constexpr int VEC = elementwise_vec<In, Out>();
  LaunchScope scope(stream, op_name);
  constexpr std::int64_t kMaxPiece = std::int64_t{1} << 30;
  for_each_piece(plan, kMaxPiece, 0, 0, 0,
                 [&](const kernels::ElementwisePlan& piece, std::int64_t in_off, std::int64_t out_off,
                     std::int64_t flat_base) {
    DevicePlan d{};
    d.rank = piece.rank;
    d.numel = static_cast<std::uint32_t>(piece.numel);
    for (int i = 0; i < piece.rank; ++i) {
      d.size_div[i] = kernels::FastDivmod(static_cast<std::uint32_t>(piece.size[i]));
      d.in_stride[i] = piece.in_stride[i];
      d.out_stride[i] = piece.out_stride[i];
    }
    d.channel_inner_div =
        kernels::FastDivmod(static_cast<std::uint32_t>(std::min<std::int64_t>(piece.channel_inner, std::int64_t{1} << 31)));
    d.channel_inner = static_cast<std::uint64_t>(piece.channel_inner);
    d.channel_base_r = static_cast<std::uint64_t>(flat_base % piece.channel_inner);
    d.channel_base_q = static_cast<std::uint32_t>((flat_base / piece.channel_inner) % piece.channels);
    d.channels = static_cast<std::uint32_t>(piece.channels);
    Out* out_piece = out + out_off;
    d.out_vector = piece.out_linear && (reinterpret_cast<std::uintptr_t>(out_piece) & 15u) == 0;
    const std::uint64_t chunks = (piece.numel + VEC - 1) / VEC;
    const unsigned blocks = static_cast<unsigned>((chunks + 255) / 256);
    elementwise_kernel<VEC, In, Out, Op><<<blocks, 256, 0, scope.handle()>>>(in + in_off, out_piece, d, op);
    scope.check_launch();
  });
}

}  // namespace streamvision::cuda
