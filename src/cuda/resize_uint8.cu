// CUDA uint8 bicubic resize on torch's CPU integer path (kernels/resize_weights.hpp). A one-block
// kernel per dimension computes the double weights, their largest value, the fixed-point
// precision and the int16 weights (packed in pairs) into stream-ordered scratch. torch rounds the
// horizontal pass to uint8 before the vertical pass; both engines keep that two-stage rounding.
// Since the sums are exact int32 sums (no partial sum overflows: |w| < 2^15, at most a few dozen
// taps, bytes < 2^8), any summation order gives the same bits.
//
// Fused kernel (antialias, both dimensions change and the tiles fit in shared memory). A
// block owns a plane group (a plane, or all channels of a channels-last pixel run), a band of
// output rows and a tile of output columns, and walks the band's input rows top to bottom, up
// to kStageRows rows a step:
//
//  1. stage: the rows' byte span goes to shared memory as 16-byte loads (coalesced; all of a
//     thread's rows issued before any store, so several loads are in flight), zero-padded to the
//     staged pitch so that the word reads below never see unwritten bytes.
//  2. horizontal: a thread per output column (and channel) reads its taps as aligned 32-bit
//     shared words, funnel-shifted to the taps' byte offset, and multiplies 2 taps per DP2A
//     (dp2a.lo/hi.s32.u32: the packed int16 weight pair times two unsigned bytes, accumulated in
//     int32); each weight pair is loaded once for all staged rows. The sum is finished to uint8.
//  3. vertical: that uint8 value is added, times the row's weight, into the int32 accumulator of
//     every band output row that reads the input row. An output row's accumulator lives in a
//     shared ring slot (row index modulo a power of two at least the largest number of output
//     rows whose input spans overlap one row), touched only by the thread of that column, so no
//     barrier; the output is written as soon as its last input row is in.
//
// Why (64x3x1080x1920 -> 224x224, antialias: 37/21 taps per output column/row): the two-pass path
// read the input with a thread per output value (lanes 8.6 bytes apart, one load per byte pair)
// and sent a 1080x224 uint8 intermediate per plane through global memory. Here DRAM sees the
// input about once (bands overlap by ~16 of ~290 rows) and the output once. Per input row and
// output column: ~10 word loads + 10 funnel shifts + 19 DP2A for the horizontal pass (weights
// amortised over 4 rows) and ~4 read-modify-writes of ring accumulators: ~70 instructions, i.e.
// ~0.1 G warp instructions for the batch, ~0.1 ms of issue on 132 SMs. Shared traffic: the tap
// words of a warp span ~69 words (2-3 wavefronts per load), the ring accumulators are
// consecutive words (conflict-free), the staging stores are 16-byte and conflict-free. Measured
// on the H200: 0.90 ms (two passes: 1.35 ms); without antialias (4 taps) the band walk costs more
// than it saves (0.74 ms against 0.40 ms), so that case keeps the two passes. Blocks have a
// thread per output column (224) and ~16 KB of shared memory; registers are capped at 48 without spills (6
// blocks of 224 threads per SM; the tap loops are unrolled only 2x for that). The band height is
// chosen on the host from the device's residency so that the SMs get equal work with few re-read
// rows.
//
// Without antialias (4 taps a dimension): one direct kernel, a thread per output pixel.
//
// Fallback (one dimension unchanged: no pass for it, as torch; or tiles that do not fit): a pass
// per dimension, a thread per output value, through a uint8 intermediate [planes, H_in, W_out].
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "cuda/byte_quad.cuh"
#include "cuda/geometry.cuh"
#include "cuda/resize.cuh"
#include "core/tensor_views.hpp"
#include "kernels/resize_weights.hpp"

