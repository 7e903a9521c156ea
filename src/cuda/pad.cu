// CUDA engine of pad and crop (kernels/pad_plan.hpp).
//
// The dense output is cut into 16-byte chunks (VEC elements); chunk u of a thread starts at
// ((block * kChunks + u) * 256 + thread) * VEC, so each load and store instruction of a warp covers
// one contiguous span.
//
// Memory-level parallelism: an H200 SM needs ~25 KB in flight to reach copy bandwidth. A thread
// therefore locates and loads all its kChunks = 4 chunks before it stores any (64 bytes in flight
// per thread), and __launch_bounds__(256, 3) keeps registers low enough for at least 3 blocks
// per SM: 768 threads x 64 bytes = 48 KB or more. One chunk per thread would cap it at
// 2048 x 16 = 32 KB, and much less in practice since most threads are busy with index math
// rather than waiting.
//
// Windows: every chunk whose bytes a few aligned loads can supply is assembled in registers.
// Its row (or, for a chunk straddling a row end, each of its two rows) is seen as the source row
// extended by its borders, and the chunk as 16 bytes of two consecutive aligned 16-byte blocks of
// that virtual row, funnel-shifted into place. A block is (a) loaded, only when it lies inside
// the source row (never past its ends, even for views at the very start or end of an
// allocation); (b) a splat of the fill, when it lies wholly in a Constant border (or the whole
// row does); or (c) a mirror block, the block just before or after the row in an Edge, Reflect
// or Symmetric border: made from the row's first or last two aligned blocks by an element splat
// or reversal (and a one-element funnel shift for Reflect): enough for paddings of up to one
// block (16 bytes, so 4-pixel pads of uint8 and float32 alike). Straddling chunks (rows whose byte length is not a
// multiple of 16: 1928-byte padded rows, 1800-byte crops) merge their two windows by a byte
// mask. All loads of a thread's chunks are issued before the first store, so border and
// straddling chunks keep the memory-level parallelism of the others.
//
// Instructions, per 16 bytes: one row divmod, pad_row (two divmods, three 64-bit multiply-adds),
// the window's block tests, at most two loads, the funnel (15 select/shift instructions) and one
// store: ~130 in SASS whatever the element size, against an issue budget of ~250 per 16 bytes at
// the copy bandwidth (132 SMs x 4 warp instructions per clock at ~2 GHz, 32 bytes moved per
// 16-byte chunk). A border or straddling chunk adds a second pad_row and window, the mirror
// block and the merge (~80 more), paid by its warp once, as divergent work: with 4 pixels of
// padding on uint8 rows, about one warp instruction span in two holds one. The data stays in
// uint4 registers (no dynamically indexed arrays, no conditional between two uint4 lvalues) and
// plan and fill are __grid_constant__: no local memory. A thread keeps registers for one
// straddling chunk: its chunks lie 4096 bytes apart, so it owns a second one only when a
// multiple of 4096 bytes falls within 16 bytes of a multiple of the row length.
//
// The other chunks (element-misaligned or strided sources, an unaligned source row at a border,
// paddings beyond one block in the mirrored modes, channels_last mirrors or per-channel fills,
// a thread's second straddling chunk, rows shorter than a chunk, the last partial chunk) map
// element by element after the window stores, by the whole warp at once: 32 / VEC chunks per
// pass, one element per lane (~60 instructions per pass and a dependent load). Index math is
// 32-bit multiply-shift division; outputs above 2^30 elements are launched in pieces of whole rows.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/launch.hpp"
#include "functional/geometry_utils.hpp"
#include "kernels/pad_plan.hpp"
#include "streamvision/functional/crop.hpp"
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

template <class T>
__device__ SV_FORCE_INLINE uint4 splat16(T value) {
  Chunk<T> c;
#pragma unroll
  for (int k = 0; k < 16 / static_cast<int>(sizeof(T)); ++k) c.v[k] = value;
  return c.bits;
}

// a when pick, else b, by value: a conditional between two uint4 lvalues selects their
// addresses, which keeps arrays of them out of registers.
__device__ SV_FORCE_INLINE uint4 select16(bool pick, const uint4& a, const uint4& b) {
  return make_uint4(pick ? a.x : b.x, pick ? a.y : b.y, pick ? a.z : b.z, pick ? a.w : b.w);
}

