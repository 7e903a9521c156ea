// Internal: the CUDA engine for elementwise ops (copies, flips, layout changes, casts,
// per-channel arithmetic). One kernel template walks an ElementwisePlan; the op is a functor
// from src/kernels/ shared with the CPU engine. Plans of whole aligned rows (contiguous images,
// their flips and casts) take a leaner kernel, the row path, declared before launch_elementwise.
//
// Memory access: a thread handles kChunks chunks of VEC consecutive elements of the walk, VEC
// chosen so the *wider* of the input and output types moves 16 bytes per chunk. Chunk u of a
// thread starts at (block * kChunks + u) * 256 + thread, so every load and store instruction
// of a warp covers one contiguous span (fully coalesced, 16 bytes a thread on the wide side).
// All chunks are loaded before any is stored, so a thread has kChunks loads in flight.
// Loads are vectors when a chunk lies in one row with input stride +1 (or -1: a flip, reversed
// in registers) and is aligned to the chunk's input size; otherwise they gather. Copies, flips
// and the uint8 ops with a word form (kRawVectors) keep their vectors as words and never unpack
// them; for 1- and 2-byte types their rare gathered chunks are stored as soon as loaded, so that
// they hold no registers. Stores are vectors whenever the output is written in walk order. Index math is 32-bit with multiply-shift division, specialised for
// plans of rank 1, 2 and 3 (contiguous images, flips, sliced views); work above 2^30 elements is
// launched in pieces. Plan and op are __grid_constant__: read from parameter memory, never
// copied per thread.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "core/cuda_check.hpp"
#include "core/tensor_views.hpp"
#include "cuda/launch.hpp"
#include "kernels/copy.hpp"
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

// N values loaded or stored by one instruction: aligned to their size (at most 16 bytes), so that a
// narrow input's pack (4 uint8 values of a uint8 -> float32 chunk) needs only its own alignment.
template <class T, int N>
struct alignas(N * sizeof(T) < 16 ? N * sizeof(T) : 16) Pack {
  T v[N];
};

template <std::size_t Alignment, class T>
__device__ SV_FORCE_INLINE bool aligned_to(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & (Alignment - 1)) == 0;
}

template <class T>
__device__ SV_FORCE_INLINE bool aligned16(const T* p) {
  return aligned_to<16>(p);
}

// Ops that work on raw 16-byte vectors, without per-element unpacking: copies (flips reverse the
// vector's elements) and uint8 ops with a word form, op.quad(w) = op applied to each byte of w
// (kernels/color.hpp: invert, posterize, solarize).
template <class Op, class In, class Out>
inline constexpr bool kHasQuad =
    sizeof(In) == 1 && std::is_same_v<In, Out> &&
    requires(const Op& op, std::uint32_t w) { { op.quad(w) } -> std::same_as<std::uint32_t>; };
template <class Op, class In, class Out>
inline constexpr bool kRawVectors = (std::is_same_v<Op, kernels::CopyOp> && std::is_same_v<In, Out>) || kHasQuad<Op, In, Out>;

// Index of flat element f along every dim of the plan (dims >= RANK are absent).
template <int RANK>
__device__ SV_FORCE_INLINE void decompose(const DevicePlan& p, std::uint32_t f, std::uint32_t (&idx)[RANK]) {
  std::uint32_t rest = f;
#pragma unroll
  for (int d = 0; d < RANK; ++d) {
    if (d + 1 < RANK && d + 1 < p.rank) {
      std::uint32_t q, r;
      p.size_div[d].divmod(rest, q, r);
      idx[d] = r;
      rest = q;
    } else if (d < p.rank) {
      idx[d] = rest;
      rest = 0;
    } else {
      idx[d] = 0;
    }
  }
}

template <int RANK>
__device__ SV_FORCE_INLINE std::int64_t offset_of(const std::uint32_t (&idx)[RANK], const std::int64_t* stride) {
  std::int64_t off = 0;
#pragma unroll
  for (int d = 0; d < RANK; ++d) off += static_cast<std::int64_t>(idx[d]) * stride[d];
  return off;
}

// Moves a multi-index one element forward in walk order, updating the offset.
template <int RANK>
__device__ SV_FORCE_INLINE void advance(const DevicePlan& p, std::uint32_t (&idx)[RANK], std::int64_t& off,
                                        const std::int64_t* stride) {
  off += stride[0];
  ++idx[0];
#pragma unroll
  for (int d = 0; d + 1 < RANK; ++d) {
    if (d + 1 < p.rank && idx[d] == p.size_div[d].divisor) {
      idx[d] = 0;
      off += stride[d + 1] - static_cast<std::int64_t>(p.size_div[d].divisor) * stride[d];
      ++idx[d + 1];
    }
  }
}