namespace streamvision::cuda {

namespace {

constexpr int kTableThreads = 512;

// One dimension's tables. The weights are packed in pairs, pair-major so that neighbouring
// outputs (lanes) read neighbouring words: pairs[p * size + i] holds w[2p] (low 16 bits) and
// w[2p + 1] (high, 0 past the last tap) of output i.
struct Int16Table {
  int* xmin;
  int* xsize;
  unsigned* pairs;
  double* wd;  // double weights, row-major wd[i * taps + j] (the table kernel's scratch)
  int* precision;
  int taps, size;
};

SV_HOST_DEVICE SV_FORCE_INLINE int pair_count(int taps) { return (taps + 1) / 2; }

// blockIdx.x selects the dimension.
__global__ void __launch_bounds__(kTableThreads) int16_tables_kernel(kernels::Int16Dim d0, kernels::Int16Dim d1,
                                                                       Int16Table t0, Int16Table t1) {
  const kernels::Int16Dim& d = blockIdx.x == 0 ? d0 : d1;
  const Int16Table& t = blockIdx.x == 0 ? t0 : t1;
  __shared__ double block_max[kTableThreads];
  double local = 0.0;
  for (int i = static_cast<int>(threadIdx.x); i < d.out_size; i += kTableThreads) {
    local = fmax(local, kernels::int16_source_weights(d, i, t.xmin[i], t.xsize[i], t.wd + static_cast<std::int64_t>(i) * t.taps));
  }
  block_max[threadIdx.x] = local;
  __syncthreads();
  for (int s = kTableThreads / 2; s > 0; s /= 2) {
    if (static_cast<int>(threadIdx.x) < s) block_max[threadIdx.x] = fmax(block_max[threadIdx.x], block_max[threadIdx.x + s]);
    __syncthreads();
  }
  const int precision = kernels::int16_precision(block_max[0]);
  if (threadIdx.x == 0) *t.precision = precision;
  const std::int64_t count = static_cast<std::int64_t>(d.out_size) * pair_count(t.taps);
  for (std::int64_t k = threadIdx.x; k < count; k += kTableThreads) {
    const std::int64_t p = k / d.out_size, i = k % d.out_size;
    const double* w = t.wd + i * t.taps;
    const unsigned lo = static_cast<std::uint16_t>(kernels::int16_weight(w[2 * p], precision));
    const unsigned hi = 2 * p + 1 < t.taps ? static_cast<std::uint16_t>(kernels::int16_weight(w[2 * p + 1], precision)) : 0u;
    t.pairs[k] = lo | (hi << 16);
  }
}

// Threads per fused block: at most one per output column (and channel) of a tile.
constexpr int kFusedThreads = 256;
// Input rows staged and filtered per step (and horizontal sums a thread computes at once).
constexpr int kStageRows = 4;
// Bytes a thread stages per row and load.
constexpr int kLoadBytes = 16;
// Output rows of a band at most (the band's row spans are kept in shared memory).
constexpr int kMaxBand = 64;
constexpr std::int64_t kSharedBudget = 48 * 1024;

struct FusedArgs : PlaneGroups {  // loads of kLoadBytes
  kernels::ImageBatch in, out;
  int tile_h, tile_w, col_tiles;
  int stage_rows;  // rows per step, 1..kStageRows
  int pitch;       // staged row pitch in bytes: a multiple of kLoadBytes
  int ring_mask;   // ring slots - 1 (a power of two)
  Int16Table tx, ty;
};

// Shared bytes of the band's row spans, rounded so that the staged rows after them stay aligned.
SV_HOST_DEVICE constexpr std::int64_t rows_bytes(int tile_h) { return (tile_h * std::int64_t{sizeof(int2)} + 15) / 16 * 16; }

__global__ void __launch_bounds__(kFusedThreads, 5) fused_kernel(FusedArgs a) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  int2* rows = reinterpret_cast<int2*>(smem_raw);  // [tile_h]: each band output row's input rows {first, end}
  std::uint8_t* stage = smem_raw + rows_bytes(a.tile_h);                                 // [stage_rows][pitch]
  std::int32_t* ring = reinterpret_cast<std::int32_t*>(stage + a.stage_rows * a.pitch);  // [slots][outputs]

  const ResampleTile t = resample_tile(a);  // the tile reads bytes [run0, run0 + span) of a row
  const int oy0 = t.oy0, count = t.oy1 - t.oy0, ox0 = t.ox0, ox1 = t.ox1, xs0 = t.xs0, span = t.span, run0 = t.run0;
  const int g = a.group;
  const int shift = a.vector_loads ? run0 % kLoadBytes : 0;  // so that loads are aligned
  const int outputs = (ox1 - ox0) * g;
  const int px = *a.tx.precision, py = *a.ty.precision;
  const int threads = static_cast<int>(blockDim.x);

