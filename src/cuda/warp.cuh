// Internal: the CUDA warp kernels shared by affine (and rotate off the right angles: affine.cu),
// perspective.cu and elastic.cu. A thread maps its output pixel to a source point once (the Grid,
// kernels/warp_grid.hpp), computes the nearest tap or the four bilinear taps and the coverage mask
// once, then samples a group of planes with them in the grid's Sample dtype (kernels/sampling.hpp,
// kernels/warp_grid.hpp). Per-call parameters (grid coefficients, per-channel fill) travel by value
// in the kernel arguments.
//
// Two schedules, same arithmetic:
//  * warp_kernel: a thread per output pixel gathers its taps from global memory. For uint8 that
//    is four one-byte loads per output value, scattered over ~16 source rows per warp at a 30
//    degree rotation: ncu put rotate 30 at 85 % of L1/TEX throughput with DRAM at 8 % (bench/
//    RESULTS.md, seventeenth and nineteenth sessions).
//  * warp_staged_kernel (uint8, word-aligned rows): a block per 32 x 32 output tile (a thread per
//    four pixels of a row) first reduces the bounding box of the taps its pixels read, then per
//    plane copies that box into shared memory with coalesced 32-bit loads (~500 words at a 30
//    degree rotation, two or three per thread, where the gather issued 32 scattered load
//    instructions per warp for 32 pixels), and gathers the taps from there. The next plane's
//    words are loaded into registers before the current plane is sampled (two shared buffers,
//    one barrier a plane). A block whose box does not fit its buffer (strong downscales) gathers
//    from global memory as warp_kernel does. Elastic keeps warp_kernel (launch_warp's MayStage).
//    SV_WARP_SCHEDULE=direct (read once) keeps every launch on warp_kernel, so that one build can
//    time both.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "core/dtype_dispatch.hpp"
#include "cuda/geometry.cuh"
#include "core/tensor_views.hpp"
#include "kernels/border.hpp"
#include "kernels/warp_grid.hpp"
#include "streamvision/functional/geometry.hpp"