// The elements of a 16-byte vector in reverse order (element size 1, 2, 4 or 8 bytes).
template <int SIZE>
__device__ SV_FORCE_INLINE uint4 reverse_elements(uint4 v) {
  if constexpr (SIZE == 8) {
    return make_uint4(v.z, v.w, v.x, v.y);
  } else {
    // Reverse the words, then the elements inside each word.
    constexpr unsigned selector = SIZE == 1 ? 0x0123u : (SIZE == 2 ? 0x1032u : 0x3210u);
    return make_uint4(__byte_perm(v.w, 0, selector), __byte_perm(v.z, 0, selector), __byte_perm(v.y, 0, selector),
                      __byte_perm(v.x, 0, selector));
  }
}

// The op over one chunk's values x (loaded by the kernel below) and the store of the results:
// one vector where the output allows, else element by element through the plan.
template <int VEC, int RANK, class In, class Out, class Op>
__device__ SV_FORCE_INLINE void compute_and_store(Out* out, const DevicePlan& p, const Op& op, std::uint32_t first,
                                                  std::uint32_t count, std::int64_t out_off, bool one_row,
                                                  const In (&x)[VEC]) {
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
    // Elements left before the channel changes, in 32 bits: a piece holds at most 2^30
    // elements, so a distance above 2^31 never runs out inside it.
    const std::uint32_t period = static_cast<std::uint32_t>(min(p.channel_inner, std::uint64_t{1} << 31));
    std::uint32_t remaining = static_cast<std::uint32_t>(min(p.channel_inner - within, std::uint64_t{1} << 31));
    if (remaining >= VEC) {
      // The whole chunk in one channel (every chunk of an image whose planes hold a multiple of
      // VEC values): the op's per-channel parameters are read once, with no per-element test.
#pragma unroll
      for (int j = 0; j < VEC; ++j) y[j] = op(x[j], channel);
    } else {
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        y[j] = op(x[j], channel);
        if (--remaining == 0) {
          remaining = period;
          if (++channel == p.channels) channel = 0;
        }
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < VEC; ++j) y[j] = op(x[j], 0u);
  }

  Out* dst = out + out_off;
  if (count == VEC && p.out_vector) {
    dst = out + first;
  } else if (one_row && p.out_stride[0] == 1 && !aligned16(dst)) {
    // A row that starts off the 16-byte grid (a window of a larger image: erase's, a crop's):
    // the widest pieces its alignment allows rather than element by element.
    Pack<Out, VEC> v;
#pragma unroll
    for (int j = 0; j < VEC; ++j) v.v[j] = y[j];
    uint4 w;
    memcpy(&w, &v, sizeof w);
    const std::uint32_t words[4] = {w.x, w.y, w.z, w.w};
    const auto addr = reinterpret_cast<std::uintptr_t>(dst);
    if ((addr & 7u) == 0) {
      reinterpret_cast<uint2*>(dst)[0] = make_uint2(w.x, w.y);
      reinterpret_cast<uint2*>(dst)[1] = make_uint2(w.z, w.w);
      return;
    }
    if ((addr & 3u) == 0) {
#pragma unroll
      for (int k = 0; k < 4; ++k) reinterpret_cast<std::uint32_t*>(dst)[k] = words[k];
      return;
    }
    if ((addr & 1u) == 0) {
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        reinterpret_cast<unsigned short*>(dst)[k] = static_cast<unsigned short>(words[k / 2] >> (16 * (k % 2)));
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < VEC; ++j) dst[j] = y[j];
    return;
  } else if (!(one_row && p.out_stride[0] == 1)) {
    std::uint32_t idx[RANK];
    decompose<RANK>(p, first, idx);
    std::int64_t off = out_off;
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      if (j < count) {
        out[off] = y[j];
        if (j + 1 < count) advance<RANK>(p, idx, off, p.out_stride);
      }
    }
    return;
  }
  Pack<Out, VEC> pack;
#pragma unroll
  for (int j = 0; j < VEC; ++j) pack.v[j] = y[j];
  *reinterpret_cast<Pack<Out, VEC>*>(dst) = pack;
}