  for (int i = static_cast<int>(threadIdx.x); i < count; i += threads) {
    rows[i] = make_int2(a.ty.xmin[oy0 + i], a.ty.xmin[oy0 + i] + a.ty.xsize[oy0 + i]);
  }
  __syncthreads();
  // Input rows the band reads: from its first output's first row (first rows never decrease) to
  // the largest end.
  int band_end = 0;
  for (int i = 0; i < count; ++i) band_end = max(band_end, rows[i].y);

  for (std::uint32_t p = blockIdx.y; p < a.planes; p += gridDim.y) {
    const std::uint32_t n = p / static_cast<std::uint32_t>(a.groups), c0 = (p % static_cast<std::uint32_t>(a.groups)) * g;
    const std::uint8_t* plane = static_cast<const std::uint8_t*>(a.in.data) + n * a.in.stride_n + c0 * a.in.stride_c;
    std::uint8_t* out_plane = static_cast<std::uint8_t*>(a.out.data) + n * a.out.stride_n + c0 * a.out.stride_c;
    int first = 0;  // first band output row not finished before this step
    for (int y = rows[0].x; y < band_end; y += a.stage_rows) {
      const int nr = min(a.stage_rows, band_end - y);
      // 1. Stage rows y .. y + nr - 1 over the whole pitch (zeros outside the span).
      for (int e = static_cast<int>(threadIdx.x) * kLoadBytes - shift; e < a.pitch - shift; e += threads * kLoadBytes) {
        const std::uint8_t* row = plane + static_cast<std::int64_t>(y) * a.in.stride_h + (a.contiguous ? run0 : 0);
        std::uint8_t* dst = stage + e + shift;
        if (a.vector_loads && e >= 0 && e + kLoadBytes <= span) {
          uint4 v[kStageRows];  // 16 bytes a row
#pragma unroll
          for (int r = 0; r < kStageRows; ++r) {
            v[r] = r < nr ? *reinterpret_cast<const uint4*>(row + r * a.in.stride_h + e) : uint4{};
          }
#pragma unroll
          for (int r = 0; r < kStageRows; ++r) {
            if (r < nr) *reinterpret_cast<uint4*>(dst + r * a.pitch) = v[r];
          }
        } else {
          // Unaligned or strided rows and the span's edges: byte by byte (kept rolled, so that
          // this path costs the hot loops no registers).
          for (int r = 0; r < nr; ++r) {
#pragma unroll 1
            for (int k = 0; k < kLoadBytes; ++k) {
              const int idx = e + k;
              std::uint8_t b = 0;
              if (idx >= 0 && idx < span) {
                const int run = run0 + idx;
                b = a.contiguous ? row[r * a.in.stride_h + idx]
                                 : row[r * a.in.stride_h + static_cast<std::int64_t>(run / g) * a.in.stride_w +
                                       static_cast<std::int64_t>(run % g) * a.in.stride_c];
              }
              dst[r * a.pitch + k] = b;
            }
          }
        }
      }
      __syncthreads();
      // 2. Horizontal sums of this thread's columns for the staged rows (rows past nr repeat the
      // last staged row; their sums are not used), then 3. the vertical accumulation.
      while (first < count && rows[first].y <= y) ++first;
      for (int q = static_cast<int>(threadIdx.x); q < outputs; q += threads) {
        const int ox = ox0 + q / g, c = q % g;
        const int taps = a.tx.xsize[ox], pairs = pair_count(taps);
        const unsigned* wx = a.tx.pairs + ox;  // pair k at wx[k * size]
        const int at = (a.tx.xmin[ox] - xs0) * g + c + shift;  // first tap's staged byte
        std::int32_t h[kStageRows];
#pragma unroll
        for (int r = 0; r < kStageRows; ++r) h[r] = kernels::int16_bias(px);
        if (g == 1) {
          // Taps 4k .. 4k + 3 are bytes 0..3 of words k and k + 1 shifted right by the first tap's
          // byte offset; the reads end a few bytes past the span, inside the zero-padded pitch.
          const unsigned* words[kStageRows];  // each row's word holding the first tap
          unsigned lo[kStageRows];
#pragma unroll
          for (int r = 0; r < kStageRows; ++r) {
            words[r] = reinterpret_cast<const unsigned*>(stage + min(r, nr - 1) * a.pitch) + (at >> 2);
            lo[r] = words[r][0];
          }
          const unsigned bits = 8u * static_cast<unsigned>(at & 3);
          const unsigned* w = wx;
#pragma unroll 2
          for (int k = 0; 2 * k < pairs; ++k, w += 2 * static_cast<std::int64_t>(a.tx.size)) {
            const unsigned w01 = w[0];
            const unsigned w23 = 2 * k + 1 < pairs ? w[a.tx.size] : 0u;
#pragma unroll
            for (int r = 0; r < kStageRows; ++r) {
              const unsigned hi = words[r][k + 1];
              const unsigned four = __funnelshift_r(lo[r], hi, bits);
              h[r] = dot2<true>(w23, four, dot2<false>(w01, four, h[r]));
              lo[r] = hi;
            }
          }
        } else {
#pragma unroll 1
          for (int k = 0; k < pairs; ++k) {
            const unsigned w = wx[static_cast<std::int64_t>(k) * a.tx.size];
#pragma unroll
            for (int r = 0; r < kStageRows; ++r) {
              const std::uint8_t* s = stage + min(r, nr - 1) * a.pitch + at + 2 * k * g;
              const unsigned two = s[0] | (2 * k + 1 < taps ? static_cast<unsigned>(s[g]) << 8 : 0u);
              h[r] = dot2<false>(w, two, h[r]);
            }
          }
        }
#pragma unroll
        for (int r = 0; r < kStageRows; ++r) {
          if (r >= nr) break;
          const std::int32_t v = kernels::int16_finish(h[r], px);
          const int yr = y + r;
          for (int i = first; i < count && rows[i].x <= yr; ++i) {
            if (yr >= rows[i].y) continue;
            const int t = yr - rows[i].x, oy = oy0 + i;
            const unsigned pair = a.ty.pairs[static_cast<std::int64_t>(t >> 1) * a.ty.size + oy];
            std::int32_t& acc = ring[(i & a.ring_mask) * outputs + q];
            const std::int32_t s = (t == 0 ? kernels::int16_bias(py) : acc) + v * ((t & 1) ? high_weight(pair) : low_weight(pair));
            if (yr + 1 == rows[i].y) {
              out_plane[c * a.out.stride_c + oy * a.out.stride_h + ox * a.out.stride_w] = kernels::int16_finish(s, py);
            } else {
              acc = s;
            }
          }
        }
      }
      __syncthreads();
    }
  }
}

// Host copy of one dimension's tap spans (the weights themselves are computed on the device).
void int16_spans(const kernels::Int16Dim& d, std::vector<int>& xmin, std::vector<int>& xsize) {
  xmin.resize(static_cast<std::size_t>(d.out_size));
  xsize.resize(static_cast<std::size_t>(d.out_size));
  std::vector<double> w(static_cast<std::size_t>(d.max_taps));
  for (int i = 0; i < d.out_size; ++i) kernels::int16_source_weights(d, i, xmin[i], xsize[i], w.data());
}

struct FusedPlan {
  FusedArgs a{};
  dim3 grid;
  int threads = 0;
  std::int64_t shared = 0;
};

// The fused kernel's launch for in -> out (tables left to the caller), or nullopt where a tile's
// shared memory would not fit the budget.
std::optional<FusedPlan> plan_fused(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const kernels::Int16Dim& dx,
                                    const kernels::Int16Dim& dy, int device) {
  FusedPlan plan;
  FusedArgs& a = plan.a;
  a.in = in;
  a.out = out;
  static_cast<PlaneGroups&>(a) = plane_groups(in, 1, kLoadBytes);

  std::vector<int> xmin, xsize, ymin, ysize;
  int16_spans(dx, xmin, xsize);
  int16_spans(dy, ymin, ysize);
  // Ring slots: the most output rows whose input spans share a row (first and last rows never
  // decrease, so the live rows are consecutive and distinct modulo the slot count), plus one for
  // a span the device's weight arithmetic might round one row wider.
  std::vector<int> live(static_cast<std::size_t>(in.h) + 1, 0);
  for (std::int64_t i = 0; i < out.h; ++i) {
    ++live[ymin[i]];
    --live[ymin[i] + ysize[i]];
  }
  int most = 0;
  for (std::int64_t y = 0, now = 0; y < in.h; ++y) most = std::max<int>(most, static_cast<int>(now += live[y]));
  int slots = 1;
  while (slots < most + 1) slots *= 2;
  a.ring_mask = slots - 1;

  const int g = a.group;
  // Staged pitch of a column tile: its widest span, two taps of margin for the device's rounding,
  // the aligned start and the word reads' overhang, in whole loads.
  auto pitch = [&](int tile_w) {
    std::int64_t widest = 0;
    for (int x0 = 0; x0 < out.w; x0 += tile_w) {
      const int x1 = std::min<int>(x0 + tile_w, static_cast<int>(out.w));
      widest = std::max<std::int64_t>(widest, static_cast<std::int64_t>(xmin[x1 - 1] + xsize[x1 - 1] - xmin[x0] + 2) * g);
    }
    return (widest + (kLoadBytes - 1) + 8 + kLoadBytes - 1) / kLoadBytes * kLoadBytes;
  };
  int tile_w = static_cast<int>(out.w), stage_rows = kStageRows;
  auto shared_bytes = [&](int tile_h) {
    return rows_bytes(tile_h) + stage_rows * pitch(tile_w) + std::int64_t{slots} * tile_w * g * std::int64_t{sizeof(std::int32_t)};
  };
  while (tile_w > 1 && shared_bytes(kMaxBand) > kSharedBudget) tile_w = (tile_w + 1) / 2;
  while (stage_rows > 1 && shared_bytes(kMaxBand) > kSharedBudget) stage_rows /= 2;
  if (shared_bytes(kMaxBand) > kSharedBudget) return std::nullopt;
  a.tile_w = tile_w;
  a.stage_rows = stage_rows;
  a.pitch = static_cast<int>(pitch(tile_w));
  a.col_tiles = static_cast<int>((out.w + tile_w - 1) / tile_w);
  plan.threads = static_cast<int>(std::min<std::int64_t>(kFusedThreads, (std::int64_t{tile_w} * g + 31) / 32 * 32));

  // Band height: the least work for the busiest SM, counted in input rows per block times blocks
  // per SM (at least 4 resident, to hide latency; whole waves once the SM is full), so that the
  // SMs get equal shares with few rows read twice at band edges.
  int resident = 1;
  SV_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, fused_kernel, plan.threads, shared_bytes(kMaxBand)),
                "resize");
  resident = std::max(resident, 1);
  const std::int64_t sms = multiprocessor_count(device);
  std::vector<int> end_max(static_cast<std::size_t>(out.h));
  for (std::int64_t i = 0, m = 0; i < out.h; ++i) end_max[i] = static_cast<int>(m = std::max<std::int64_t>(m, ymin[i] + ysize[i]));
  std::int64_t best = -1;
  for (int tile_h = 1; tile_h <= std::min<std::int64_t>(out.h, kMaxBand); ++tile_h) {
    const std::int64_t bands = (out.h + tile_h - 1) / tile_h;
    std::int64_t per_sm = (bands * a.col_tiles * a.planes + sms - 1) / sms;
    if (per_sm > resident) per_sm = (per_sm + resident - 1) / resident * resident;
    std::int64_t rows = 0;
    for (std::int64_t y0 = 0; y0 < out.h; y0 += tile_h) {
      rows = std::max<std::int64_t>(rows, end_max[std::min<std::int64_t>(y0 + tile_h, out.h) - 1] - ymin[y0]);
    }
    const std::int64_t cost = std::max<std::int64_t>(per_sm, 4) * (rows + 4);
    if (best < 0 || cost < best) {
      best = cost;
      a.tile_h = tile_h;
    }
  }
  plan.shared = shared_bytes(a.tile_h);
  const std::int64_t bands = (out.h + a.tile_h - 1) / a.tile_h;
  if (bands * a.col_tiles >= (std::int64_t{1} << 31)) return std::nullopt;
  plan.grid = dim3(static_cast<unsigned>(bands * a.col_tiles), static_cast<unsigned>(std::min<std::int64_t>(a.planes, 65535)));
  return plan;
}

