// uint8 images whose channel planes are dense byte runs (rows of unit stride, no padding): the
// per-plane minimum and maximum, adjust_contrast's sums of grayscale values, and a 256-entry table
// per plane, 16 bytes a thread at a time.
//
// The per-pixel engine (pixels.cuh) unpacks every byte into its own register and converts it
// before it compares or looks up; for uint8 autocontrast that made both passes bound by integer
// instructions, not memory (ncu on the H200, bench/RESULTS.md ninth session: min/max pass ALU
// pipe 82.9%, table pass 78.3%, DRAM 30-40%). Here a 16-byte word is compared as 16-bit lanes
// (fold_minmax_word) and looked up with one byte permute and one shared-memory load per byte,
// three permutes packing four results (lookup_word).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/launch.hpp"
#include "cuda/pixels.cuh"
#include "kernels/byte_word.hpp"
#include "kernels/color.hpp"
#include "kernels/image_batch.hpp"
#include "kernels/reduce.hpp"
#include "streamvision/core/macros.hpp"

namespace streamvision::cuda {

constexpr int kBytePlaneThreads = 256;
// Bytes of one plane a block covers: 8 words of 16 bytes per thread.
constexpr std::int64_t kBytePlaneChunk = std::int64_t{kBytePlaneThreads} * 16 * 8;
// 16-byte words of a plane a thread of the table kernel has in flight at once.
constexpr int kLutBatch = 4;

inline bool dense_byte_planes(const kernels::ImageBatch& b) {
  return b.stride_w == 1 && (b.h <= 1 || b.stride_h == b.w);
}

inline std::int64_t byte_plane_chunks(const kernels::ImageBatch& b) {
  return std::max<std::int64_t>(1, (b.h * b.w + kBytePlaneChunk - 1) / kBytePlaneChunk);
}

// Block blockIdx.x's image n, chunk q of each of its planes, and the chunk's bytes [start, start + len).
struct ByteChunk {
  std::int64_t n, q, start, len;
};

__device__ SV_FORCE_INLINE ByteChunk byte_chunk(const kernels::ImageBatch& in, std::int64_t first_image, std::int64_t chunks) {
  ByteChunk c;
  c.n = first_image + static_cast<std::int64_t>(blockIdx.x) / chunks;
  c.q = static_cast<std::int64_t>(blockIdx.x) % chunks;
  const std::int64_t plane = in.h * in.w;
  c.start = c.q * kBytePlaneChunk;
  c.len = plane - c.start < kBytePlaneChunk ? plane - c.start : kBytePlaneChunk;
  return c;
}

// Calls scalar(offset) for each byte of [0, len) of a run at `p` that is not in a whole aligned
// 16-byte word, and vector(word index, words) for the aligned words, spread over the block.
template <class Scalar, class Vector>
__device__ SV_FORCE_INLINE void for_each_byte_word(const unsigned char* p, std::int64_t len, Scalar&& scalar, Vector&& vector) {
  const int t = static_cast<int>(threadIdx.x);
  const auto head = static_cast<std::int64_t>((16u - (static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(p)) & 15u)) & 15u);
  const std::int64_t lead = head < len ? head : len;
  if (t < lead) scalar(t);
  const std::int64_t words = (len - lead) / 16;
  vector(lead, words);
  const std::int64_t done = lead + words * 16;
  if (t < len - done) scalar(done + t);
}

// Folds the 16 bytes of w into running minima and maxima kept as 16-bit lanes (even and odd bytes
// of the words): two 3-input VIMNMX per 4 bytes.
__device__ SV_FORCE_INLINE void fold_minmax_word(const uint4& w, unsigned& lo2, unsigned& hi2) {
  const unsigned parts[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const unsigned even = parts[k] & 0x00ff00ffu, odd = (parts[k] >> 8) & 0x00ff00ffu;
    lo2 = __vminu2(__vminu2(lo2, even), odd);
    hi2 = __vmaxu2(__vmaxu2(hi2, even), odd);
  }
}