template <int VEC, int RANK, int CHUNKS, class In, class Out, class Op>
__global__ void __launch_bounds__(256)
    elementwise_kernel(const In* in, Out* out, const __grid_constant__ DevicePlan p, const __grid_constant__ Op op) {
  constexpr bool kRaw = kRawVectors<Op, In, Out>;
  // Narrow raw-vector ops finish a gathered chunk at once: kept until phase 2 beside the others,
  // its values would take a register each (64 for four uint8 chunks).
  constexpr bool kFinishGathered = kRaw && sizeof(In) <= 2;
  using InPack = Pack<In, VEC>;
  std::uint32_t first[CHUNKS], count[CHUNKS];
  std::int64_t out_off[CHUNKS];
  bool one_row[CHUNKS];
  bool raw[CHUNKS];
  uint4 words[CHUNKS];  // kRaw: the chunks that go out as one vector each, to out + out_off
  In x[CHUNKS][VEC];

  // Phase 1: locate and load every chunk; every vector load is issued before any vector store,
  // so a thread has CHUNKS loads in flight (kFinishGathered chunks are stored here).
#pragma unroll
  for (int u = 0; u < CHUNKS; ++u) {
    raw[u] = false;
    first[u] = ((blockIdx.x * CHUNKS + u) * 256u + threadIdx.x) * VEC;
    count[u] = first[u] < p.numel ? min(static_cast<std::uint32_t>(VEC), p.numel - first[u]) : 0u;
    if (count[u] == 0) continue;
    std::uint32_t idx[RANK];
    decompose<RANK>(p, first[u], idx);
    const std::int64_t in_off = offset_of<RANK>(idx, p.in_stride);
    out_off[u] = offset_of<RANK>(idx, p.out_stride);
    one_row[u] = count[u] == VEC && idx[0] + VEC <= p.size_div[0].divisor;
    const In* src = in + in_off;
    if constexpr (kRaw) {
      // The 16-byte vector as it is (reversed for a flip), no per-element work, stored as one
      // vector: at the flat index of a linear output, or in a row of a strided one (a channel
      // plane of permute_channels).
      if (one_row[u] && (p.in_stride[0] == 1 || p.in_stride[0] == -1)) {
        const bool forward = p.in_stride[0] == 1;
        const In* start = forward ? src : src - (VEC - 1);
        const std::int64_t dst = p.out_vector ? first[u] : out_off[u];
        if (aligned16(start) && (p.out_vector || (p.out_stride[0] == 1 && aligned16(out + dst)))) {
          words[u] = *reinterpret_cast<const uint4*>(start);
          if (!forward) words[u] = reverse_elements<sizeof(In)>(words[u]);
          out_off[u] = dst;
          raw[u] = true;
          continue;
        }
      }
    }
    if (one_row[u] && p.in_stride[0] == 1 && aligned_to<alignof(InPack)>(src)) {
      const InPack pack = *reinterpret_cast<const InPack*>(src);
#pragma unroll
      for (int j = 0; j < VEC; ++j) x[u][j] = pack.v[j];
    } else if (one_row[u] && p.in_stride[0] == -1 && aligned_to<alignof(InPack)>(src - (VEC - 1))) {
      const InPack pack = *reinterpret_cast<const InPack*>(src - (VEC - 1));
#pragma unroll
      for (int j = 0; j < VEC; ++j) x[u][j] = pack.v[VEC - 1 - j];
    } else if (one_row[u] && p.in_stride[0] == 0) {
      // A row of one value (a broadcast: erase's fill value, a constant's): one load.
      const In v = *src;
#pragma unroll
      for (int j = 0; j < VEC; ++j) x[u][j] = v;
    } else {
      std::int64_t off = in_off;
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        if (j < count[u]) {
          x[u][j] = in[off];
          if (j + 1 < count[u]) advance<RANK>(p, idx, off, p.in_stride);
        }
      }
    }
    if constexpr (kFinishGathered) {
      compute_and_store<VEC, RANK>(out, p, op, first[u], count[u], out_off[u], one_row[u], x[u]);
      count[u] = 0;
    }
  }

  // Phase 2: compute and store.
#pragma unroll
  for (int u = 0; u < CHUNKS; ++u) {
    if (count[u] == 0) continue;
    if constexpr (kRaw) {
      if (raw[u]) {
        uint4 v = words[u];
        if constexpr (kHasQuad<Op, In, Out>) v = make_uint4(op.quad(v.x), op.quad(v.y), op.quad(v.z), op.quad(v.w));
        *reinterpret_cast<uint4*>(out + out_off[u]) = v;
        continue;
      }
    }
    // (Finished gathered chunks have count 0 by now.)
    if constexpr (!kFinishGathered) {
      compute_and_store<VEC, RANK>(out, p, op, first[u], count[u], out_off[u], one_row[u], x[u]);
    }
  }
}