namespace streamvision::cuda {

template <class T>
struct WarpArgs {
  using A = kernels::acc_t<T>;
  kernels::ImageBatch in, out;
  PlaneSet in_planes, out_planes;
  std::uint32_t planes, planes_per_group;
  kernels::FastDivmod div_w, div_c;
  bool nearest, has_fill;
  A fill[kernels::kMaxFillValues];
  int fill_count;
};

// The taps of output pixel (ox, oy): once per pixel, for every plane.
template <class T, class Grid>
struct PixelTaps {
  using A = kernels::acc_t<typename Grid::Sample>;
  kernels::BilinearTaps<A> taps;  // nearest: x0, y0 (x0 = -1 outside the image)
  A mask = 0;
};

template <class T, class Grid>
__device__ SV_FORCE_INLINE PixelTaps<T, Grid> pixel_taps(const WarpArgs<T>& a, const Grid& grid, int ox, int oy) {
  using A = typename PixelTaps<T, Grid>::A;
  PixelTaps<T, Grid> t;
  const int in_w = static_cast<int>(a.in.w), in_h = static_cast<int>(a.in.h);
  A ix, iy;
  grid.source(ox, oy, ix, iy);
  if (a.nearest) {
    kernels::nearest_tap(ix, iy, in_w, in_h, t.taps.x0, t.taps.y0);
    t.mask = t.taps.x0 >= 0 ? A(1) : A(0);
  } else {
    t.taps = kernels::bilinear_taps(ix, iy, in_w, in_h);
    if (a.has_fill) t.mask = kernels::bilinear_mask(t.taps);
  }
  return t;
}

// Plane p's output value from its sampled value v: the fill blend and the conversion to T.
template <class T, class Grid, class A>
__device__ SV_FORCE_INLINE T plane_output(const WarpArgs<T>& a, std::uint32_t p, A v, A mask) {
  A fill = 0;
  if (a.has_fill) {
    std::uint32_t n, c;
    a.div_c.divmod(p, n, c);
    fill = a.fill[a.fill_count == 1 ? 0 : c];
  }
  return kernels::warp_output<T, typename Grid::Sample>(v, mask, a.nearest, a.has_fill, fill);
}

// Planes [first, last) of one output pixel, its taps gathered from global memory.
template <class T, class Grid>
__device__ SV_FORCE_INLINE void gather_planes(const WarpArgs<T>& a, const PixelTaps<T, Grid>& t, std::int64_t dst,
                                              std::uint32_t first, std::uint32_t last) {
  using A = typename PixelTaps<T, Grid>::A;
  const T* in = static_cast<const T*>(a.in.data);
  T* out = static_cast<T*>(a.out.data);
  for (std::uint32_t p = first; p < last; ++p) {
    const kernels::PlaneView<T> src{in + a.in_planes.offset(p), a.in.stride_h, a.in.stride_w};
    A v;
    if (a.nearest) {
      v = t.taps.x0 >= 0 ? kernels::load_as<A>(src.at(t.taps.y0, t.taps.x0)) : A(0);
    } else {
      v = kernels::bilinear_sample(src, t.taps);
    }
    out[a.out_planes.offset(p) + dst] = plane_output<T, Grid>(a, p, v, t.mask);
  }
}

template <class T, class Grid>
__global__ void __launch_bounds__(kBlockThreads) warp_kernel(WarpArgs<T> a, Grid grid) {
  // Not written with pixel_taps and gather_planes: so composed, the uint8 kernel took 336
  // instructions and 40 registers where this takes 320 and 38, and ran 8 % slower on the H200.
  using A = kernels::acc_t<typename Grid::Sample>;
  const std::uint32_t pixel = blockIdx.x * kBlockThreads + threadIdx.x;
  std::uint32_t oy, ox;
  a.div_w.divmod(pixel, oy, ox);
  if (oy >= static_cast<std::uint32_t>(a.out.h)) return;
  const int in_w = static_cast<int>(a.in.w), in_h = static_cast<int>(a.in.h);
  A ix, iy;
  grid.source(static_cast<int>(ox), static_cast<int>(oy), ix, iy);
  kernels::BilinearTaps<A> taps;
  A mask = 0;
  if (a.nearest) {
    kernels::nearest_tap(ix, iy, in_w, in_h, taps.x0, taps.y0);
    mask = taps.x0 >= 0 ? A(1) : A(0);
  } else {
    taps = kernels::bilinear_taps(ix, iy, in_w, in_h);
    if (a.has_fill) mask = kernels::bilinear_mask(taps);
  }
  const std::int64_t dst = oy * a.out.stride_h + ox * a.out.stride_w;
  const T* in = static_cast<const T*>(a.in.data);
  T* out = static_cast<T*>(a.out.data);
  std::uint32_t first, last;
  plane_range(a.planes, a.planes_per_group, first, last);
  for (std::uint32_t p = first; p < last; ++p) {
    const kernels::PlaneView<T> src{in + a.in_planes.offset(p), a.in.stride_h, a.in.stride_w};
    A v;
    if (a.nearest) {
      v = taps.x0 >= 0 ? kernels::load_as<A>(src.at(taps.y0, taps.x0)) : A(0);
    } else {
      v = kernels::bilinear_sample(src, taps);
    }
    A fill = 0;
    if (a.has_fill) {
      std::uint32_t n, c;
      a.div_c.divmod(p, n, c);
      fill = a.fill[a.fill_count == 1 ? 0 : c];
    }
    out[a.out_planes.offset(p) + dst] = kernels::warp_output<T, typename Grid::Sample>(v, mask, a.nearest, a.has_fill, fill);
  }
}

// The steps from plane p = n * C + c of a batch to plane p + 1: to the next channel, or from the
// last channel to the next image's first (computed on the host: the kernel reads them from its
// arguments rather than rebuilding them every plane).
struct PlaneSteps {
  std::int64_t next_channel = 0, next_image = 0;
};

inline PlaneSteps plane_steps(const kernels::ImageBatch& b) {
  return {b.stride_c, b.stride_n - (std::max<std::int64_t>(b.c, 1) - 1) * b.stride_c};
}

// Whether every plane of the batch is one step from the last (a dense [N, C] of planes: the
// next channel and the next image are the same step).
inline bool one_plane_step(const PlaneSteps& s) { return s.next_channel == s.next_image; }

// A plane's first element, walked plane by plane. OneStep (one_plane_step held, checked on the
// host): one 64-bit add a plane, where choosing between the two steps took 8 uniform
// instructions a plane and cursor in the issue-bound staged loop.
template <class P, bool OneStep>
struct PlaneCursor {
  P* plane;
  std::uint32_t channel, channels;
  __device__ SV_FORCE_INLINE PlaneCursor(const kernels::ImageBatch& b, std::uint32_t p, std::uint32_t c_count)
      : channels(c_count) {
    channel = p % channels;
    plane = static_cast<P*>(b.data) + static_cast<std::int64_t>(p / channels) * b.stride_n + static_cast<std::int64_t>(channel) * b.stride_c;
  }
  __device__ SV_FORCE_INLINE void advance(const PlaneSteps& steps) {
    const bool wrapped = ++channel == channels;
    if (wrapped) channel = 0;  // still counted: a per-channel fill reads it (unused, it compiles away)
    if constexpr (OneStep) {
      plane += steps.next_channel;
    } else {
      plane += wrapped ? steps.next_image : steps.next_channel;
    }
  }
};

// The staged schedule (uint8 planes of unit stride whose rows, planes and width are whole 32-bit
// words: the host checks). Its tile: 32 x 32 output pixels, a thread per four adjacent pixels of
// a row. Four pixels a thread share the plane loop's staging, cursors and barrier and leave by
// one 32-bit store: with a pixel a thread (32 x 8 tiles) those took about half of the issue-bound
// loop's instructions (sm_90 SASS: ~65 a plane a pixel, now ~37). A square tile's source box is
// also smaller per pixel than a 32 x 8 tile's (at 30 degrees 44 x 44 bytes for 1024 pixels
// against 32 x 23 for 256).
constexpr int kStagedPixels = 4;  // adjacent output pixels of a row a thread samples
constexpr int kStagedTileW = 32;
constexpr int kStagedRowThreads = kStagedTileW / kStagedPixels;
constexpr int kStagedTileH = kBlockThreads / kStagedRowThreads;
static_assert(kStagedTileW % kStagedPixels == 0 && kBlockThreads % kStagedRowThreads == 0, "whole threads a tile");
constexpr int kStagedWordsPerThread = 6;  // words of a plane's box a thread copies, at most
constexpr int kStagedWords = kStagedWordsPerThread * kBlockThreads;  // a buffer: 6 KB

// Nearest and HasFill are a.nearest and a.has_fill, and OneStep one_plane_step of both batches,
// as template arguments: the plane loop is issue-bound (bench/RESULTS.md, nineteenth and
// thirty-first sessions) and their branches cost it instructions. word_out: the output's rows
// and planes are whole aligned words of unit stride (the host checks), so that a thread's four
// pixels leave by one 32-bit store; otherwise, and where a thread's pixels pass the right edge,
// byte by byte.
template <class Grid, bool Nearest, bool HasFill, bool OneStep>
__global__ void __launch_bounds__(kBlockThreads) warp_staged_kernel(WarpArgs<std::uint8_t> a, Grid grid, int tiles_w,
                                                                   PlaneSteps in_steps, PlaneSteps out_steps,
                                                                   bool word_out) {
  using T = std::uint8_t;
  using A = typename PixelTaps<T, Grid>::A;
  __shared__ std::uint32_t stage[2][kStagedWords];
  __shared__ int box[4];  // the taps' columns [box[0], box[2]] and rows [box[1], box[3]]
  const int me = static_cast<int>(threadIdx.x);
  const int ox = static_cast<int>(blockIdx.x) % tiles_w * kStagedTileW + me % kStagedRowThreads * kStagedPixels;
  const int oy = static_cast<int>(blockIdx.x) / tiles_w * kStagedTileH + me / kStagedRowThreads;
  bool valid[kStagedPixels];
  PixelTaps<T, Grid> t[kStagedPixels];
  // The box of the taps this tile loads (outside taps are never read).
  int x_lo = INT_MAX, y_lo = INT_MAX, x_hi = INT_MIN, y_hi = INT_MIN;
#pragma unroll
  for (int k = 0; k < kStagedPixels; ++k) {
    valid[k] = ox + k < a.out.w && oy < a.out.h;
    if (valid[k]) {
      t[k] = pixel_taps(a, grid, ox + k, oy);
    } else {
      t[k].taps.x0 = -1;  // outside for both modes (inside = 0): sampled without a branch, never stored
    }
    const int x0 = static_cast<int>(t[k].taps.x0), y0 = static_cast<int>(t[k].taps.y0);
    if (valid[k] && Nearest && x0 >= 0) {
      x_lo = min(x_lo, x0);
      x_hi = max(x_hi, x0);
      y_lo = min(y_lo, y0);
      y_hi = max(y_hi, y0);
    } else if (valid[k] && !Nearest && t[k].taps.inside != 0) {
      const unsigned in = t[k].taps.inside;
      x_lo = min(x_lo, (in & 5u) ? x0 : x0 + 1);
      x_hi = max(x_hi, (in & 10u) ? x0 + 1 : x0);
      y_lo = min(y_lo, (in & 3u) ? y0 : y0 + 1);
      y_hi = max(y_hi, (in & 12u) ? y0 + 1 : y0);
    }
  }
  // valid[k] for the last pixel holds for all four (same row, smaller columns).
  const bool whole_word = word_out && valid[kStagedPixels - 1];
  std::uint32_t first, last;
  plane_range(a.planes, a.planes_per_group, first, last);
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    x_lo = min(x_lo, __shfl_xor_sync(0xffffffffu, x_lo, off));
    y_lo = min(y_lo, __shfl_xor_sync(0xffffffffu, y_lo, off));
    x_hi = max(x_hi, __shfl_xor_sync(0xffffffffu, x_hi, off));
    y_hi = max(y_hi, __shfl_xor_sync(0xffffffffu, y_hi, off));
  }
  if (me == 0) {
    box[0] = box[1] = INT_MAX;
    box[2] = box[3] = INT_MIN;
  }
  __syncthreads();
  if (me % 32 == 0) {
    atomicMin(&box[0], x_lo);
    atomicMin(&box[1], y_lo);
    atomicMax(&box[2], x_hi);
    atomicMax(&box[3], y_hi);
  }
  __syncthreads();
  const bool empty = box[0] > box[2];
  const int word0 = empty ? 0 : box[0] >> 2, row0 = empty ? 0 : box[1];
  const int words = empty ? 0 : (box[2] >> 2) - word0 + 1, rows = empty ? 0 : box[3] - row0 + 1;
  const int pitch = words | 1;  // in words; odd, so that rows fall in different banks
  const std::int64_t dst = static_cast<std::int64_t>(oy) * a.out.stride_h + static_cast<std::int64_t>(ox) * a.out.stride_w;
  if (pitch * rows > kStagedWords) {  // block-uniform: the box does not fit a buffer
#pragma unroll
    for (int k = 0; k < kStagedPixels; ++k) {
      if (valid[k]) gather_planes(a, t[k], dst + k * a.out.stride_w, first, last);
    }
    return;
  }