// What the per-pixel kernels (a pass, the direct kernel) share: the planes and the grid.
struct PlaneKernelArgs {
  const std::uint8_t* src;
  std::uint8_t* dst;
  PlaneSet src_planes, dst_planes;
  std::int64_t src_sh, src_sw, dst_sh, dst_sw;
  int dst_h;
  std::uint32_t planes, planes_per_group;
  kernels::FastDivmod div_w;
};

PlaneKernelArgs plane_kernel_args(const kernels::ImageBatch& src, const kernels::ImageBatch& dst, const PixelMajorGrid& g) {
  return {static_cast<const std::uint8_t*>(src.data), static_cast<std::uint8_t*>(dst.data), plane_set(src), plane_set(dst),
          src.stride_h, src.stride_w, dst.stride_h, dst.stride_w, static_cast<int>(dst.h),
          static_cast<std::uint32_t>(dst.n * dst.c), g.planes_per_group, g.div_w};
}

// This thread's output pixel (y, x), or false past the last row.
__device__ SV_FORCE_INLINE bool output_pixel(const PlaneKernelArgs& a, std::uint32_t& y, std::uint32_t& x) {
  a.div_w.divmod(blockIdx.x * kBlockThreads + threadIdx.x, y, x);
  return y < static_cast<std::uint32_t>(a.dst_h);
}

