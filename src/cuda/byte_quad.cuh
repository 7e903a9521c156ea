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

}  // namespace streamvision::cuda
