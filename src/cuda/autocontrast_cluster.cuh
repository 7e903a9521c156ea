// autocontrast in one pass over memory (Hopper and later): a thread-block cluster per (image,
// channel) plane keeps the plane on chip while it finds the plane's minimum and maximum, then
// rescales what it kept and writes it. The three-step path (color_reduce.cu) reads the image
// twice and writes it once; this one reads it once, so its floor is the copy's.
//
// A plane is split into 16-byte words, shared out over the cluster's blocks (up to 16; blocks of
// 512 threads, two per SM, or 1024 for float32, at 64 registers a thread). A thread keeps its first
// kClusterWords words in registers and its next `shared_words` in dynamic shared memory (copied in
// asynchronously, so that many are in flight without holding registers). Only planes the cluster
// keeps whole take this pass (uint8 up to 5.8 MB, float32 1000x1400, float16 1000x1400); larger
// ones (float32 and float16 1080p) take the three steps, which were faster on the H200 than reading
// the rest of the plane again (below). The blocks' bounds meet through distributed shared memory.
// uint8 compares in 16-bit lanes and rescales through a 256-entry table (byte_planes.cuh's word
// helpers); float types compare and rescale element by element with the three-step path's
// functions, so both paths give the same bits (min and max are exact in any order).
//
// Measured with one block of 1024 threads per SM (H100, 64x3x1080x1920): uint8 0.422 -> 0.357 ms,
// float32 1.613 -> 1.539, float16 0.844 -> 0.904. Its limiter (ncu): an SM read its share, waited
// for its cluster, then wrote, and DRAM ran at ~61 % of peak (uint8: clusters of 8, 15 at a time).
// Here two blocks of 512 threads share an SM (uint8 and the 16-bit types), from different clusters,
// so that one's writes overlap the other's reads: uint8 0.357 -> 0.321 ms (DRAM 61 -> 66 %),
// float16 0.821 against the three steps' 0.844 (H100, bench/RESULTS.md, twenty-sixth session).
// Planes larger than the cluster's registers and shared memory were read again in part (mostly
// from L2): 1.05x faster than the three steps for float32 1080p on the H100 (1.539 against 1.613 ms)
// but 0.91x on the H200 (1.272 against 1.155), whose faster DRAM leaves the pass's
// read-wait-write phases the larger share; only whole planes take it since (twenty-seventh session).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <cooperative_groups.h>
#include <cuda_pipeline.h>

#include "cuda/byte_planes.cuh"
#include "cuda/launch.hpp"
#include "kernels/color.hpp"
#include "kernels/image_batch.hpp"
#include "kernels/reduce.hpp"

