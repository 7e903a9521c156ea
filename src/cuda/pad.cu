// CUDA engine of pad (and crop: a pad with negative paddings; kernels/pad_plan.hpp).
//
// The dense output is cut into 16-byte chunks (VEC elements); chunk u of a thread starts at
// ((block * kChunks + u) * 256 + thread) * VEC, so each load and store instruction of a warp covers
// one contiguous span.
//
// Memory-level parallelism: an H200 SM needs ~25 KB in flight to reach copy bandwidth. A thread
// therefore locates and loads all its kChunks = 4 chunks before it stores any (64 bytes in flight
// per thread), and __launch_bounds__(256, 4) keeps registers at 64 for 4 blocks per SM:
// 1024 threads x 64 bytes = 64 KB or more. One chunk per thread would cap it at
// 2048 x 16 = 32 KB, and much less in practice since most threads are busy with index math
// rather than waiting.
//
// Instructions: fast chunks lie in one output row and either (a) inside the image columns of a
// source row: one aligned 16-byte load when the source is aligned, else the two aligned 16-byte
// blocks around it, both inside the source row (never past its ends, even for views at the very
// start or end of an allocation), funnel-shifted into place; or (b) in a Constant border row
// with one fill value for the whole chunk: a splat. Per 16 bytes that is one row divmod, pad_row
// (two divmods, three 64-bit multiply-adds), the interior tests, at most two loads, 15
// select/funnel instructions and one store: ~110-150 instructions in SASS, whatever the element
// size, against an issue budget of ~250 per 16 bytes at the copy bandwidth (132 SMs x 4 warp
// instructions per clock at ~2 GHz, 32 bytes moved per 16-byte chunk). The data stays in uint4
// registers and plan and fill are __grid_constant__: no local memory.
//
// The other chunks (touching a left/right border, a row end when the row's byte length is not a
// multiple of 16, or a source row end for an unaligned source: one or two per row) map element
// by element before the fast stores (their loads overlap the fast loads in flight), by the whole
// warp at once: 32 / VEC chunks per pass, one element per lane, so a warp owing one such chunk
// (most warps, for uint8 pads) pays ~one element mapping (~60 instructions), not VEC of them in a
// row. Index math is 32-bit multiply-shift division; outputs above 2^30 elements are launched in
// pieces of whole rows.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/launch.hpp"
#include "core/tensor_views.hpp"
#include "kernels/pad_plan.hpp"
#include "streamvision/functional/pad.hpp"