// The elements of v in reverse order.
template <class T>
__device__ SV_FORCE_INLINE uint4 reverse16(const uint4& v) {
  if constexpr (sizeof(T) == 8) {
    return make_uint4(v.z, v.w, v.x, v.y);
  } else if constexpr (sizeof(T) == 4) {
    return make_uint4(v.w, v.z, v.y, v.x);
  } else {
    constexpr unsigned kSelect = sizeof(T) == 2 ? 0x1032u : 0x0123u;
    return make_uint4(__byte_perm(v.w, 0, kSelect), __byte_perm(v.z, 0, kSelect), __byte_perm(v.y, 0, kSelect),
                      __byte_perm(v.x, 0, kSelect));
  }
}

// A chunk's 16 bytes come from a window: bytes [shift, shift + 16) of two consecutive aligned
// 16-byte blocks of its source row extended by its borders (the row's elements are virtual
// positions 0 .. in_w * G - 1). The blocks are held in registers x and y, except a mirror block
// (the block just before or after the row, in a non-Constant border), synthesized in phase 2
// from x and y. A window's code: bits 0-3 the shift, then the flags below; without kMirrored its
// blocks are x, y.
constexpr unsigned kMirrored = 1u << 4;      // one of its blocks is a mirror block
constexpr unsigned kRightMirror = 1u << 5;   // the mirror block is the one after the row
constexpr unsigned kFirstMirror = 1u << 6;   // the first block is the mirror block, else y or x:
constexpr unsigned kFirstInY = 1u << 7;      // the first block is y
constexpr unsigned kSecondMirror = 1u << 8;  // the second block is the mirror block, else x

__device__ SV_FORCE_INLINE uint4 load_block(const char* in, std::int64_t offset) {
  return __ldg(reinterpret_cast<const uint4*>(in + offset));
}

// The block of positions [-VEC, 0) (left, from x = the row's block 0 and y = its block 1) or
// [in_w, in_w + VEC) (right, from x = the row's second-to-last block, y = its last block). Only
// Reflect101 reads two blocks; for Edge and Symmetric, x and y both hold the row's end block.
template <class T>
__device__ SV_FORCE_INLINE uint4 mirror_block(kernels::Border border, bool right, const uint4& x, const uint4& y) {
  constexpr unsigned kSize = sizeof(T);
  switch (border) {
    case kernels::Border::Replicate: {
      Chunk<T> c;
      c.bits = select16(right, y, x);
      return splat16<T>(right ? c.v[16 / kSize - 1] : c.v[0]);
    }
    case kernels::Border::Reflect:  // position -1 - j reads column j, in_w + j reads in_w - 1 - j
      return reverse16<T>(select16(right, y, x));
    default:  // Reflect101: position -1 - j reads column j + 1, in_w + j reads in_w - 2 - j
      return reverse16<T>(funnel16(x, y, right ? 16 - kSize : kSize));
  }
}

template <class T>
__device__ SV_FORCE_INLINE uint4 window_bits(kernels::Border border, const uint4& x, const uint4& y, unsigned code) {
  const unsigned shift = code & 15u;
  uint4 first = x, second = y;
  if ((code & kMirrored) != 0) {
    const uint4 mirror = mirror_block<T>(border, (code & kRightMirror) != 0, x, y);
    first = select16((code & kFirstMirror) != 0, mirror, select16((code & kFirstInY) != 0, y, x));
    second = select16((code & kSecondMirror) != 0, mirror, x);
  }
  return shift == 0 ? first : funnel16(first, second, shift);
}