namespace streamvision::cuda {

// Threads of a block: 512 (two blocks of different clusters per SM, so that one's writes overlap
// another's reads), but 1024 for float32, so that a cluster keeps planes of twice the size whole
// (up to 1000x1400).
template <class T>
inline constexpr int kClusterThreads = std::is_same_v<T, float> ? 1024 : 512;
// Blocks an SM holds at 64 registers a thread.
template <class T>
inline constexpr int kClusterBlocksPerSM = 1024 / kClusterThreads<T>;
inline constexpr int kClusterWords = 8;  // 16-byte words a thread keeps in registers
inline constexpr int kMaxClusterBlocks = 16;
inline constexpr int kMaxSharedWords = 14;  // 14 x 16 KiB of 1024 threads' words (13 x 8 KiB of 512) fit Hopper's 228 KiB

// Element types the one pass is faster for: on the H100, 64x3x1080x1920 against the three steps,
// uint8 1.18x with 1024-thread blocks (twenty-fifth session), 1.31x with two 512-thread blocks a SM
// (twenty-sixth); on the H200, whole 256x3x512x512 planes, uint8 1.32x, float16 1.15x, float32
// 1.17x (twenty-seventh).
template <class T>
inline constexpr bool kClusterAutocontrast = std::is_same_v<T, std::uint8_t> || std::is_same_v<T, float> ||
                                             std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Block blockIdx.x is block `rank` of plane blockIdx.x / S's cluster (clusters of S consecutive
// blocks). Input and output planes are dense and in phase (the same address modulo 16).
template <class T>
__global__ void __launch_bounds__(kClusterThreads<T>, kClusterBlocksPerSM<T>)
    autocontrast_cluster_kernel(kernels::ImageBatch in, kernels::ImageBatch out, int channels, int shared_words) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using F = kernels::opmath_t<T>;
  constexpr bool kBytes = std::is_same_v<T, std::uint8_t>;
  constexpr int E = 16 / static_cast<int>(sizeof(T));  // elements of a word
  extern __shared__ uint4 kept[];                     // [shared_words][threads]
  __shared__ F warp_lo[32], warp_hi[32];
  __shared__ F block_bounds[2];  // this block's minimum and maximum, read by the whole cluster
  __shared__ std::uint32_t lut_words[64];
  auto* lut = reinterpret_cast<std::uint8_t*>(lut_words);

  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned S = cluster.num_blocks(), rank = cluster.block_rank();
  const int t = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const std::int64_t plane = blockIdx.x / S, n = plane / channels, c = plane % channels;
  const T* src = static_cast<const T*>(in.data) + n * in.stride_n + c * in.stride_c;
  T* dst = static_cast<T*>(out.data) + n * out.stride_n + c * out.stride_c;
  const std::int64_t len = in.h * in.w;
  const auto misalign = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(src)) & 15u;
  const std::int64_t head = min(len, static_cast<std::int64_t>(((16u - misalign) & 15u) / sizeof(T)));
  const std::int64_t words = (len - head) / E, tail = len - head - words * E;
  const std::int64_t share = (words + S - 1) / S, begin = rank * share + t, end = min(words, (rank + 1) * share);
  const auto* v = reinterpret_cast<const uint4*>(src + head);
  auto* o = reinterpret_cast<uint4*>(dst + head);
  const int kept_slots = kClusterWords + shared_words;  // the share fits in these (autocontrast_cluster_shape)

  // Phase 1: read the share, keep it, fold it into the bounds.
  unsigned lo2 = 0x00ff00ffu, hi2 = 0u;  // uint8: 16-bit lanes (even and odd bytes)
  F lo = static_cast<F>(INFINITY), hi = static_cast<F>(-INFINITY);
  auto fold = [&](const uint4& w) {
    if constexpr (kBytes) {
      fold_minmax_word(w, lo2, hi2);
    } else {
      T x[E];
      memcpy(x, &w, 16);
#pragma unroll
      for (int e = 0; e < E; ++e) {
        lo = kernels::min_value(lo, kernels::to_opmath(x[e]));
        hi = kernels::max_value(hi, kernels::to_opmath(x[e]));
      }
    }
  };
  // Registers first, then shared memory by asynchronous copies (no registers held while they fly).
  uint4 w[kClusterWords];
#pragma unroll
  for (int k = 0; k < kClusterWords; ++k) {
    const std::int64_t i = begin + std::int64_t{k} * threads;
    if (i < end) w[k] = __ldcs(v + i);  // kept on chip: no reason to keep it in the caches
  }
  for (int k = kClusterWords; k < kept_slots && begin + std::int64_t{k} * threads < end; ++k) {
    __pipeline_memcpy_async(&kept[(k - kClusterWords) * threads + t], v + begin + std::int64_t{k} * threads, 16);
  }
  __pipeline_commit();