// The 16 bytes of w looked up in the shared-memory tables at lut_bytes, table `row >> 8` (row has
// byte 0 clear): per byte one permute puts the byte under the table offset as the index, one
// load fetches its entry, and three permutes pack four entries back into a word.
__device__ SV_FORCE_INLINE uint4 lookup_word(const uint4& w, const std::uint8_t* lut_bytes, unsigned row) {
  unsigned parts[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const unsigned r0 = lut_bytes[__byte_perm(parts[k], row, 0x7650u)], r1 = lut_bytes[__byte_perm(parts[k], row, 0x7651u)];
    const unsigned r2 = lut_bytes[__byte_perm(parts[k], row, 0x7652u)], r3 = lut_bytes[__byte_perm(parts[k], row, 0x7653u)];
    parts[k] = __byte_perm(__byte_perm(r0, r1, 0x3340u), __byte_perm(r2, r3, 0x3340u), 0x5410u);
  }
  return make_uint4(parts[0], parts[1], parts[2], parts[3]);
}

// Min and max of each (image, channel) plane over block q's byte range: partials[(n * chunks + q) * C + c].
template <int C>
__global__ void __launch_bounds__(kBytePlaneThreads)
    byte_plane_minmax_kernel(kernels::ImageBatch in, std::int64_t first_image, std::int64_t chunks,
                             kernels::MinMax<std::uint8_t>* partials) {
  __shared__ unsigned lo_s[kBytePlaneThreads / 32], hi_s[kBytePlaneThreads / 32];
  const ByteChunk chunk = byte_chunk(in, first_image, chunks);
  const std::int64_t n = chunk.n, q = chunk.q, start = chunk.start, len = chunk.len;
  const int t = static_cast<int>(threadIdx.x);
  for (int c = 0; c < C; ++c) {
    const auto* p = static_cast<const unsigned char*>(in.data) + n * in.stride_n + c * in.stride_c + start;
    unsigned lo = 255u, hi = 0u;                       // scalar bytes
    unsigned lo2 = 0x00ff00ffu, hi2 = 0u;              // 16-bit lanes: even and odd bytes of the words
    for_each_byte_word(
        p, len,
        [&](std::int64_t i) {
          lo = min(lo, static_cast<unsigned>(p[i]));
          hi = max(hi, static_cast<unsigned>(p[i]));
        },
        [&](std::int64_t lead, std::int64_t words) {
          const auto* v = reinterpret_cast<const uint4*>(p + lead);
          for (std::int64_t i = t; i < words; i += kBytePlaneThreads) {
            fold_minmax_word(__ldg(v + i), lo2, hi2);
          }
        });
    lo = min(lo, min(lo2 & 0xffffu, lo2 >> 16));
    hi = max(hi, max(hi2 & 0xffffu, hi2 >> 16));
    lo = __reduce_min_sync(0xffffffffu, lo);
    hi = __reduce_max_sync(0xffffffffu, hi);
    if (t % 32 == 0) {
      lo_s[t / 32] = lo;
      hi_s[t / 32] = hi;
    }
    __syncthreads();
    if (t < 32) {
      lo = t < kBytePlaneThreads / 32 ? lo_s[t] : 255u;
      hi = t < kBytePlaneThreads / 32 ? hi_s[t] : 0u;
      lo = __reduce_min_sync(0xffffffffu, lo);
      hi = __reduce_max_sync(0xffffffffu, hi);
      if (t == 0) partials[(n * chunks + q) * C + c] = {static_cast<float>(lo), static_cast<float>(hi)};
    }
    __syncthreads();
  }
}

