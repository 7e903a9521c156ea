// Four consecutive uint8 columns of a row in one 32-bit register, for the resize filters' vertical
// loops. A loop that loads one byte per column and tap spends most of its instructions on 64-bit
// addresses and loop control (the SASS of batch.cu's tile_kernel: 7 instructions per tap and
// column plus ~80 per column for its index and address; ncu: the ALU pipe the limiter at 67.5%,
// bench/RESULTS.md, ninth session). One word per tap serves four columns.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/byte_word.hpp"
#include "streamvision/core/macros.hpp"

namespace streamvision::cuda {

// Columns [col, col + 4) of a row at `p` (p points at column col), byte k = column col + k, read as
// aligned words: one when p is 4-aligned, else the two words around it and a funnel shift. Reads
// bytes [col - 3, col + 7) at most: the caller's quad_inside test keeps them inside the row.
__device__ SV_FORCE_INLINE std::uint32_t load_quad(const unsigned char* p) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  const unsigned misalign = static_cast<unsigned>(addr) & 3u;
  const auto* word = reinterpret_cast<const std::uint32_t*>(addr - misalign);
  if (misalign == 0) return __ldg(word);
  return __funnelshift_r(__ldg(word), __ldg(word + 1), 8u * misalign);
}

// Successive rows' quads at one column, `stride` bytes apart: the loaders a tap loop calls once per
// row. When the stride is a multiple of 4 every row has the first row's alignment, so the aligned
// words and the shift are worked out once (QuadRowsAligned, QuadRowsShifted), not per row.
struct QuadRowsAligned {
  const std::uint32_t* word;
  std::int64_t step;  // words
  __device__ SV_FORCE_INLINE std::uint32_t operator()() {
    const std::uint32_t v = __ldg(word);
    word += step;
    return v;
  }
};

struct QuadRowsShifted {
  const std::uint32_t* word;
  std::int64_t step;  // words
  unsigned shift;     // bits, 8, 16 or 24
  __device__ SV_FORCE_INLINE std::uint32_t operator()() {
    const std::uint32_t v = __funnelshift_r(__ldg(word), __ldg(word + 1), shift);
    word += step;
    return v;
  }
};

struct QuadRowsAny {
  const unsigned char* p;
  std::int64_t stride;  // bytes
  __device__ SV_FORCE_INLINE std::uint32_t operator()() {
    const std::uint32_t v = load_quad(p);
    p += stride;
    return v;
  }
};

// Calls f with the loader that fits rows of `stride` bytes whose first quad is at p.
template <class F>
__device__ SV_FORCE_INLINE void with_quad_rows(const unsigned char* p, std::int64_t stride, F&& f) {
  if ((stride & 3) != 0) {
    f(QuadRowsAny{p, stride});
    return;
  }
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  const unsigned misalign = static_cast<unsigned>(addr) & 3u;
  const auto* word = reinterpret_cast<const std::uint32_t*>(addr - misalign);
  if (misalign == 0) {
    f(QuadRowsAligned{word, stride >> 2});
  } else {
    f(QuadRowsShifted{word, stride >> 2, 8u * misalign});
  }
}

// Whether load_quad may read the quad at column col (a multiple of 4) of a row of `width` bytes.
__device__ SV_FORCE_INLINE bool quad_inside(int col, int width) { return col >= 4 && col + 7 <= width; }

// Byte k of a quad as A, exactly. For float: kernels/byte_word.hpp's word_byte, one byte permute
// and one add (what the compiler makes of a byte load's conversion, without the shifts).
template <class A>
__device__ SV_FORCE_INLINE A quad_byte(std::uint32_t v, int k) {
  if constexpr (std::is_same_v<A, float>) {
    return kernels::word_byte(v, k);
  } else {
    return static_cast<A>((v >> (8 * k)) & 0xffu);
  }
}

// ---- fixed point: int16 weights two to a word, two bytes per DP2A ---------------------------------