#pragma unroll
  for (int k = 0; k < kClusterWords; ++k) {
    if (begin + std::int64_t{k} * threads < end) fold(w[k]);
  }
  __pipeline_wait_prior(0);  // this thread's own copies: no barrier needed
  for (int k = kClusterWords; k < kept_slots && begin + std::int64_t{k} * threads < end; ++k) {
    fold(kept[(k - kClusterWords) * threads + t]);
  }
  // The elements outside whole words: the plane's head in its first block, its tail in its last.
  const bool has_head = rank == 0 && t < head, has_tail = rank == S - 1 && t < tail;
  const std::int64_t tail_at = head + words * E + t;
  const T head_value = has_head ? src[t] : T{}, tail_value = has_tail ? src[tail_at] : T{};
  if constexpr (kBytes) {
    lo = static_cast<F>(min(lo2 & 0xffffu, lo2 >> 16));
    hi = static_cast<F>(max(hi2 & 0xffffu, hi2 >> 16));
  }
  if (has_head) lo = kernels::min_value(lo, kernels::to_opmath(head_value)), hi = kernels::max_value(hi, kernels::to_opmath(head_value));
  if (has_tail) lo = kernels::min_value(lo, kernels::to_opmath(tail_value)), hi = kernels::max_value(hi, kernels::to_opmath(tail_value));

  // The bounds: warps, the block, then the cluster.
  auto reduce_warp = [](F& a, F& b) {
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
      a = kernels::min_value(a, __shfl_xor_sync(0xffffffffu, a, off));
      b = kernels::max_value(b, __shfl_xor_sync(0xffffffffu, b, off));
    }
  };
  reduce_warp(lo, hi);
  if (t % 32 == 0) warp_lo[t / 32] = lo, warp_hi[t / 32] = hi;
  __syncthreads();
  if (t < 32) {
    lo = t < threads / 32 ? warp_lo[t] : static_cast<F>(INFINITY);
    hi = t < threads / 32 ? warp_hi[t] : static_cast<F>(-INFINITY);
    reduce_warp(lo, hi);
    if (t == 0) block_bounds[0] = lo, block_bounds[1] = hi;
  }
  cluster.sync();  // every block's bounds are written
  if (t < 32) {
    lo = static_cast<F>(INFINITY), hi = static_cast<F>(-INFINITY);
    if (static_cast<unsigned>(t) < S) {
      const F* remote = cluster.map_shared_rank(block_bounds, static_cast<unsigned>(t));
      lo = remote[0], hi = remote[1];
    }
    reduce_warp(lo, hi);
    if (t == 0) warp_lo[0] = lo, warp_hi[0] = hi;
  }
  // Done with the other blocks' shared memory; the matching wait is the last thing a block does,
  // so that none leaves (and frees its bounds) while another still reads them.
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
  __syncthreads();

  // Phase 2: rescale and write.
  const kernels::AutocontrastChannel<T> p = kernels::autocontrast_channel<T>(warp_lo[0], warp_hi[0]);
  if constexpr (kBytes) {
    for (int x = t; x < 256; x += threads) lut[x] = kernels::autocontrast_value(static_cast<std::uint8_t>(x), p);
    __syncthreads();
  }
  auto rescale = [&](const uint4& word) -> uint4 {
    if constexpr (kBytes) {
      return lookup_word(word, lut, 0u);
    } else {
      T x[E];
      memcpy(x, &word, 16);
#pragma unroll
      for (int e = 0; e < E; ++e) x[e] = kernels::autocontrast_value(x[e], p);
      uint4 r;
      memcpy(&r, x, 16);
      return r;
    }
  };
  auto rescale_one = [&](T x) -> T {
    if constexpr (kBytes) {
      return lut[x];
    } else {
      return kernels::autocontrast_value(x, p);
    }
  };
#pragma unroll
  for (int k = 0; k < kClusterWords; ++k) {
    const std::int64_t i = begin + std::int64_t{k} * threads;
    if (i < end) __stcs(o + i, rescale(w[k]));
  }
  for (int k = kClusterWords; k < kept_slots; ++k) {
    const std::int64_t i = begin + std::int64_t{k} * threads;
    if (i >= end) break;
    __stcs(o + i, rescale(kept[(k - kClusterWords) * threads + t]));
  }
  if (has_head) dst[t] = rescale_one(head_value);
  if (has_tail) dst[tail_at] = rescale_one(tail_value);
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
#endif
}

// How autocontrast_cluster_kernel<T> runs on planes of `len` elements: blocks per cluster, threads
// per block, words a thread keeps in shared memory; blocks = 0 where it cannot (no clusters, or a
// plane larger than a cluster keeps on chip).
struct ClusterShape {
  int blocks = 0, threads = 0, shared_words = 0;
  std::size_t shared_bytes() const { return static_cast<std::size_t>(shared_words) * threads * 16; }
};