// The sum over block q's byte range of image n of each pixel's contrast value: for C = 3 its
// floored grayscale value (kernels::gray_of on the bytes as floats, floored: blend_gray), for C = 1
// the byte itself; partials[n * chunks + q]. Integer sums are exact in any order, so these add up
// to the sums contrast_mean.cuh's kernel makes in its own order. Per four pixels: twelve byte
// conversions (a permute and an add each), the three products, a round-down add per floor, three
// permutes packing the four floors and one dp4a adding them; the per-pixel engine converted every
// byte and every floor with the conversion instructions, which issue at a quarter of the rate.
// two23 is 0x4b000000 (kernels::word_byte's constant as an argument: see byte_word.hpp).
template <int C>
__global__ void __launch_bounds__(kBytePlaneThreads)
    byte_plane_gray_sum_kernel(kernels::ImageBatch in, std::int64_t first_image, std::int64_t chunks, std::uint64_t* partials,
                               std::uint32_t two23) {
  __shared__ unsigned warp_sums[kBytePlaneThreads / 32];
  const ByteChunk chunk = byte_chunk(in, first_image, chunks);
  const std::int64_t n = chunk.n, q = chunk.q, start = chunk.start, len = chunk.len;
  const int t = static_cast<int>(threadIdx.x);
  const unsigned char* p[C];
#pragma unroll
  for (int c = 0; c < C; ++c) p[c] = static_cast<const unsigned char*>(in.data) + n * in.stride_n + c * in.stride_c + start;
  auto value = [&](std::int64_t i) -> unsigned {
    if constexpr (C == 3) {
      return static_cast<unsigned>(kernels::blend_gray<std::uint8_t>(p[0][i], p[1][i], p[2][i]));
    } else {
      return p[0][i];
    }
  };
  // At most 255 per pixel and a few hundred pixels a thread: 32 bits hold a block's sum.
  unsigned sum = 0;
  bool same_phase = true;
#pragma unroll
  for (int c = 1; c < C; ++c) {
    same_phase = same_phase && ((reinterpret_cast<std::uintptr_t>(p[c]) ^ reinterpret_cast<std::uintptr_t>(p[0])) & 15u) == 0;
  }
  if (!same_phase) {
    for (std::int64_t i = t; i < len; i += kBytePlaneThreads) sum += value(i);
  } else {
    for_each_byte_word(
        p[0], len, [&](std::int64_t i) { sum += value(i); },
        [&](std::int64_t lead, std::int64_t words) {
          for (std::int64_t i = t; i < words; i += kBytePlaneThreads) {
            uint4 w[C];
#pragma unroll
            for (int c = 0; c < C; ++c) w[c] = __ldg(reinterpret_cast<const uint4*>(p[c] + lead) + i);
#pragma unroll
            for (int k = 0; k < 4; ++k) {
              std::uint32_t x[C];
#pragma unroll
              for (int c = 0; c < C; ++c) x[c] = k == 0 ? w[c].x : k == 1 ? w[c].y : k == 2 ? w[c].z : w[c].w;
              if constexpr (C == 3) {
                std::uint32_t g[4];
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                  g[j] = kernels::floor_byte(kernels::gray_of<std::uint8_t>(
                      kernels::word_byte(x[0], j, two23), kernels::word_byte(x[1], j, two23), kernels::word_byte(x[2], j, two23)));
                }
                sum = __dp4a(kernels::pack_bytes(g[0], g[1], g[2], g[3]), 0x01010101u, sum);
              } else {
                sum = __dp4a(x[0], 0x01010101u, sum);
              }
            }
          }
        });
  }
  sum = __reduce_add_sync(0xffffffffu, sum);
  if (t % 32 == 0) warp_sums[t / 32] = sum;
  __syncthreads();
  if (t == 0) {
    std::uint64_t total = 0;
    for (int k = 0; k < kBytePlaneThreads / 32; ++k) total += warp_sums[k];
    partials[n * chunks + q] = total;
  }
}