// The row path: plans of rank 1 or 2 whose output is linear and whose input rows run with
// stride +1 or -1 (a copy, a cast, a colour op, a horizontal or vertical flip of a contiguous
// image), each row a whole number of aligned chunks. A thread moves one chunk: one division
// for its row, one vector load, one vector store. The general kernel's per-chunk bookkeeping
// (64-bit offsets over kMaxRank dims, alignment and row tests) kept those ops at 81-93 % of the
// copy bandwidth; this shape runs them at 94-100 % (H200, 64x3x1080x1920, ms general -> row
// path: uint8 horizontal flip 0.217 -> 0.190, float32 0.873 -> 0.744, uint8 -> float32
// 0.570 -> 0.487, float32 invert 0.802 -> 0.748; compute-bound float32 adjust_gamma 1.481 -> 1.132).
struct RowsPlan {
  kernels::FastDivmod chunks_per_row;
  std::int64_t in_row_stride;  // elements from one row's first walked element to the next's
  std::uint32_t chunks;
};

template <int VEC, bool kReverse, class In, class Out, class Op>
__global__ void __launch_bounds__(256)
    elementwise_rows_kernel(const In* in, Out* out, const __grid_constant__ RowsPlan p, const __grid_constant__ Op op) {
  const std::uint32_t i = blockIdx.x * 256u + threadIdx.x;
  if (i >= p.chunks) return;
  std::uint32_t row, col;
  p.chunks_per_row.divmod(i, row, col);
  // The chunk's lowest input address: a reversed row walks down from its first element.
  const std::int64_t along = static_cast<std::int64_t>(col) * VEC;
  const In* src = in + static_cast<std::int64_t>(row) * p.in_row_stride + (kReverse ? -along - (VEC - 1) : along);
  Out* dst = out + static_cast<std::int64_t>(i) * VEC;
  if constexpr (kRawVectors<Op, In, Out>) {
    uint4 w = *reinterpret_cast<const uint4*>(src);
    if constexpr (kReverse) w = reverse_elements<sizeof(In)>(w);
    if constexpr (kHasQuad<Op, In, Out>) w = make_uint4(op.quad(w.x), op.quad(w.y), op.quad(w.z), op.quad(w.w));
    *reinterpret_cast<uint4*>(dst) = w;
  } else {
    const Pack<In, VEC> x = *reinterpret_cast<const Pack<In, VEC>*>(src);
    Pack<Out, VEC> y;
#pragma unroll
    for (int j = 0; j < VEC; ++j) y.v[j] = op(x.v[kReverse ? VEC - 1 - j : j], 0u);
    *reinterpret_cast<Pack<Out, VEC>*>(dst) = y;
  }
}