  // This thread's words of the box, the same for every plane: item i = me + 256 j is word i % words
  // of box row i / words.
  const int row_words = static_cast<int>(a.in.stride_h >> 2);
  // Shared addresses are kept as 32-bit shared-window offsets (st.shared below): given generic
  // pointers, the compiler rebuilt each address from the CTA's window base per store.
  const auto stage_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(&stage[0][0]));
  int src_word[kStagedWordsPerThread];
  std::uint32_t dst_addr[kStagedWordsPerThread];
  int items = 0;
#pragma unroll
  for (int j = 0; j < kStagedWordsPerThread; ++j) {
    const int i = me + j * kBlockThreads;
    src_word[j] = 0;
    dst_addr[j] = stage_base;
    if (i < words * rows) {
      const int r = i / words, c = i - r * words;
      src_word[j] = (row0 + r) * row_words + word0 + c;
      dst_addr[j] = stage_base + 4u * static_cast<std::uint32_t>(r * pitch + c);
      items = j + 1;
    }
  }
  // Each pixel's tap (x0, y0) in the first buffer, as a shared-window address like the stores':
  // box byte (y0 - row0) * 4 pitch + x0 - 4 word0 (outside the box for an outside tap, which is
  // never read). Through a generic pointer the compiler rebuilt the window base (S2R, LEA) every
  // plane.
  const int row_bytes = 4 * pitch;
  std::uint32_t tap_addr[kStagedPixels];