// The int16 weights of a packed pair: tap 2p in the low half, 2p + 1 in the high half.
__device__ SV_FORCE_INLINE std::int32_t low_weight(unsigned pair) { return static_cast<std::int16_t>(pair & 0xFFFFu); }
__device__ SV_FORCE_INLINE std::int32_t high_weight(unsigned pair) { return static_cast<std::int32_t>(pair) >> 16; }

// acc + the two int16 weights of `pair` times the unsigned bytes 0, 1 (High: 2, 3) of `bytes`.
template <bool High>
__device__ SV_FORCE_INLINE std::int32_t dot2(unsigned pair, unsigned bytes, std::int32_t acc) {
  std::int32_t d;
  if constexpr (High) {
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(pair), "r"(bytes), "r"(acc));
  } else {
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(pair), "r"(bytes), "r"(acc));
  }
  return d;
}

// acc[k] + the pair's weights times byte k of two rows' quads v0 (tap 2p) and v1 (tap 2p + 1): the
// quads interleaved byte by byte (two PRMTs) so that each DP2A takes one column's two taps.
__device__ SV_FORCE_INLINE void dot2_quads(unsigned pair, std::uint32_t v0, std::uint32_t v1, std::int32_t (&acc)[4]) {
  const unsigned lo = __byte_perm(v0, v1, 0x5140u);  // v0.b0 v1.b0 v0.b1 v1.b1
  const unsigned hi = __byte_perm(v0, v1, 0x7362u);  // v0.b2 v1.b2 v0.b3 v1.b3
  acc[0] = dot2<false>(pair, lo, acc[0]);
  acc[1] = dot2<true>(pair, lo, acc[1]);
  acc[2] = dot2<false>(pair, hi, acc[2]);
  acc[3] = dot2<true>(pair, hi, acc[3]);
}

// One column's vertical filter in fixed point, a byte at a time: sum_j q_j * p[j * stride] in int32
// (exact, so it equals the quad paths' sums). For columns outside whole quads and strided images.
// pair_of(i) gives the packed int16 weights of taps 2i and 2i + 1 (from a table, or computed).
template <class PairOf>
__device__ SV_FORCE_INLINE std::int32_t fixed_column_sum(const unsigned char* p, std::int64_t stride, int taps, PairOf pair_of) {
  std::int32_t acc = 0;
  for (int j = 0; j < taps; ++j, p += stride) {
    const unsigned pair = pair_of(j >> 1);
    acc += static_cast<std::int32_t>(*p) * ((j & 1) ? high_weight(pair) : low_weight(pair));
  }
  return acc;
}

// The vertical filter of image columns [col, col + 4) of uint8 rows starting at `rows` (the first
// tap's row, `stride` bytes apart) in fixed point: sum_j q_j * byte_j in int32, exactly (|q_j| <
// 2^15, bytes < 2^8, a few dozen taps), so any order of the taps gives the same sums. `pairs`
// holds the taps' int16 weights two a word (0 past the last tap). One word per tap serves four
// columns where the quad lies inside the row; columns outside the row give 0.
__device__ SV_FORCE_INLINE void vertical_quad_fixed(const unsigned char* rows, std::int64_t stride, int col, int width,
                                                    const unsigned* pairs, int taps, std::int32_t (&acc)[4]) {
#pragma unroll
  for (int k = 0; k < 4; ++k) acc[k] = 0;
  if (quad_inside(col, width)) {
    with_quad_rows(rows + col, stride, [&](auto next_row) {
      const unsigned* w = pairs;
#pragma unroll 2
      for (int p = taps >> 1; p > 0; --p) {
        const std::uint32_t v0 = next_row();
        const std::uint32_t v1 = next_row();
        dot2_quads(*w++, v0, v1, acc);
      }
      if (taps & 1) dot2_quads(*w, next_row(), 0u, acc);  // the last pair's high weight is 0
    });
    return;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (col + k >= 0 && col + k < width) acc[k] = fixed_column_sum(rows + col + k, stride, taps, [&](int i) { return pairs[i]; });
  }
}

}  // namespace streamvision::cuda