// Launches the row path for `piece` and returns true, or returns false where it does not apply.
template <int VEC, class In, class Out, class Op>
bool launch_rows(const kernels::ElementwisePlan& piece, const In* in_piece, Out* out_piece, const Op& op, cudaStream_t s) {
  if constexpr (Op::kUsesChannel) {
    return false;
  } else {
    // STREAMVISION_CUDA_NO_ROW_PATH: the general kernel for everything (an A/B switch for
    // benchmarks, and a way out should the row path ever be suspected).
    static const bool disabled = std::getenv("STREAMVISION_CUDA_NO_ROW_PATH") != nullptr;
    if (disabled || piece.rank > 2 || !piece.out_linear || (reinterpret_cast<std::uintptr_t>(out_piece) & 15u) != 0) return false;
    const std::int64_t step = piece.in_stride[0];
    if ((step != 1 && step != -1) || piece.size[0] % VEC != 0) return false;
    constexpr std::uintptr_t kAlign = alignof(Pack<In, VEC>);
    const std::int64_t row_stride = piece.rank == 2 ? piece.in_stride[1] : 0;
    const In* lowest = step == 1 ? in_piece : in_piece - (VEC - 1);
    if ((reinterpret_cast<std::uintptr_t>(lowest) & (kAlign - 1)) != 0 ||
        (static_cast<std::uint64_t>(row_stride) * sizeof(In)) % kAlign != 0) {
      return false;
    }
    RowsPlan p{};
    p.chunks_per_row = kernels::FastDivmod(static_cast<std::uint32_t>(piece.size[0] / VEC));
    p.in_row_stride = row_stride;
    p.chunks = static_cast<std::uint32_t>(piece.numel / VEC);
    const unsigned blocks = (p.chunks + 255u) / 256u;
    if (step == 1) {
      elementwise_rows_kernel<VEC, false, In, Out, Op><<<blocks, 256, 0, s>>>(in_piece, out_piece, p, op);
    } else {
      elementwise_rows_kernel<VEC, true, In, Out, Op><<<blocks, 256, 0, s>>>(in_piece, out_piece, p, op);
    }
    return true;
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

// Elements per chunk: 16 bytes of output. Stores are what must be coalesced per instruction;
// a wider input then reads several 16-byte vectors per chunk, which costs nothing.
template <class In, class Out>
constexpr int elementwise_vec() {
  return static_cast<int>(16 / sizeof(Out));
}

// Chunks in flight per thread: 64 bytes of output for 4- and 8-byte outputs, fewer for narrow
// ones, whose per-element register cost would otherwise lower occupancy (measured on the H200).
template <class Out>
constexpr int elementwise_chunks() {
  return sizeof(Out) >= 4 ? 4 : (sizeof(Out) == 2 ? 2 : 1);
}

// Narrow raw-vector ops (copies, uint8 word forms) keep a chunk in four registers, so they take
// four chunks where their input rows run forward (uint8 vertical flip 0.212 -> 0.196 ms,
// solarize 0.245 -> 0.196 ms on 64x3x1080x1920, H200), and the default where the vectors are
// reversed (horizontal flip: 0.210 ms with one chunk, 0.232 with four) or gathered.
template <class In, class Out, class Op>
inline constexpr bool kForwardChunks = kRawVectors<Op, In, Out> && sizeof(Out) <= 2;

// Launches `op` over `plan` on `stream`. No allocation, no synchronization. kAllRanks
// instantiates the rank-2 and rank-3 specialisations too (worth it for the few copy kernels
// that flips and layout changes use; other ops take the general kernel for those ranks).
template <bool kAllRanks = false, class In, class Out, class Op>
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
    const In* in_piece = in + in_off;
    const cudaStream_t s = scope.handle();
    if (launch_rows<VEC>(piece, in_piece, out_piece, op, s)) {
      scope.check_launch();
      return;
    }
    const auto launch = [&]<int CHUNKS>() {
      const std::uint64_t per_block = 256ull * CHUNKS * VEC;
      const unsigned blocks =
          static_cast<unsigned>((static_cast<std::uint64_t>(piece.numel) + per_block - 1) / per_block);
      if (piece.rank == 1) {
        elementwise_kernel<VEC, 1, CHUNKS, In, Out, Op><<<blocks, 256, 0, s>>>(in_piece, out_piece, d, op);
      } else if (kAllRanks && piece.rank == 2) {
        elementwise_kernel<VEC, 2, CHUNKS, In, Out, Op><<<blocks, 256, 0, s>>>(in_piece, out_piece, d, op);
      } else if (kAllRanks && piece.rank == 3) {
        elementwise_kernel<VEC, 3, CHUNKS, In, Out, Op><<<blocks, 256, 0, s>>>(in_piece, out_piece, d, op);
      } else {
        elementwise_kernel<VEC, kMaxRank, CHUNKS, In, Out, Op><<<blocks, 256, 0, s>>>(in_piece, out_piece, d, op);
      }
    };
    if constexpr (kForwardChunks<In, Out, Op>) {
      if (piece.in_stride[0] == 1) {
        launch.template operator()<4>();
      } else {
        launch.template operator()<elementwise_chunks<Out>()>();
      }
    } else {
      launch.template operator()<elementwise_chunks<Out>()>();
    }
    scope.check_launch();
  });
}

// The elementwise engine over same-dtype tensors (input and output may be the same tensor).
template <class T, class Op>
void launch_map(const Tensor& input, const Tensor& output, const Op& op, const Stream& stream, const char* name) {
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(detail::strided_view(input), detail::strided_view(output));
  launch_elementwise(plan, static_cast<const T*>(input.data()), static_cast<T*>(output.data()), op, stream, name);
}

// out = in element by element, any dtype (cuda/layout.cu).
void copy_view(const kernels::StridedView& in, const kernels::StridedView& out, const Stream& stream, const char* op);

}  // namespace streamvision::cuda