struct PassArgs : PlaneKernelArgs {
  int row_words;  // word path: whole 32-bit words in a source row (0: word path off)
  bool horizontal;
  Int16Table t;
};

__global__ void __launch_bounds__(kBlockThreads) int16_pass_kernel(PassArgs a) {
  std::uint32_t y, x;
  if (!output_pixel(a, y, x)) return;
  const int i = a.horizontal ? static_cast<int>(x) : static_cast<int>(y);
  const int start = a.t.xmin[i], n = a.t.xsize[i], pairs = pair_count(n);
  const unsigned* w = a.t.pairs + i;  // pair p at w[p * size]
  const int precision = *a.t.precision;
  const std::int64_t step = a.horizontal ? a.src_sw : a.src_sh;
  const std::int64_t first = a.horizontal ? y * a.src_sh + start * a.src_sw : start * a.src_sh + x * a.src_sw;
  const std::int64_t dst = y * a.dst_sh + x * a.dst_sw;
  // Word path (horizontal, 4-byte aligned contiguous rows): the taps' bytes come from aligned
  // 32-bit loads, two at a time funnel-shifted into place; it reads words [start/4, last] with
  // last = start/4 + 1 + ((start % 4) + 2 * pairs) / 4, which must lie inside the row.
  const bool words = a.horizontal && a.row_words > 0 && (start >> 2) + 1 + (((start & 3) + 2 * pairs) >> 2) < a.row_words;
  std::uint32_t p0, p1;
  plane_range(a.planes, a.planes_per_group, p0, p1);
  for (std::uint32_t p = p0; p < p1; ++p) {
    const std::uint8_t* plane = a.src + a.src_planes.offset(p);
    std::int32_t acc = kernels::int16_bias(precision);
    if (words) {
      const unsigned* word = reinterpret_cast<const unsigned*>(plane + y * a.src_sh) + (start >> 2);
      unsigned lo = word[0], hi = word[1];
      int next = 2, offset = start & 3;
      for (int q = 0; q < pairs; ++q) {
        const unsigned two = __funnelshift_r(lo, hi, 8u * static_cast<unsigned>(offset));
        const unsigned pair = w[static_cast<std::int64_t>(q) * a.t.size];
        acc += static_cast<std::int32_t>(two & 0xFFu) * low_weight(pair) + static_cast<std::int32_t>((two >> 8) & 0xFFu) * high_weight(pair);
        offset += 2;
        if (offset >= 4) {
          offset -= 4;
          lo = hi;
          hi = word[next++];
        }
      }
    } else {
      const std::uint8_t* s = plane + first;
      for (int q = 0; q < pairs; ++q) {
        const unsigned pair = w[static_cast<std::int64_t>(q) * a.t.size];
        acc += static_cast<std::int32_t>(s[2 * q * step]) * low_weight(pair);
        if (2 * q + 1 < n) acc += static_cast<std::int32_t>(s[(2 * q + 1) * step]) * high_weight(pair);
      }
    }
    a.dst[a.dst_planes.offset(p) + dst] = kernels::int16_finish(acc, precision);
  }
}