namespace streamvision::cuda {

namespace {

constexpr int kChunks = 4;  // 16-byte chunks per thread, all loaded before any is stored

template <class T, int Capacity>
struct PadFill {
  T value[Capacity];
  int count;
  __device__ SV_FORCE_INLINE T of(std::int64_t channel) const { return value[count == 1 ? 0 : channel]; }
};

struct PadPiece {
  std::int64_t first_row = 0;
  std::uint32_t elements = 0;
};

template <class T>
union Chunk {
  T v[16 / sizeof(T)];
  uint4 bits;
};

template <class T, bool RoundTrip>
__device__ SV_FORCE_INLINE T load_element(const T* in, std::int64_t offset) {
  if constexpr (RoundTrip) {
    return kernels::float32_round_trip(in[offset]);
  } else {
    return in[offset];
  }
}

__device__ SV_FORCE_INLINE bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// Bytes [shift, shift + 16) of the 32 bytes a:b (0 < shift < 16): words q..q+4 (q = shift / 4)
// by two selects on the bits of q (a dynamically indexed array would go through local memory),
// then a funnel shift by the remaining bytes.
__device__ SV_FORCE_INLINE uint4 funnel16(const uint4& a, const uint4& b, unsigned shift) {
  const bool two = (shift & 8u) != 0, one = (shift & 4u) != 0;
  const unsigned t0 = two ? a.z : a.x, t1 = two ? a.w : a.y, t2 = two ? b.x : a.z, t3 = two ? b.y : a.w,
                 t4 = two ? b.z : b.x, t5 = two ? b.w : b.y;
  const unsigned s0 = one ? t1 : t0, s1 = one ? t2 : t1, s2 = one ? t3 : t2, s3 = one ? t4 : t3, s4 = one ? t5 : t4;
  const unsigned r = (shift & 3u) * 8u;
  return make_uint4(__funnelshift_r(s0, s1, r), __funnelshift_r(s1, s2, r), __funnelshift_r(s2, s3, r),
                    __funnelshift_r(s3, s4, r));
}

template <class T, bool RoundTrip, int Capacity>
__device__ SV_FORCE_INLINE T pad_value(const T* in, const kernels::PadPlan& p, const PadFill<T, Capacity>& fill,
                                       const kernels::PadRow& r, std::int64_t e) {
  std::int64_t channel = 0;
  const std::int64_t off = kernels::pad_element(p, r, e, channel);
  return off < 0 ? fill.of(channel) : load_element<T, RoundTrip>(in, off);
}

template <class T, bool RoundTrip, int Capacity>
__global__ void __launch_bounds__(256, 4)
    pad_kernel(const T* __restrict__ in, T* __restrict__ out, const __grid_constant__ kernels::PadPlan p,
               const kernels::FastDivmod row_len, const PadPiece piece, const __grid_constant__ PadFill<T, Capacity> fill) {
  constexpr int VEC = 16 / sizeof(T);
  const std::uint32_t len = row_len.divisor;
  const std::int64_t g = p.group();
  const std::int64_t interior_begin = p.interior_begin(), interior_end = p.interior_end();
  T* const piece_out = out + piece.first_row * len;
  uint4 block_lo[kChunks], block_hi[kChunks];
  unsigned shift[kChunks];
  unsigned fast = 0, slow = 0;  // bit u: chunk u is fast / element by element

  // Phase 1: locate every chunk and issue the loads of the fast ones.
#pragma unroll
  for (int u = 0; u < kChunks; ++u) {
    const std::uint32_t f0 = ((blockIdx.x * kChunks + u) * 256u + threadIdx.x) * VEC;
    if (f0 >= piece.elements) continue;
    std::uint32_t row, e0;
    row_len.divmod(f0, row, e0);
    if (f0 + VEC > piece.elements || e0 + VEC > len || !aligned16(piece_out + f0)) {
      slow |= 1u << u;
      continue;
    }
    const kernels::PadRow r = kernels::pad_row(p, piece.first_row + row);
    if (r.source < 0 && (!p.interleaved || fill.count == 1)) {  // one fill value for the whole chunk
      Chunk<T> splat;
#pragma unroll
      for (int k = 0; k < VEC; ++k) splat.v[k] = fill.of(r.channel);
      block_lo[u] = splat.bits;
      shift[u] = 0;
      fast |= 1u << u;
      continue;
    }
    if (r.source < 0 || !p.contiguous_runs || e0 < interior_begin || e0 + VEC > interior_end) {
      slow |= 1u << u;
      continue;
    }
    const T* run = in + r.source;                // the source row's first element
    const T* src = run + (e0 - p.pad_left * g);  // VEC consecutive elements
    const unsigned s = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(src) & 15u);
    // The aligned blocks around src, derived from `in` so that the loads stay global (LDG).
    const uint4* blocks = reinterpret_cast<const uint4*>(reinterpret_cast<const char*>(src) - s);
    if (s == 0) {
      block_lo[u] = blocks[0];
    } else if (s % sizeof(T) == 0 && reinterpret_cast<const char*>(blocks) >= reinterpret_cast<const char*>(run) &&
               reinterpret_cast<const char*>(blocks + 2) <= reinterpret_cast<const char*>(run + p.in_w * g)) {
      block_lo[u] = blocks[0];
      block_hi[u] = blocks[1];
    } else {
      slow |= 1u << u;  // an unaligned source at its row's ends, or misaligned elements
      continue;
    }
    shift[u] = s;
    fast |= 1u << u;
  }

  // Phase 2: the other chunks (rare: borders and row ends), element by element by the whole
  // warp, while the fast chunks' loads are still in flight (after the fast stores, their loads
  // would cost each warp another memory round trip). Each pass takes up to 32 / VEC of the
  // chunks its threads still owe, one element per lane. A thread mapping its own chunk would
  // take VEC serial element mappings while the rest of its warp waits.
  constexpr unsigned kPerPass = 32 / VEC;
  const unsigned lane = threadIdx.x % 32u;
  for (;;) {
    const unsigned owing = __ballot_sync(0xffffffffu, slow != 0);
    if (owing == 0) break;
    const std::uint32_t next_chunk =
        slow != 0 ? ((blockIdx.x * kChunks + (__ffs(slow) - 1)) * 256u + threadIdx.x) * VEC : 0;
    // This lane maps element lane % VEC of the chunk of the (lane / VEC)-th owing thread.
    unsigned from = owing;
#pragma unroll
    for (unsigned j = 0; j + 1 < kPerPass; ++j) {
      if (j < lane / VEC) from &= from - 1;
    }
    const std::uint32_t f0 = __shfl_sync(0xffffffffu, next_chunk, from != 0 ? __ffs(from) - 1 : 0);
    const std::uint32_t f = f0 + lane % VEC;
    if (from != 0 && f < piece.elements) {
      std::uint32_t row, e;
      row_len.divmod(f, row, e);
      piece_out[f] = pad_value<T, RoundTrip>(in, p, fill, kernels::pad_row(p, piece.first_row + row), e);
    }
    if (slow != 0 && __popc(owing & ((1u << lane) - 1u)) < kPerPass) slow &= slow - 1;  // taken this pass
  }