// Locates the window of output bytes [need_lo, need_hi) of a chunk whose byte 0 is element
// `position` (virtual, see above) of row r, and issues its loads: false when a block it needs is
// neither inside the source row, a Constant border block with one fill value, nor the mirror
// block at an aligned end of a planar row of at least 16 bytes (Reflect101: 32), which the
// element-by-element path then maps. A load is only ever issued for a block inside the row.
template <class T, int Capacity>
__device__ SV_FORCE_INLINE bool locate_window(const T* in, const kernels::PadPlan& p, const PadFill<T, Capacity>& fill,
                                              const kernels::PadRow& r, std::int64_t position, unsigned need_lo,
                                              unsigned need_hi, uint4& x, uint4& y, unsigned& code) {
  constexpr std::int64_t kSize = sizeof(T);
  const bool one_fill = !p.interleaved || fill.count == 1;
  if (r.source < 0) {  // a Constant border row
    if (!one_fill) return false;
    x = y = splat16<T>(fill.of(r.channel));
    code = 0;
    return true;
  }
  if (!p.contiguous_runs) return false;
  const char* base = reinterpret_cast<const char*>(in);
  // Byte offsets from `in`: the source row [run, end) and the window's first block a.
  const std::int64_t run = r.source * kSize, end = run + p.in_w * p.group() * kSize;
  const std::int64_t src = run + position * kSize;
  const unsigned shift = static_cast<unsigned>((reinterpret_cast<std::uintptr_t>(base) + src) & 15u);
  if (shift % kSize != 0) return false;
  const std::int64_t a = src - shift;
  const bool need_a = shift + need_lo < 16, need_b = shift != 0 && shift + need_hi > 16;
  const auto inside = [&](std::int64_t b) { return b >= run && b + 16 <= end; };
  const auto fill_block = [&](std::int64_t b) {
    return p.border == kernels::Border::Constant && one_fill && (b + 16 <= run || b >= end);
  };
  if ((!need_a || inside(a) || fill_block(a)) && (!need_b || inside(a + 16) || fill_block(a + 16))) {
    const uint4 outside = splat16<T>(fill.of(r.channel));  // also stands in for a block not needed
    x = need_a && inside(a) ? load_block(base, a) : outside;
    y = need_b && inside(a + 16) ? load_block(base, a + 16) : outside;
    code = shift;
    return true;
  }
  if (p.border == kernels::Border::Constant || p.interleaved) return false;  // pixels mirror as a whole
  // A mirror block: the window's other needed block, if any, is the row block next to it.
  const std::int64_t first = need_a ? a : a + 16, last = need_b ? a + 16 : a;
  const std::int64_t mirrored = p.border == kernels::Border::Reflect101 ? 32 : 16;  // row bytes a mirror reads
  if (first + 16 == run) {
    if (run + mirrored > end) return false;
    x = load_block(base, run);
    y = p.border == kernels::Border::Reflect101 ? load_block(base, run + 16) : x;
    code = shift | kMirrored | (a == first ? kFirstMirror : 0u) | (a + 16 == run ? 0u : kSecondMirror);
    return true;
  }
  if (last == end) {
    if (end - mirrored < run) return false;
    y = load_block(base, end - 16);
    x = p.border == kernels::Border::Reflect101 ? load_block(base, end - 32) : y;
    code = shift | kMirrored | kRightMirror | (a == end ? kFirstMirror : kFirstInY) | kSecondMirror;
    return true;
  }
  return false;
}

// Bytes [0, split) of a, the rest of b.
__device__ SV_FORCE_INLINE uint4 merge16(const uint4& a, const uint4& b, unsigned split) {
  const auto word = [split](unsigned lo, unsigned hi, unsigned j) {
    const int n = min(max(static_cast<int>(split) - 4 * static_cast<int>(j), 0), 4);
    const unsigned mask = n == 4 ? ~0u : (1u << (8 * n)) - 1u;
    return (lo & mask) | (hi & ~mask);
  };
  return make_uint4(word(a.x, b.x, 0), word(a.y, b.y, 1), word(a.z, b.z, 2), word(a.w, b.w, 3));
}

template <class T, bool RoundTrip, int Capacity>
__device__ SV_FORCE_INLINE T pad_value(const T* in, const kernels::PadPlan& p, const PadFill<T, Capacity>& fill,
                                       const kernels::PadRow& r, std::int64_t e) {
  std::int64_t channel = 0;
  const std::int64_t off = kernels::pad_element(p, r, e, channel);
  return off < 0 ? fill.of(channel) : load_element<T, RoundTrip>(in, off);
}