#pragma unroll
  for (int k = 0; k < kStagedPixels; ++k) {
    const int x0 = static_cast<int>(t[k].taps.x0), y0 = static_cast<int>(t[k].taps.y0);
    tap_addr[k] = stage_base + static_cast<std::uint32_t>((y0 - row0) * row_bytes + x0 - 4 * word0);
  }
  auto shared_byte = [](std::uint32_t addr) {
    std::uint32_t b;
    asm volatile("ld.shared.u8 %0, [%1];" : "=r"(b) : "r"(addr));
    return static_cast<std::uint8_t>(b);
  };
  // Planes are walked by cursors rather than located from p (a divmod and 64-bit multiplies per
  // plane and pointer): the loads run a plane ahead of the samples and the stores.
  const std::uint32_t channels = static_cast<std::uint32_t>(a.in.c > 0 ? a.in.c : 1);
  PlaneCursor<const std::uint8_t, OneStep> load_at(a.in, first, channels);
  PlaneCursor<std::uint8_t, OneStep> store_at(a.out, first, channels);
  std::uint32_t next[kStagedWordsPerThread];
  auto load = [&]() {
    const auto* plane = reinterpret_cast<const std::uint32_t*>(load_at.plane);
#pragma unroll
    for (int j = 0; j < kStagedWordsPerThread; ++j) {
      if (j >= items) break;
      next[j] = __ldg(plane + src_word[j]);
    }
    load_at.advance(in_steps);
  };
  auto store = [&](int buffer) {  // buffer: 0 or kStagedWords
#pragma unroll
    for (int j = 0; j < kStagedWordsPerThread; ++j) {
      if (j >= items) break;
      asm volatile("st.shared.u32 [%0], %1;" ::"r"(dst_addr[j] + 4u * static_cast<std::uint32_t>(buffer)), "r"(next[j]) : "memory");
    }
  };
  if (first < last) {
    load();
    store(0);
  }
  __syncthreads();
  int buffer = 0;
  // Counted down: with p < last the compiler reloaded and recomputed `last` every plane.
  for (std::uint32_t left = last > first ? last - first : 0; left > 0; --left) {
    const bool more = left > 1;  // a plane follows this one
    if (more) load();
    const A fill = HasFill ? a.fill[a.fill_count == 1 ? 0 : store_at.channel] : A(0);
    std::uint32_t out_word = 0;  // the four output bytes, pixel k in byte k
#pragma unroll
    for (int k = 0; k < kStagedPixels; ++k) {
      const std::uint32_t s = tap_addr[k] + 4u * static_cast<std::uint32_t>(buffer);
      A v;
      if constexpr (Nearest) {
        v = t[k].taps.x0 >= 0 ? kernels::load_as<A>(shared_byte(s)) : A(0);
      } else {  // bilinear_sample's sum: fma from 0, taps in order
        const unsigned in_taps = t[k].taps.inside;
        const std::uint32_t below = s + static_cast<std::uint32_t>(row_bytes);
        const A* w = t[k].taps.w;
        v = 0;
        if (in_taps & 1u) v = kernels::fused_mul_add(kernels::load_as<A>(shared_byte(s)), w[0], v);
        if (in_taps & 2u) v = kernels::fused_mul_add(kernels::load_as<A>(shared_byte(s + 1)), w[1], v);
        if (in_taps & 4u) v = kernels::fused_mul_add(kernels::load_as<A>(shared_byte(below)), w[2], v);
        if (in_taps & 8u) v = kernels::fused_mul_add(kernels::load_as<A>(shared_byte(below + 1)), w[3], v);
      }
      const T value = kernels::warp_output<T, typename Grid::Sample>(v, t[k].mask, Nearest, HasFill, fill);
      out_word |= static_cast<std::uint32_t>(value) << (8 * k);
    }
    if (whole_word) {
      *reinterpret_cast<std::uint32_t*>(store_at.plane + dst) = out_word;
    } else {
#pragma unroll
      for (int k = 0; k < kStagedPixels; ++k) {
        if (valid[k]) store_at.plane[dst + k * a.out.stride_w] = static_cast<T>(out_word >> (8 * k));
      }
    }
    store_at.advance(out_steps);
    buffer ^= kStagedWords;
    if (more) store(buffer);
    __syncthreads();
  }
}