// out = luts[n * lut_stride + c * 256 + in] for each byte of block q's range of each plane of image n.
template <int C>
__global__ void __launch_bounds__(kBytePlaneThreads)
    byte_plane_lut_kernel(kernels::ImageBatch in, kernels::ImageBatch out, std::int64_t first_image, std::int64_t chunks,
                          const std::uint8_t* luts, std::int64_t lut_stride) {
  __shared__ std::uint32_t lut_words[C][64];  // the image's tables, as words (filled whole)
  const ByteChunk chunk = byte_chunk(in, first_image, chunks);
  const std::int64_t n = chunk.n, start = chunk.start, len = chunk.len;
  const int t = static_cast<int>(threadIdx.x);
  for (int i = t; i < C * 64; i += kBytePlaneThreads) {
    const std::uint8_t* l = luts + n * lut_stride + (i / 64) * 256 + (i % 64) * 4;
    lut_words[i / 64][i % 64] = l[0] | (l[1] << 8) | (l[2] << 16) | (static_cast<std::uint32_t>(l[3]) << 24);
  }
  __syncthreads();
  const auto* lut_bytes = reinterpret_cast<const std::uint8_t*>(lut_words);
  for (int c = 0; c < C; ++c) {
    const auto* src = static_cast<const unsigned char*>(in.data) + n * in.stride_n + c * in.stride_c + start;
    auto* dst = static_cast<unsigned char*>(out.data) + n * out.stride_n + c * out.stride_c + start;
    const std::uint8_t* lut = lut_bytes + c * 256;
    const unsigned row = static_cast<unsigned>(c) << 8;  // byte 0 clear: the table index goes there
    // Words only when source and destination share their alignment (fresh outputs of dense inputs do).
    const bool same_phase = ((reinterpret_cast<std::uintptr_t>(src) ^ reinterpret_cast<std::uintptr_t>(dst)) & 15u) == 0;
    if (!same_phase) {
      for (std::int64_t i = t; i < len; i += kBytePlaneThreads) dst[i] = lut[src[i]];
      continue;
    }
    for_each_byte_word(
        src, len, [&](std::int64_t i) { dst[i] = lut[src[i]]; },
        [&](std::int64_t lead, std::int64_t words) {
          const auto* v = reinterpret_cast<const uint4*>(src + lead);
          auto* o = reinterpret_cast<uint4*>(dst + lead);
          // kLutBatch words a thread loaded before any is looked up: one at a time (the compiler
          // unrolled two) kept too few bytes in flight, and the pass ran at ~83 % of the copy
          // bandwidth with the memory pipes mostly idle (ncu on the H200: DRAM 71 %, issue 31 %).
          for (std::int64_t i0 = t; i0 < words; i0 += kLutBatch * kBytePlaneThreads) {
            uint4 w[kLutBatch];
#pragma unroll
            for (int b = 0; b < kLutBatch; ++b) {
              const std::int64_t i = i0 + b * kBytePlaneThreads;
              if (i < words) w[b] = __ldg(v + i);
            }
#pragma unroll
            for (int b = 0; b < kLutBatch; ++b) {
              const std::int64_t i = i0 + b * kBytePlaneThreads;
              if (i >= words) break;
              o[i] = lookup_word(w[b], lut_bytes, row);
            }
          }
        });
  }
}

// out = the tables applied to every plane of every image (luts: lut_stride bytes per image, 256
// per channel), chunks of kBytePlaneChunk bytes a block, in image slices that fit one grid.
template <int C>
void apply_byte_plane_luts(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const std::uint8_t* luts,
                           std::int64_t lut_stride, LaunchScope& scope) {
  const std::int64_t chunks = byte_plane_chunks(in);
  for_each_image_slice(in.n, chunks, [&](std::int64_t first, std::int64_t images) {
    byte_plane_lut_kernel<C><<<static_cast<unsigned>(images * chunks), kBytePlaneThreads, 0, scope.handle()>>>(
        in, out, first, chunks, luts, lut_stride);
    scope.check_launch();
  });
}

}  // namespace streamvision::cuda