template <class T, bool RoundTrip, int Capacity>
__global__ void __launch_bounds__(256, 3)
    pad_kernel(const T* __restrict__ in, T* __restrict__ out, const __grid_constant__ kernels::PadPlan p,
               const kernels::FastDivmod row_len, const PadPiece piece, const __grid_constant__ PadFill<T, Capacity> fill) {
  constexpr int VEC = 16 / sizeof(T);
  const std::uint32_t len = row_len.divisor;
  const std::int64_t left = p.pad_left * p.group();  // output element e of a row is virtual position e - left
  T* const piece_out = out + piece.first_row * len;
  uint4 x[kChunks], y[kChunks];  // chunk u's window blocks, set when locate_window succeeds
  unsigned code[kChunks] = {};
  // The one chunk of this thread that straddles two rows and is mapped by windows: bytes
  // [0, split) from its window in row `row`, the rest from window (x2, y2, code2) in row + 1.
  int straddler = -1;
  uint4 x2, y2;
  unsigned code2 = 0, split = 0;
  unsigned fast = 0, slow = 0;  // bit u: chunk u is mapped by windows / element by element

  // Phase 1: locate every chunk and issue its loads.
#pragma unroll
  for (int u = 0; u < kChunks; ++u) {
    const std::uint32_t f0 = ((blockIdx.x * kChunks + u) * 256u + threadIdx.x) * VEC;
    if (f0 >= piece.elements) continue;
    std::uint32_t row, e0;
    row_len.divmod(f0, row, e0);
    const std::uint32_t in_row = min(len - e0, static_cast<std::uint32_t>(VEC));  // elements in row `row`
    bool ok = f0 + VEC <= piece.elements && aligned16(piece_out + f0) &&
              locate_window(in, p, fill, kernels::pad_row(p, piece.first_row + row), e0 - left, 0,
                            in_row * sizeof(T), x[u], y[u], code[u]);
    if (ok && in_row < VEC) {  // the rest of the chunk starts row + 1, and lies within it
      ok = straddler < 0 && VEC - in_row <= len &&
           locate_window(in, p, fill, kernels::pad_row(p, piece.first_row + row + 1),
                         -static_cast<std::int64_t>(in_row) - left, in_row * sizeof(T), 16, x2, y2, code2);
      if (ok) {
        straddler = u;
        split = in_row * sizeof(T);
      }
    }
    if (ok) {
      fast |= 1u << u;
    } else {
      slow |= 1u << u;
    }
  }

  // Phase 2: assemble and store the window-mapped chunks.
#pragma unroll
  for (int u = 0; u < kChunks; ++u) {
    if (((fast >> u) & 1u) == 0) continue;
    Chunk<T> chunk;
    chunk.bits = window_bits<T>(p.border, x[u], y[u], code[u]);
    if (u == straddler) chunk.bits = merge16(chunk.bits, window_bits<T>(p.border, x2, y2, code2), split);
    if constexpr (RoundTrip) {
#pragma unroll
      for (int k = 0; k < VEC; ++k) chunk.v[k] = kernels::float32_round_trip(chunk.v[k]);
    }
    const std::uint32_t f0 = ((blockIdx.x * kChunks + u) * 256u + threadIdx.x) * VEC;
    *reinterpret_cast<uint4*>(piece_out + f0) = chunk.bits;
  }

  // Phase 3: the other chunks (rare, see the top), element by element by the whole warp: each
  // pass takes up to 32 / VEC of the chunks its threads still owe, one element per lane. A
  // thread mapping its own chunk would take VEC serial element mappings while the rest of its
  // warp waits. The full-mask ballot and shuffle need all 32 lanes here, in step: blocks are
  // whole warps, no thread returns early, and `owing`, which ends the loop, is warp-uniform.
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

void run_pad(const Tensor& input, const Tensor& output, std::int64_t pad_left, std::int64_t pad_top, PaddingMode mode,
             const std::vector<double>& fill, const Stream& stream, const char* op) {
  const kernels::PadPlan plan =
      kernels::make_pad_plan(detail::image_batch(input), detail::image_batch(output), pad_left, pad_top,
                             kernels::border_of(mode), detail::is_interleaved(output));
  const std::vector<std::uint64_t> bits = kernels::pad_fill_bits(input.dtype(), fill);
  kernels::dispatch_pad(input.dtype(), mode, [&](auto tag, auto round_trip) {
    using T = typename decltype(tag)::type;
    constexpr bool kRoundTrip = decltype(round_trip)::value;
    if constexpr (kRoundTrip) {
      launch_pad<T, true, 1>(input, output, plan, {0}, stream, op);  // edge/reflect: no fill
    } else if (bits.size() <= 1) {
      launch_pad<T, false, 1>(input, output, plan, bits, stream, op);
    } else {
      launch_pad<T, false, static_cast<int>(detail::kMaxFillValues)>(input, output, plan, bits, stream, op);
    }
  });
}

void pad(const Tensor& input, const Tensor& output, std::int64_t pad_left, std::int64_t pad_top, PaddingMode mode,
         const std::vector<double>& fill, const Stream& stream) {
  run_pad(input, output, pad_left, pad_top, mode, fill, stream, "pad");
}

void crop(const Tensor& input, const Tensor& output, std::int64_t top, std::int64_t left, const Stream& stream) {
  run_pad(input, output, -left, -top, PaddingMode::Constant, {0.0}, stream, "crop");
}

SV_REGISTER_KERNEL(ops::Pad, DeviceType::CUDA, &pad, DTypeSet::all());
SV_REGISTER_KERNEL(ops::Crop, DeviceType::CUDA, &crop, DTypeSet::all());

}  // namespace

}  // namespace streamvision::cuda