// Without antialias (4 taps a dimension, both dimensions resized): a thread per output pixel
// computes the horizontal sums of its 4 input rows, finishes each to uint8 as the horizontal pass
// would, and filters those vertically; the taps and weights are read once for its planes. Same
// sums, same roundings as the two passes (exact int32 sums), without their intermediate: the
// two passes read the whole input with a thread per 1080 x 224 intermediate value and sent the
// intermediate through global memory (0.40 ms for 64x3x1080x1920 -> 224 on the H200).
constexpr int kDirectTaps = 4;

struct DirectArgs : PlaneKernelArgs {
  Int16Table tx, ty;
};

// Taps of output i of one dimension: offsets (stride times index; a tap past the span repeats the
// first, with weight 0, so that it reads inside the plane) and weights.
struct DirectTaps {
  std::int64_t offset[kDirectTaps];
  std::int32_t w[kDirectTaps];
};

__device__ SV_FORCE_INLINE DirectTaps direct_taps(const Int16Table& t, int i, std::int64_t stride) {
  DirectTaps d;
  const int start = t.xmin[i], n = t.xsize[i];
#pragma unroll
  for (int q = 0; q < kDirectTaps / 2; ++q) {
    const unsigned pair = t.pairs[static_cast<std::int64_t>(q) * t.size + i];
    d.w[2 * q] = 2 * q < n ? low_weight(pair) : 0;
    d.w[2 * q + 1] = 2 * q + 1 < n ? high_weight(pair) : 0;
  }
#pragma unroll
  for (int j = 0; j < kDirectTaps; ++j) d.offset[j] = static_cast<std::int64_t>(j < n ? start + j : start) * stride;
  return d;
}