template <class T>
ClusterShape autocontrast_cluster_shape(std::int64_t len, int device) {
  const std::int64_t words = len * static_cast<std::int64_t>(sizeof(T)) / 16 + 1;  // an unaligned start splits one off
  // Each of the SM's blocks: its share of the SM's shared memory, less the driver's 1 KiB and the static arrays.
  constexpr int kThreads = kClusterThreads<T>;
  const int per_block = std::min(max_shared_bytes_optin(device), max_shared_bytes_per_multiprocessor(device) / kClusterBlocksPerSM<T>);
  const int shared_cap = std::clamp((per_block - 2048) / (16 * kThreads), 0, kMaxSharedWords);
  const unsigned mask = cluster_size_mask(reinterpret_cast<const void*>(&autocontrast_cluster_kernel<T>), kThreads,
                                          static_cast<std::size_t>(shared_cap) * 16 * kThreads, device);
  const std::int64_t on_chip = std::int64_t{kThreads} * (kClusterWords + shared_cap);  // words a block keeps
  int blocks = 0;
  for (int b = 1; b <= kMaxClusterBlocks; b *= 2) {
    if (!(mask & static_cast<unsigned>(b))) continue;  // bit log2(b) is the value b
    blocks = b;
    if (b * on_chip >= words) break;
  }
  if (blocks == 0 || words > blocks * on_chip) return {};
  const std::int64_t share = (words + blocks - 1) / blocks;
  ClusterShape shape;
  shape.blocks = blocks;
  if (share <= std::int64_t{kThreads} * kClusterWords) {
    // Registers suffice: threads enough for kClusterWords words each, in whole warps, at least 128.
    const std::int64_t threads = std::clamp<std::int64_t>((share + kClusterWords - 1) / kClusterWords, 128, kThreads);
    shape.threads = static_cast<int>((threads + 31) / 32 * 32);
  } else {
    shape.threads = kThreads;
    shape.shared_words = static_cast<int>(std::min<std::int64_t>(shared_cap, (share + kThreads - 1) / kThreads - kClusterWords));
  }
  return shape;
}

// Dense planes (rows of unit stride, no padding) of input and output in phase: every input plane
// starts at the same address modulo 16 as its output plane, so the words of one are the other's.
template <class T>
bool cluster_planes_fit(const kernels::ImageBatch& in, const kernels::ImageBatch& out) {
  const auto a = reinterpret_cast<std::uintptr_t>(in.data), b = reinterpret_cast<std::uintptr_t>(out.data);
  const auto bytes = static_cast<std::int64_t>(sizeof(T));
  return dense_byte_planes(in) && dense_byte_planes(out) && in.h * in.w > 0 && a % sizeof(T) == 0 && ((a ^ b) & 15u) == 0 &&
         ((in.stride_c - out.stride_c) * bytes & 15) == 0 && ((in.stride_n - out.stride_n) * bytes & 15) == 0;
}

// Runs autocontrast of `channels`-channel images in one pass where it can; false where it cannot
// (the caller takes the three steps).
template <class T>
bool autocontrast_in_clusters(const kernels::ImageBatch& in, const kernels::ImageBatch& out, int channels,
                              const Stream& stream) {
  if constexpr (!kClusterAutocontrast<T>) {
    return false;
  } else {
    // STREAMVISION_CUDA_NO_ONE_PASS_AUTOCONTRAST: the three steps for everything (an A/B switch for
    // benchmarks, as STREAMVISION_CUDA_NO_ROW_PATH is for the elementwise row path).
    static const bool disabled = std::getenv("STREAMVISION_CUDA_NO_ONE_PASS_AUTOCONTRAST") != nullptr;
    if (disabled || !cluster_planes_fit<T>(in, out)) return false;
    LaunchScope scope(stream, "autocontrast");
    const ClusterShape shape = autocontrast_cluster_shape<T>(in.h * in.w, scope.device());
    const std::int64_t planes = in.n * channels;
    if (shape.blocks == 0 || planes * shape.blocks > std::int64_t{INT32_MAX}) return false;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(planes * shape.blocks));
    config.blockDim = dim3(static_cast<unsigned>(shape.threads));
    config.dynamicSmemBytes = shape.shared_bytes();
    config.stream = scope.handle();
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(shape.blocks);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    SV_CUDA_CHECK(cudaLaunchKernelEx(&config, autocontrast_cluster_kernel<T>, in, out, channels, shape.shared_words),
                  "autocontrast");
    scope.check_launch();
    return true;
  }
}

}  // namespace streamvision::cuda