  // Phase 3: store the fast chunks.
#pragma unroll
  for (int u = 0; u < kChunks; ++u) {
    if (((fast >> u) & 1u) == 0) continue;
    Chunk<T> chunk;
    chunk.bits = shift[u] == 0 ? block_lo[u] : funnel16(block_lo[u], block_hi[u], shift[u]);
    if constexpr (RoundTrip) {
#pragma unroll
      for (int k = 0; k < VEC; ++k) chunk.v[k] = kernels::float32_round_trip(chunk.v[k]);
    }
    const std::uint32_t f0 = ((blockIdx.x * kChunks + u) * 256u + threadIdx.x) * VEC;
    *reinterpret_cast<uint4*>(piece_out + f0) = chunk.bits;
  }
}

template <class T, bool RoundTrip, int Capacity>
void launch_pad(const Tensor& input, const Tensor& output, const kernels::PadPlan& plan,
                const std::vector<std::uint64_t>& fill_bits, const Stream& stream, const char* op) {
  PadFill<T, Capacity> fill{};
  fill.count = static_cast<int>(fill_bits.size());
  for (std::size_t i = 0; i < fill_bits.size() && i < Capacity; ++i) std::memcpy(&fill.value[i], &fill_bits[i], sizeof(T));
  constexpr int VEC = 16 / sizeof(T);
  const std::int64_t len = plan.row_length(), rows = plan.rows();
  if (len == 0 || rows == 0) return;
  // Pieces of whole rows, a multiple of 16 rows (so each piece starts 16-byte aligned), < 2^30 elements.
  std::int64_t rows_per_piece = std::max<std::int64_t>(16, ((std::int64_t{1} << 30) / len) / 16 * 16);
  if (rows_per_piece * len >= (std::int64_t{1} << 31) - VEC) rows_per_piece = std::max<std::int64_t>(1, ((std::int64_t{1} << 30) / len));
  const kernels::FastDivmod row_len(static_cast<std::uint32_t>(len));
  LaunchScope scope(stream, op);
  for (std::int64_t first = 0; first < rows; first += rows_per_piece) {
    PadPiece piece;
    piece.first_row = first;
    piece.elements = static_cast<std::uint32_t>(std::min(rows_per_piece, rows - first) * len);
    const std::uint64_t chunks = (piece.elements + VEC - 1) / VEC;
    const unsigned blocks = static_cast<unsigned>((chunks + 256 * kChunks - 1) / (256 * kChunks));
    pad_kernel<T, RoundTrip, Capacity><<<blocks, 256, 0, scope.handle()>>>(
        static_cast<const T*>(input.data()), static_cast<T*>(output.data()), plan, row_len, piece, fill);
    scope.check_launch();
  }
}

void pad(const Tensor& input, const Tensor& output, std::int64_t pad_left, std::int64_t pad_top, PaddingMode mode,
         const std::vector<double>& fill, const Stream& stream) {
  constexpr const char* op = "pad";
  const kernels::PadPlan plan =
      kernels::make_pad_plan(detail::image_batch(input), detail::image_batch(output), pad_left, pad_top, mode);
  const std::vector<std::uint64_t> bits = kernels::pad_fill_bits(input.dtype(), fill);
  kernels::dispatch_pad(input.dtype(), mode, [&](auto tag, auto round_trip) {
    using T = typename decltype(tag)::type;
    constexpr bool kRoundTrip = decltype(round_trip)::value;
    if constexpr (kRoundTrip) {
      launch_pad<T, true, 1>(input, output, plan, {0}, stream, op);  // edge/reflect: no fill
    } else if (bits.size() <= 1) {
      launch_pad<T, false, 1>(input, output, plan, bits, stream, op);
    } else {
      launch_pad<T, false, static_cast<int>(kernels::kMaxFillValues)>(input, output, plan, bits, stream, op);
    }
  });
}

SV_REGISTER_KERNEL(ops::Pad, DeviceType::CUDA, &pad, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