// Whether rows, planes and width of an image batch of unit-stride bytes are whole aligned 32-bit
// words (what the staged kernel reads its input by and stores its output by).
inline bool word_rows(const kernels::ImageBatch& b) {
  const auto words = [](std::int64_t bytes) { return bytes % 4 == 0; };
  return b.stride_w == 1 && reinterpret_cast<std::uintptr_t>(b.data) % 4 == 0 && words(b.w) && words(b.stride_h) &&
         (b.c <= 1 || words(b.stride_c)) && (b.n <= 1 || words(b.stride_n));
}

// Whether the staged schedule may read `in` by aligned 32-bit words: uint8 rows of unit stride,
// every row and plane starting on a word, whole words a row (so no word reaches past a row's last
// byte) and a plane's words indexable by int.
inline bool staged_warp_fits(const kernels::ImageBatch& in) {
  static const bool direct = [] {
    const char* v = std::getenv("SV_WARP_SCHEDULE");
    return v != nullptr && std::strcmp(v, "direct") == 0;
  }();
  return !direct && word_rows(in) && in.h * in.stride_h / 4 < (std::int64_t{1} << 31) - kStagedWords;
}

// Launches the warp of `input` into `output` (both [N, C, H, W] image batches) for image dtype T.
// MayStage: whether uint8 may take warp_staged_kernel (measured for the affine and perspective
// grids; elastic's per-pixel flows were not timed on it and stay on warp_kernel).
template <class T, bool MayStage = true, class Grid>
void launch_warp(const Tensor& input, const Tensor& output, const Grid& grid, InterpolationMode mode, const Fill& fill,
                 const Stream& stream, const char* op) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const std::int64_t planes = out.n * out.c;
  WarpArgs<T> a{};
  a.in = in;
  a.out = out;
  a.in_planes = plane_set(in);
  a.out_planes = plane_set(out);
  a.planes = static_cast<std::uint32_t>(planes);
  a.div_c = kernels::FastDivmod(static_cast<std::uint32_t>(std::max<std::int64_t>(out.c, 1)));
  a.nearest = mode == InterpolationMode::Nearest;
  a.has_fill = fill.has_value();
  a.fill_count = fill ? static_cast<int>(fill->size()) : 1;
  if (fill) {
    for (std::size_t k = 0; k < fill->size() && k < kernels::kMaxFillValues; ++k) {
      a.fill[k] = kernels::fill_in_image_dtype<typename Grid::Sample>((*fill)[k]);
    }
  }
  LaunchScope scope(stream, op);
  if constexpr (MayStage && std::is_same_v<T, std::uint8_t>) {
    if (staged_warp_fits(in)) {
      const std::int64_t tiles_w = (out.w + kStagedTileW - 1) / kStagedTileW, tiles_h = (out.h + kStagedTileH - 1) / kStagedTileH;
      // Plane groups as for a thread per pixel, counting the staged kernel's threads (one per
      // kStagedPixels pixels), so that small images still fill the device.
      const PixelMajorGrid sg = pixel_major_grid(out.h, (out.w + kStagedPixels - 1) / kStagedPixels, planes, stream.device_index());
      a.planes_per_group = sg.planes_per_group;
      const dim3 blocks(static_cast<unsigned>(tiles_w * tiles_h), sg.grid.y);
      const PlaneSteps in_steps = plane_steps(in), out_steps = plane_steps(out);
      const bool word_out = word_rows(out);
      auto launch = [&](auto nearest, auto has_fill, auto one_step) {
        warp_staged_kernel<Grid, decltype(nearest)::value, decltype(has_fill)::value, decltype(one_step)::value>
            <<<blocks, kBlockThreads, 0, scope.handle()>>>(a, grid, static_cast<int>(tiles_w), in_steps, out_steps, word_out);
      };
      auto with_steps = [&](auto nearest, auto has_fill) {
        if (one_plane_step(in_steps) && one_plane_step(out_steps)) {
          launch(nearest, has_fill, std::true_type{});
        } else {
          launch(nearest, has_fill, std::false_type{});
        }
      };
      using Yes = std::true_type;
      using No = std::false_type;
      if (a.nearest) {
        a.has_fill ? with_steps(Yes{}, Yes{}) : with_steps(Yes{}, No{});
      } else {
        a.has_fill ? with_steps(No{}, Yes{}) : with_steps(No{}, No{});
      }
      scope.check_launch();
      return;
    }
  }
  // A thread per pixel (div_w splits a group's index into row and column; the staged kernel
  // walks tiles instead and uses neither).
  const PixelMajorGrid g = pixel_major_grid(out.h, out.w, planes, stream.device_index());
  a.planes_per_group = g.planes_per_group;
  a.div_w = g.div_w;
  warp_kernel<T, Grid><<<g.grid, kBlockThreads, 0, scope.handle()>>>(a, grid);
  scope.check_launch();
}

}  // namespace streamvision::cuda