__global__ void __launch_bounds__(kBlockThreads) int16_direct_kernel(DirectArgs a) {
  std::uint32_t y, x;
  if (!output_pixel(a, y, x)) return;
  const DirectTaps tx = direct_taps(a.tx, static_cast<int>(x), a.src_sw);
  const DirectTaps ty = direct_taps(a.ty, static_cast<int>(y), a.src_sh);
  const int px = *a.tx.precision, py = *a.ty.precision;
  const std::int64_t dst = y * a.dst_sh + x * a.dst_sw;
  std::uint32_t p0, p1;
  plane_range(a.planes, a.planes_per_group, p0, p1);
  for (std::uint32_t p = p0; p < p1; ++p) {
    const std::uint8_t* plane = a.src + a.src_planes.offset(p);
    std::int32_t acc = kernels::int16_bias(py);
#pragma unroll
    for (int r = 0; r < kDirectTaps; ++r) {
      const std::uint8_t* row = plane + ty.offset[r];
      std::int32_t h = kernels::int16_bias(px);
#pragma unroll
      for (int j = 0; j < kDirectTaps; ++j) h += static_cast<std::int32_t>(__ldg(row + tx.offset[j])) * tx.w[j];
      acc += static_cast<std::int32_t>(kernels::int16_finish(h, px)) * ty.w[r];
    }
    a.dst[a.dst_planes.offset(p) + dst] = kernels::int16_finish(acc, py);
  }
}

void direct(const kernels::ImageBatch& src, const kernels::ImageBatch& dst, const Int16Table& tx, const Int16Table& ty,
            LaunchScope& scope, int device) {
  const PixelMajorGrid g = pixel_major_grid(dst.h, dst.w, dst.n * dst.c, device);
  const DirectArgs a{plane_kernel_args(src, dst, g), tx, ty};
  int16_direct_kernel<<<g.grid, kBlockThreads, 0, scope.handle()>>>(a);
  scope.check_launch();
}

void pass(const kernels::ImageBatch& src, const kernels::ImageBatch& dst, const Int16Table& t, bool horizontal,
          LaunchScope& scope, int device) {
  const PixelMajorGrid g = pixel_major_grid(dst.h, dst.w, dst.n * dst.c, device);
  // The word path needs 4-byte aligned contiguous rows in every plane.
  const bool aligned = src.stride_w == 1 && reinterpret_cast<std::uintptr_t>(src.data) % 4 == 0 && src.stride_h % 4 == 0 &&
                       src.stride_n % 4 == 0 && src.stride_c % 4 == 0;
  const int row_words = horizontal && aligned ? static_cast<int>(src.w / 4) : 0;
  const PassArgs a{plane_kernel_args(src, dst, g), row_words, horizontal, t};
  int16_pass_kernel<<<g.grid, kBlockThreads, 0, scope.handle()>>>(a);
  scope.check_launch();
}

}  // namespace

void resize_uint8_bicubic(const Tensor& input, const Tensor& output, bool antialias, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const bool horizontal = in.w != out.w, vertical = in.h != out.h;
  const kernels::Int16Dim dx = kernels::make_int16_dim(in.w, out.w, antialias);
  const kernels::Int16Dim dy = kernels::make_int16_dim(in.h, out.h, antialias);
  LaunchScope scope(stream, "resize");
  // Fused for antialias only: without it (4 taps) the band walk measured slower than even the two
  // passes on the H200 (1080p -> 224: 0.74 ms against 0.40 ms; with antialias 0.90 fused, 1.35 ms
  // two-pass); without antialias the direct kernel replaces the two passes.
  const std::optional<FusedPlan> fused =
      antialias && horizontal && vertical ? plan_fused(in, out, dx, dy, stream.device_index()) : std::nullopt;
  const bool one_kernel = !antialias && horizontal && vertical && dx.max_taps == kDirectTaps && dy.max_taps == kDirectTaps;
  const bool two_passes = horizontal && vertical && !fused && !one_kernel;
  auto table_bytes = [](const kernels::Int16Dim& d) {
    return 2 * Scratch::aligned_bytes<int>(d.out_size) +
           Scratch::aligned_bytes<unsigned>(std::int64_t{d.out_size} * pair_count(d.max_taps)) +
           Scratch::aligned_bytes<double>(std::int64_t{d.out_size} * d.max_taps) + Scratch::aligned_bytes<int>(1);
  };
  const std::int64_t mid_count = two_passes ? out.n * out.c * in.h * out.w : 0;
  Scratch scratch(table_bytes(dx) + table_bytes(dy) + Scratch::aligned_bytes<std::uint8_t>(mid_count), input.device(), stream);
  auto table = [&](const kernels::Int16Dim& d) {
    Int16Table t{};
    t.xmin = scratch.take<int>(d.out_size);
    t.xsize = scratch.take<int>(d.out_size);
    t.pairs = scratch.take<unsigned>(std::int64_t{d.out_size} * pair_count(d.max_taps));
    t.wd = scratch.take<double>(std::int64_t{d.out_size} * d.max_taps);
    t.precision = scratch.take<int>(1);
    t.taps = d.max_taps;
    t.size = d.out_size;
    return t;
  };
  const Int16Table tx = table(dx), ty = table(dy);
  std::uint8_t* mid_data = scratch.take<std::uint8_t>(mid_count);

  int16_tables_kernel<<<2, kTableThreads, 0, scope.handle()>>>(dx, dy, tx, ty);
  scope.check_launch();
  if (fused) {
    FusedArgs a = fused->a;
    a.tx = tx;
    a.ty = ty;
    fused_kernel<<<fused->grid, fused->threads, static_cast<std::size_t>(fused->shared), scope.handle()>>>(a);
    scope.check_launch();
  } else if (one_kernel) {
    direct(in, out, tx, ty, scope, stream.device_index());
  } else if (two_passes) {
    const kernels::ImageBatch mid = kernels::int16_intermediate(mid_data, in, out);
    pass(in, mid, tx, true, scope, stream.device_index());
    pass(mid, out, ty, false, scope, stream.device_index());
  } else if (horizontal) {
    pass(in, out, tx, true, scope, stream.device_index());
  } else {
    pass(in, out, ty, false, scope, stream.device_index());
  }
}

}  // namespace streamvision::cuda
