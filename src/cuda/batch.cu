// CUDA resized_crop_batch: crop, antialiased bilinear resize, horizontal flip, to_dtype and
// normalize of a whole batch in two launches, with each image's box and flip read on the device.
//
// The arithmetic is resize_antialias.cu's, value for value: the vertical filter of every input
// column the crop spans (kernels::aa_weights' weights, first product then fused multiply-adds in
// tap order; for uint8 images exact int32 sums of the weights in fixed point, two taps per DP2A:
// kernels::fixed_precision), then the horizontal filter of those sums, rounded by resize_output,
// then the to_dtype and normalize functors. Only the schedule differs: the weights are computed
// on the device from each image's own box (make_aa_dim there) instead of read from tables.
//
// Two schedules, same arithmetic. The tiled one (tile_kernel) is one launch: a block makes a
// tile of output rows and columns of one image, its vertical sums in shared memory. Its shared
// memory is sized on the host from a bound on every image's scale (a box is never wider than its
// image); it serves uint8 batches and others downscaled at least ~3x each way (prefers_tiles)
// whose tile span fits.
// The rest (float images at milder scales, where the two-pass schedule measured faster, and downscales beyond ~20x)
// take the two-pass schedule, whose vertical sums go through global scratch, [N, C, out_h, widest
// image] floats. The scratch round trip was most of the two-pass time: 0.42 ms of 0.52 for a
// 64x1080p batch resized to 224 (e4ce7e1 on the H200), for 0.17 GB of input.
//
// Images travel in the kernel arguments (kMaxImages per launch, ~10 KB of parameters: CUDA 12.1+
// allows 32 KB), so no table is copied from the host and a graph capture records everything.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "cuda/batch_tail.cuh"
#include "cuda/byte_quad.cuh"
#include "cuda/launch.hpp"
#include "cuda/resize.cuh"
#include "kernels/resize_weights.hpp"
#include "streamvision/functional/batch.hpp"

namespace streamvision::cuda {

namespace {

constexpr int kMaxImages = 192;
constexpr int kChannels = ops::ResizedCropBatch::kMaxChannels;

struct ImageDesc {
  const void* data;
  std::int32_t h, w;
  std::int64_t stride_c, stride_h, stride_w;  // elements
};

struct ImageTable {
  ImageDesc image[kMaxImages];
};

// Image n's box, clamped into the image (the device cannot raise; see batch.hpp).
struct Box {
  int top, left, h, w;
};

// The output's strides in elements ([N, C, out_h, out_w] contiguous or channels-last): the
// kernels write either layout directly.
struct OutStrides {
  std::int64_t n, c, h, w;
};

// Where the images' boxes and flips come from: arrays on the device indexed by image, or one box
// and one flip for every image held in the kernel arguments (a uniform batch: Resize then
// CenterCrop, or one draw per call; nothing is made or copied on the device for them).
struct PerImage {
  const std::int64_t* boxes;  // [N, 4] of the whole batch, or null: `box` for every image
  const bool* hflip;          // [N], or null: `flip` for every image
  std::int64_t box[4];
  bool flip;
};

__device__ SV_FORCE_INLINE Box load_box(const PerImage& p, const ImageDesc& d, std::int64_t n) {
  std::int64_t b[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) b[k] = p.boxes != nullptr ? p.boxes[4 * n + k] : p.box[k];
  Box r;
  r.top = static_cast<int>(min(max(b[0], std::int64_t{0}), std::int64_t{d.h - 1}));
  r.left = static_cast<int>(min(max(b[1], std::int64_t{0}), std::int64_t{d.w - 1}));
  r.h = static_cast<int>(min(max(b[2], std::int64_t{1}), std::int64_t{d.h - r.top}));
  r.w = static_cast<int>(min(max(b[3], std::int64_t{1}), std::int64_t{d.w - r.left}));
  return r;
}

__device__ SV_FORCE_INLINE bool load_flip(const PerImage& p, std::int64_t n) { return p.hflip != nullptr ? p.hflip[n] : p.flip; }

// Taps of output index i of dimension d: [xmin, xmin + xsize), as kernels::aa_weights gives them.
template <class A>
struct Taps {
  int xmin, xsize;
  A xmin_m_center, total;
  A peak;  // the largest |filter value| of the taps: the largest |weight| is peak / |total|
};

template <class A>
__device__ SV_FORCE_INLINE Taps<A> taps(const kernels::AaDim<A>& d, int i) {
  Taps<A> t;
  const A center = d.scale * (static_cast<A>(i) + A(0.5));
  const int lo = static_cast<int>(center - d.support + A(0.5));
  t.xmin = lo > 0 ? lo : 0;
  const int hi = static_cast<int>(center + d.support + A(0.5));
  t.xsize = (hi < d.in_size ? hi : d.in_size) - t.xmin;
  if (t.xsize > d.max_taps) t.xsize = d.max_taps;
  if (t.xsize < 0) t.xsize = 0;
  t.xmin_m_center = static_cast<A>(t.xmin) - center;
  A total = 0, peak = 0;
  for (int j = 0; j < t.xsize; ++j) {
    const A v = kernels::aa_filter(d.filter, (static_cast<A>(j) + t.xmin_m_center + A(0.5)) * d.invscale);
    total += v;
    peak = max(peak, v < A(0) ? -v : v);
  }
  t.total = total;
  t.peak = peak;
  return t;
}

template <class A>
__device__ SV_FORCE_INLINE A tap_weight(const kernels::AaDim<A>& d, const Taps<A>& t, int j) {
  const A v = kernels::aa_filter(d.filter, (static_cast<A>(j) + t.xmin_m_center + A(0.5)) * d.invscale);
  return t.total != A(0) ? v / t.total : v;
}

// The fixed-point precision of a uint8 image's vertical weights for taps t (kernels::fixed_precision
// of their largest |weight|: the division is monotonic, so peak / |total| is that weight's value).
template <class A>
__device__ SV_FORCE_INLINE int fixed_precision_of(const Taps<A>& t) {
  const A total = t.total < A(0) ? -t.total : t.total;
  return kernels::fixed_precision(static_cast<double>(total != A(0) ? t.peak / total : t.peak));
}

// The packed int16 weights p (taps 2p, 2p + 1) of taps t at `precision`.
template <class A>
__device__ SV_FORCE_INLINE unsigned fixed_pair(const kernels::AaDim<A>& d, const Taps<A>& t, int p, int precision) {
  const int j = 2 * p;
  const A w0 = j < t.xsize ? tap_weight(d, t, j) : A(0), w1 = j + 1 < t.xsize ? tap_weight(d, t, j + 1) : A(0);
  return kernels::pack_int16_pair(kernels::int16_weight(static_cast<double>(w0), precision),
                                  kernels::int16_weight(static_cast<double>(w1), precision));
}

template <class A>
struct VerticalArgs {
  ImageTable table;
  PerImage per_image;         // of the whole batch; this launch's images start at `first`
  std::int64_t first;
  A* tmp;                     // [images, C, out_h, pitch]
  int channels, out_h, pitch;
  int resize_h, win_top;      // rows resized to resize_h; output row oy is resized row oy + win_top
  kernels::ResampleFilter filter;
};

// A block per (image, channel, output row): the vertical filter. The row's taps and weights are
// the same for the whole block: computed once into shared memory (the total by one thread, in tap
// order, as aa_weights sums it); each thread then filters kColumns consecutive columns, striding
// over the crop's width. The block is small (kVerticalThreads) because crops are a few hundred
// columns wide: with 256 threads and no stride, two thirds of the threads of an ImageNet-sized
// crop had no column (the kernel took 0.44 ms of a 256-image batch's 0.79, ff59c01 on the H200).
constexpr int kColumns = 4;
constexpr int kVerticalThreads = 64;
constexpr int kMaxSharedTaps = 256;

template <class T, class A>
__global__ void __launch_bounds__(kVerticalThreads) vertical_kernel(VerticalArgs<A> a) {
  __shared__ A weights[kMaxSharedTaps];
  __shared__ Taps<A> row_taps;
  const int oy = static_cast<int>(blockIdx.y);
  const int n = static_cast<int>(blockIdx.z) / a.channels, c = static_cast<int>(blockIdx.z) % a.channels;
  const ImageDesc& d = a.table.image[n];
  const Box box = load_box(a.per_image, d, a.first + n);
  const kernels::AaDim<A> dy = kernels::make_aa_dim<A>(box.h, a.resize_h, a.filter);
  if (threadIdx.x == 0) row_taps = taps(dy, oy + a.win_top);
  __syncthreads();
  const Taps<A> t = row_taps;
  const bool shared = t.xsize <= kMaxSharedTaps;
  A* const out_row = a.tmp + ((static_cast<std::int64_t>(n) * a.channels + c) * a.out_h + oy) * a.pitch;
  if constexpr (std::is_same_v<T, unsigned char>) {
    // uint8: the vertical sums in fixed point, as the tiled kernel's (the same bits).
    const int precision = fixed_precision_of(t);
    const A unit = kernels::fixed_unit(precision);
    unsigned* const pairs = reinterpret_cast<unsigned*>(weights);  // [kMaxSharedTaps / 2]
    if (shared) {
      for (int p = static_cast<int>(threadIdx.x); 2 * p < t.xsize; p += blockDim.x) pairs[p] = fixed_pair(dy, t, p, precision);
    }
    __syncthreads();
    if (d.stride_w == 1 && shared) {
      // Rows of unit stride: quads of columns aligned to 4 in image columns (byte_quad.cuh).
      const unsigned char* const rows =
          static_cast<const unsigned char*>(d.data) + c * d.stride_c + static_cast<std::int64_t>(box.top + t.xmin) * d.stride_h;
      const int quad0 = box.left & ~3;
      for (int col = quad0 + 4 * static_cast<int>(threadIdx.x); col < box.left + box.w; col += 4 * kVerticalThreads) {
        std::int32_t acc[4];
        vertical_quad_fixed(rows, d.stride_h, col, d.w, pairs, t.xsize, acc);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const int x = col + k - box.left;
          if (x >= 0 && x < box.w) out_row[x] = static_cast<A>(acc[k]) * unit;
        }
      }
      return;
    }
    const unsigned char* const top_row = static_cast<const unsigned char*>(d.data) + c * d.stride_c +
                                         static_cast<std::int64_t>(box.top + t.xmin) * d.stride_h +
                                         static_cast<std::int64_t>(box.left) * d.stride_w;
    for (int x = static_cast<int>(threadIdx.x); x < box.w; x += static_cast<int>(blockDim.x)) {
      const unsigned char* p = top_row + static_cast<std::int64_t>(x) * d.stride_w;
      const std::int32_t acc = fixed_column_sum(p, d.stride_h, t.xsize, [&](int i) { return shared ? pairs[i] : fixed_pair(dy, t, i, precision); });
      out_row[x] = static_cast<A>(acc) * unit;
    }
    return;
  }
  if (shared) {
    for (int j = static_cast<int>(threadIdx.x); j < t.xsize; j += blockDim.x) weights[j] = tap_weight(dy, t, j);
  }
  __syncthreads();
  const A w0 = shared ? weights[0] : tap_weight(dy, t, 0);
  const T* const top_row = static_cast<const T*>(d.data) + c * d.stride_c + static_cast<std::int64_t>(box.top + t.xmin) * d.stride_h +
                           static_cast<std::int64_t>(box.left) * d.stride_w;
  for (int x0 = static_cast<int>(threadIdx.x) * kColumns; x0 < box.w; x0 += static_cast<int>(blockDim.x) * kColumns) {
    const int count = min(kColumns, box.w - x0);
    const T* col = top_row + static_cast<std::int64_t>(x0) * d.stride_w;
    A acc[kColumns];
#pragma unroll
    for (int k = 0; k < kColumns; ++k) acc[k] = k < count ? kernels::load_as<A>(col[k * d.stride_w]) * w0 : A(0);
    for (int j = 1; j < t.xsize; ++j) {
      const A w = shared ? weights[j] : tap_weight(dy, t, j);
      const T* r = col + j * d.stride_h;
#pragma unroll
      for (int k = 0; k < kColumns; ++k) {
        if (k < count) acc[k] = kernels::fused_mul_add(kernels::load_as<A>(r[k * d.stride_w]), w, acc[k]);
      }
    }
    A* out = out_row + x0;
#pragma unroll
    for (int k = 0; k < kColumns; ++k) {
      if (k < count) out[k] = acc[k];
    }
  }
}

// What follows the resize: rounding to T (resize_output), then to_dtype and normalize if asked.
template <class T, class O>
struct OutputTail {
  ConvertNormalize<T, O, kChannels> convert;

  template <class A>
  __device__ SV_FORCE_INLINE O operator()(A sum, int c) const {
    return convert(kernels::resize_output<T>(sum), c);
  }
  // tile_kernel's form: saturation by compare and branch (kernels::Saturate says why).
  template <class A>
  __device__ SV_FORCE_INLINE O with_branches(A sum, int c) const {
    return convert(kernels::resize_output<T, kernels::Saturate::Branches>(sum), c);
  }
};

template <class T, class O, class A>
struct HorizontalArgs {
  ImageTable table;
  PerImage per_image;
  std::int64_t first;
  const A* tmp;
  O* out;             // [N, C, out_h, out_w], this launch's first image
  OutStrides out_strides;
  int channels, out_h, out_w, pitch;
  int resize_w, win_left;  // columns resized to resize_w; output column x is resized column x + win_left
  kernels::ResampleFilter filter;
  OutputTail<T, O> tail;
};

// A thread per (image, output column) and run of kRows output rows, all channels: the horizontal
// filter, the flip (output column x reads resized column out_w - 1 - x), the conversion and
// normalization. A column's taps and weights are the same on every row of its image, so each
// thread computes them once, into shared memory ([tap][thread]: no bank conflicts), and reuses
// them for its rows; a column with more taps than kMaxHorizontalTaps (a downscale beyond ~8x)
// computes its weights per row, as all columns did before (ff59c01: 262 us of a 256-image
// batch's 786 us of kernels, most of it recomputing weights).
constexpr int kHorizontalThreads = 128;
constexpr int kRows = 8;
constexpr int kMaxHorizontalTaps = 16;

template <class T, class O, class A>
__global__ void __launch_bounds__(kHorizontalThreads) horizontal_kernel(HorizontalArgs<T, O, A> a) {
  __shared__ A weights[kMaxHorizontalTaps][kHorizontalThreads];
  const int ox = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (ox >= a.out_w) return;
  const int n = static_cast<int>(blockIdx.z);
  const Box box = load_box(a.per_image, a.table.image[n], a.first + n);
  const bool flip = load_flip(a.per_image, a.first + n);
  const int sx = flip ? a.out_w - 1 - ox : ox;
  const kernels::AaDim<A> dx = kernels::make_aa_dim<A>(box.w, a.resize_w, a.filter);
  const Taps<A> t = taps(dx, sx + a.win_left);
  const bool cached = t.xsize >= 1 && t.xsize <= kMaxHorizontalTaps;
  A(*const w)[kHorizontalThreads] = weights;
  const int me = static_cast<int>(threadIdx.x);
  if (cached) {
    for (int j = 0; j < t.xsize; ++j) w[j][me] = tap_weight(dx, t, j);
  }
  const std::int64_t plane = static_cast<std::int64_t>(a.out_h) * a.pitch;
  const int first_row = static_cast<int>(blockIdx.y) * kRows;
  const int last_row = min(first_row + kRows, a.out_h);
  for (int oy = first_row; oy < last_row; ++oy) {
    // Each weight once for all channels; every channel's sum keeps the tap order.
    const A* row = a.tmp + (static_cast<std::int64_t>(n) * a.channels * a.out_h + oy) * a.pitch + t.xmin;
    A sum[kChannels];
    const A w0 = cached ? w[0][me] : tap_weight(dx, t, 0);
#pragma unroll
    for (int c = 0; c < kChannels; ++c) sum[c] = c < a.channels ? row[c * plane] * w0 : A(0);
    for (int j = 1; j < t.xsize; ++j) {
      const A wj = cached ? w[j][me] : tap_weight(dx, t, j);
#pragma unroll
      for (int c = 0; c < kChannels; ++c) {
        if (c < a.channels) sum[c] = kernels::fused_mul_add(row[c * plane + j], wj, sum[c]);
      }
    }
#pragma unroll
    for (int c = 0; c < kChannels; ++c) {
      if (c >= a.channels) break;
      a.out[n * a.out_strides.n + c * a.out_strides.c + oy * a.out_strides.h + ox * a.out_strides.w] = a.tail(sum[c], c);
    }
  }
}

// The tiled schedule: a block per (image, tile of kTileRows x kTileCols output pixels), all
// channels in turn. The tile's row and column taps and weights are computed once into shared
// memory; for each channel the block fills the vertical sums of the tile's rows over the input
// columns its output columns reach (the span) into shared memory, then filters them horizontally
// into the output. The shared memory layout and the caps (span, taps per row and per column) are
// the host's bounds for the whole batch (TileLayout).
constexpr int kTileCols = 32;
constexpr int kTileRows = 16;
constexpr int kTileThreads = 256;
// Blocks a multiprocessor must hold: uint8 images with another output type (resized_crop_batch's
// float32 tail) came out of the fixed-point vertical pass at 62 registers, 4 blocks a
// multiprocessor where they had 5, and 256 RandomResizedCrops to float32 ran 7 % slower (H100,
// bench/RESULTS.md, twenty-ninth session). Held at 6 they take 40 registers without spills, and
// the batch pipelines run 1.06-1.08x faster than at 5 (48 registers; thirtieth session). 0 leaves
// the others to the compiler's choice, as no second argument does: uint8 to uint8 takes 40
// registers, 6 blocks; held at 8 (32 registers) 1080p -> 224 ran 4 % slower, and 1 let it grow to 78.
template <class T, class O>
inline constexpr int kTileMinBlocks = std::is_same_v<T, unsigned char> && !std::is_same_v<O, unsigned char> ? 6 : 0;
static_assert(kTileRows * kTileCols == 2 * kTileThreads, "the horizontal pass: a thread per column and pair of rows");

struct TileLayout {
  int span_cap;  // input columns a tile's output columns reach, at most
  int ty_cap;    // taps of an output row, at most
  int tx_cap;    // taps of an output column, at most

  // Bytes of shared memory: the taps of the tile's rows and columns, their weights (columns
  // tap-major, so a warp's columns read consecutive words), the vertical sums.
  template <class A>
  SV_HOST_DEVICE std::size_t bytes() const {
    return sizeof(Taps<A>) * (kTileRows + kTileCols) +
           sizeof(A) * (static_cast<std::size_t>(kTileRows) * ty_cap + static_cast<std::size_t>(tx_cap) * kTileCols +
                        static_cast<std::size_t>(kTileRows) * span_cap);
  }
};

template <class T, class O, class A>
struct TileArgs {
  ImageTable table;
  PerImage per_image;
  std::int64_t first;
  O* out;             // [N, C, out_h, out_w], this launch's first image
  OutStrides out_strides;
  int channels, out_h, out_w;
  int resize_h, resize_w, win_top, win_left;
  kernels::ResampleFilter filter;
  TileLayout layout;
  OutputTail<T, O> tail;
};

template <class T, class O, class A>
__global__ void __launch_bounds__(kTileThreads, kTileMinBlocks<T, O>) tile_kernel(TileArgs<T, O, A> a) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  Taps<A>* const row_taps = reinterpret_cast<Taps<A>*>(smem_raw);
  Taps<A>* const col_taps = row_taps + kTileRows;
  A* const wy = reinterpret_cast<A*>(col_taps + kTileCols);   // [kTileRows][ty_cap]
  A* const wx = wy + kTileRows * a.layout.ty_cap;              // [tx_cap][kTileCols]
  A* const vsum = wx + a.layout.tx_cap * kTileCols;            // [kTileRows][span]
  __shared__ int span_lo, span;
  __shared__ int row_precision[kTileRows];  // uint8: the fixed-point precision of each row's vertical weights
  constexpr bool kFixed = std::is_same_v<T, unsigned char>;
  unsigned* const wyq = reinterpret_cast<unsigned*>(wy);  // uint8: [kTileRows][pair_cap] int16 pairs, in wy's place
  const int pair_cap = (a.layout.ty_cap + 1) / 2;

  const int n = static_cast<int>(blockIdx.z);
  const ImageDesc& d = a.table.image[n];
  const Box box = load_box(a.per_image, d, a.first + n);
  const bool flip = load_flip(a.per_image, a.first + n);
  const int oy0 = static_cast<int>(blockIdx.y) * kTileRows, ox0 = static_cast<int>(blockIdx.x) * kTileCols;
  const int rows = min(kTileRows, a.out_h - oy0), cols = min(kTileCols, a.out_w - ox0);
  const int me = static_cast<int>(threadIdx.x);
  const kernels::AaDim<A> dy = kernels::make_aa_dim<A>(box.h, a.resize_h, a.filter);
  const kernels::AaDim<A> dx = kernels::make_aa_dim<A>(box.w, a.resize_w, a.filter);

  // The taps: a thread per column (warp 0) and per row (warp 1). Output column ox reads resized
  // column out_w - 1 - ox when flipped.
  if (me < kTileCols) {
    const int q = min(me, cols - 1);  // columns past the edge repeat the last: the span stays exact
    const int ox = ox0 + q;
    const Taps<A> t = taps(dx, (flip ? a.out_w - 1 - ox : ox) + a.win_left);
    col_taps[me] = t;
    int lo = t.xmin, hi = t.xmin + t.xsize;
#pragma unroll
    for (int off = kTileCols / 2; off > 0; off /= 2) {
      lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, off));
      hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, off));
    }
    if (me == 0) {
      span_lo = lo;
      span = min(hi - lo, a.layout.span_cap);  // never beyond the cap (the host's bound holds it)
    }
  } else if (me < kTileCols + kTileRows) {
    const int r = me - kTileCols;
    const Taps<A> t = taps(dy, oy0 + min(r, rows - 1) + a.win_top);
    row_taps[r] = t;
    if constexpr (kFixed) row_precision[r] = fixed_precision_of(t);
  }
  __syncthreads();
  if constexpr (kFixed) {
    for (int i = me; i < kTileRows * pair_cap; i += kTileThreads) {
      const int r = i / pair_cap, p = i % pair_cap;
      const Taps<A>& t = row_taps[r];
      if (2 * p < t.xsize) wyq[i] = fixed_pair(dy, t, p, row_precision[r]);
    }
  } else {
    for (int i = me; i < kTileRows * a.layout.ty_cap; i += kTileThreads) {
      const int r = i / a.layout.ty_cap, j = i % a.layout.ty_cap;
      const Taps<A>& t = row_taps[r];
      if (j < t.xsize) wy[i] = tap_weight(dy, t, j);
    }
  }
  for (int i = me; i < a.layout.tx_cap * kTileCols; i += kTileThreads) {
    const int j = i / kTileCols, q = i % kTileCols;
    const Taps<A>& t = col_taps[q];
    if (j < t.xsize) wx[i] = tap_weight(dx, t, j);
  }
  __syncthreads();

  const int width = span;
  const int first_col = span_lo;
  const OutStrides os = a.out_strides;
  O* const out = a.out + n * os.n + oy0 * os.h + ox0 * os.w;
  // uint8 rows of unit stride: the vertical sums go by quads of columns (byte_quad.cuh), aligned
  // to 4 in image columns; item i is quad i % quads of tile row i / quads, a thread's items
  // advanced by a fixed step without dividing.
  bool by_quads = false;
  if constexpr (std::is_same_v<T, unsigned char>) by_quads = d.stride_w == 1;
  const int span_left = box.left + first_col;  // image column of vsum column 0
  const int quad0 = span_left & ~3;
  const int quads = (span_left + width - quad0 + 3) >> 2;
  const int step_r = by_quads && quads > 0 ? kTileThreads / quads : 0, step_q = kTileThreads - step_r * quads;
  const int start_r = by_quads && quads > 0 ? me / quads : rows, start_q = me - start_r * quads;
  for (int c = 0; c < a.channels; ++c) {
    if constexpr (std::is_same_v<T, unsigned char>) {
      const unsigned char* const plane =
          static_cast<const unsigned char*>(d.data) + c * d.stride_c + static_cast<std::int64_t>(box.top) * d.stride_h;
      for (int r = start_r, q = start_q; r < rows;) {
        const Taps<A>& t = row_taps[r];
        const int col = quad0 + 4 * q;
        std::int32_t acc[4];
        vertical_quad_fixed(plane + static_cast<std::int64_t>(t.xmin) * d.stride_h, d.stride_h, col, d.w, wyq + r * pair_cap,
                            t.xsize, acc);
        const A unit = kernels::fixed_unit(row_precision[r]);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const int x = col + k - span_left;
          if (x >= 0 && x < width) vsum[r * width + x] = static_cast<A>(acc[k]) * unit;
        }
        q += step_q;
        r += step_r;
        if (q >= quads) {
          q -= quads;
          ++r;
        }
      }
    }
    // Otherwise, consecutive threads on consecutive columns.
    const T* const base = static_cast<const T*>(d.data) + c * d.stride_c + static_cast<std::int64_t>(box.top) * d.stride_h +
                          static_cast<std::int64_t>(box.left + first_col) * d.stride_w;
    for (int i = by_quads ? rows * width : me; i < rows * width; i += kTileThreads) {
      const int r = i / width, x = i - r * width;
      const Taps<A>& t = row_taps[r];
      const T* p = base + static_cast<std::int64_t>(t.xmin) * d.stride_h + static_cast<std::int64_t>(x) * d.stride_w;
      if constexpr (kFixed) {
        const unsigned* const pairs = wyq + r * pair_cap;
        const std::int32_t acc = fixed_column_sum(p, d.stride_h, t.xsize, [&](int i) { return pairs[i]; });
        vsum[r * width + x] = static_cast<A>(acc) * kernels::fixed_unit(row_precision[r]);
      } else {
        const A* const w = wy + r * a.layout.ty_cap;
        A acc = kernels::load_as<A>(*p) * w[0];
        for (int j = 1; j < t.xsize; ++j) {
          p += d.stride_h;
          acc = kernels::fused_mul_add(kernels::load_as<A>(*p), w[j], acc);
        }
        vsum[r * width + x] = acc;
      }
    }
    __syncthreads();
    // Horizontal filter, rounding and the tail: a thread per output column q and pair of rows
    // (r, r + kTileRows / 2), each weight loaded once for both sums (the kernel is bound by
    // instruction issue: bench/RESULTS.md, seventeenth session). Each sum's taps in order, as before.
    {
      const int q = me % kTileCols, r0 = me / kTileCols, r1 = r0 + kTileRows / 2;
      if (r0 < rows && q < cols) {
        const Taps<A>& t = col_taps[q];
        const A* const v0 = vsum + r0 * width + (t.xmin - first_col);
        const bool pair = r1 < rows;
        const A* const v1 = pair ? v0 + (kTileRows / 2) * width : v0;  // past the tile's rows: row r0 again, not written
        A w = wx[q];
        A s0 = v0[0] * w, s1 = v1[0] * w;
        for (int j = 1; j < t.xsize; ++j) {
          w = wx[j * kTileCols + q];
          s0 = kernels::fused_mul_add(v0[j], w, s0);
          s1 = kernels::fused_mul_add(v1[j], w, s1);
        }
        out[c * os.c + r0 * os.h + q * os.w] = a.tail.with_branches(s0, c);
        if (pair) out[c * os.c + r1 * os.h + q * os.w] = a.tail.with_branches(s1, c);
      }
    }
    __syncthreads();
  }
}

// The host's bound of TileLayout for a batch whose images are at most max_h x max_w: a box is
// never larger than its image, so its scale (box size / resized size) is at most the image's.
// Output index i's taps start at int(center - support + 0.5) >= center - support - 0.5 (or 0)
// and end at int(center + support + 0.5) <= center + support + 0.5, with center = scale *
// (i + 0.5): kTileCols consecutive columns reach at most scale * (kTileCols - 1) + 2 * support + 1
// input columns. Computed in double with a column to spare for the float rounding of the device.
TileLayout tile_layout(std::int64_t max_h, std::int64_t max_w, std::int64_t resize_h, std::int64_t resize_w,
                       kernels::ResampleFilter filter) {
  const double half_taps = filter == kernels::ResampleFilter::Triangle ? 1.0 : 2.0;
  auto support = [&](double scale) { return half_taps * (scale >= 1.0 ? scale : 1.0); };
  // The device computes the scale in float: a relative margin covers its rounding.
  auto taps_cap = [&](double scale) { return static_cast<int>(std::ceil(support(scale) * (1.0 + 1e-6))) * 2 + 1; };
  const double sy = static_cast<double>(max_h) / static_cast<double>(resize_h);
  const double sx = static_cast<double>(max_w) / static_cast<double>(resize_w);
  TileLayout l;
  l.ty_cap = taps_cap(sy);
  l.tx_cap = taps_cap(sx);
  l.span_cap = static_cast<int>(std::min<double>(static_cast<double>(max_w),
                                                 std::floor(sx * (kTileCols - 1) + 2.0 * support(sx) + 1.0) + 2.0));
  return l;
}

// Which schedule is faster. A tile's block pays a fixed cost (the taps and weights of its 16 rows
// and 32 columns, six barriers) that the two-pass schedule's scratch round trip outweighs once the
// vertical sums are cheap. uint8 images of unit-stride rows (byte quads) take tiles at every
// scale: on the H200 (bench/RESULTS.md, ninth session), tiled against two-pass, float32 output:
// 64 1080p images to 256x455 then 224 239 against 500 µs; 256 RandomResizedCrops of 300-600
// images to 224 423 against 479; 256 of 300x300 to 224 359 against 384, to 160 219 against 298;
// 256 whole 224x224 images to 224 374 against 422; 64 of 100-200 up to 224 83 against 89 µs.
// Other images (float32, strided rows) go through the byte-per-column loop, where tiles only pay
// from a downscale of ~3x each way (float32 RandomResizedCrops of 300-600 to 224: 322 against
// 238 µs; uint8 before the quads, eighth session: 1080p 415 against 523, 300-600 490 against 433).
// The bound here is the images' scale (their boxes are on the device).
// SV_RESIZED_CROP_SCHEDULE=tiles or =two-pass (read once) overrides the choice, so that a benchmark
// can time both schedules on one build; tiles still need their shared memory to fit.
bool prefers_tiles(std::int64_t max_h, std::int64_t max_w, std::int64_t resize_h, std::int64_t resize_w, bool byte_quads) {
  static const int forced = [] {
    const char* v = std::getenv("SV_RESIZED_CROP_SCHEDULE");
    if (v == nullptr) return 0;
    return std::strcmp(v, "tiles") == 0 ? 1 : std::strcmp(v, "two-pass") == 0 ? 2 : 0;
  }();
  if (forced != 0) return forced == 1;
  if (byte_quads) return true;
  const double sy = static_cast<double>(max_h) / static_cast<double>(resize_h);
  const double sx = static_cast<double>(max_w) / static_cast<double>(resize_w);
  return sy * sx >= 9.0;
}

// The tiled schedule's shared memory budget: the default per-block limit, so no opt-in call.
constexpr std::size_t kTileSharedBytes = 48 * 1024;

template <class T, class O>
void launch(const std::vector<Tensor>& images, const Tensor& boxes, const Tensor& hflip, const Tensor& output,
            kernels::ResampleFilter filter, const BatchWindow& win, const BatchTail& tail, const Stream& stream) {
  using A = kernels::acc_t<T>;
  const int channels = static_cast<int>(images.front().size(0));
  const int out_h = static_cast<int>(output.size(2)), out_w = static_cast<int>(output.size(3));
  std::int64_t max_h = 1, max_w = 1;
  bool byte_quads = std::is_same_v<T, std::uint8_t>;  // every image's rows filtered by quads
  for (const Tensor& x : images) {
    max_h = std::max(max_h, x.size(1));
    max_w = std::max(max_w, x.size(2));
    byte_quads = byte_quads && x.stride(2) == 1;
  }
  const auto total = static_cast<std::int64_t>(images.size());
  const std::int64_t per_launch = std::min<std::int64_t>(kMaxImages, total);

  const OutputTail<T, O> out_tail{ConvertNormalize<T, O, kChannels>::make(tail)};
  auto table_of = [&](std::int64_t first, int count) {
    ImageTable table{};
    for (int i = 0; i < count; ++i) {
      const Tensor& x = images[static_cast<std::size_t>(first + i)];
      table.image[i] = {x.data(), static_cast<std::int32_t>(x.size(1)), static_cast<std::int32_t>(x.size(2)), x.stride(0),
                        x.stride(1), x.stride(2)};
    }
    return table;
  };
  // Host tensors (a box [4], a flip [1]) hold one value for every image: into the arguments.
  PerImage per_image{};
  if (boxes.device().is_cpu()) {
    for (int k = 0; k < 4; ++k) per_image.box[k] = static_cast<const std::int64_t*>(boxes.data())[k];
  } else {
    per_image.boxes = static_cast<const std::int64_t*>(boxes.data());
  }
  if (hflip.defined() && hflip.device().is_cpu()) {
    per_image.flip = *static_cast<const bool*>(hflip.data());
  } else if (hflip.defined()) {
    per_image.hflip = static_cast<const bool*>(hflip.data());
  }
  const OutStrides out_strides{output.stride(0), output.stride(1), output.stride(2), output.stride(3)};
  LaunchScope scope(stream, "resized_crop_batch");

  const TileLayout layout = tile_layout(max_h, max_w, win.resize_h, win.resize_w, filter);
  if (layout.bytes<A>() <= kTileSharedBytes && prefers_tiles(max_h, max_w, win.resize_h, win.resize_w, byte_quads)) {
    TileArgs<T, O, A> t{};
    t.out_strides = out_strides;
    t.per_image = per_image;
    t.channels = channels;
    t.out_h = out_h;
    t.out_w = out_w;
    t.resize_h = static_cast<int>(win.resize_h);
    t.resize_w = static_cast<int>(win.resize_w);
    t.win_top = static_cast<int>(win.top);
    t.win_left = static_cast<int>(win.left);
    t.filter = filter;
    t.layout = layout;
    t.tail = out_tail;
    for (std::int64_t first = 0; first < total; first += per_launch) {
      const int count = static_cast<int>(std::min(per_launch, total - first));
      t.table = table_of(first, count);
      t.first = first;
      t.out = static_cast<O*>(output.data()) + first * output.stride(0);
      tile_kernel<T, O, A><<<dim3(blocks_for(out_w, kTileCols), blocks_for(out_h, kTileRows), count), kTileThreads,
                             layout.bytes<A>(), scope.handle()>>>(t);
      scope.check_launch();
    }
    return;
  }

  int pitch = 1;
  for (const Tensor& x : images) pitch = std::max(pitch, static_cast<int>(x.size(2)));
  Scratch scratch(Scratch::aligned_bytes<A>(per_launch * channels * out_h * static_cast<std::int64_t>(pitch)),
                  output.device(), stream);
  A* const tmp = scratch.take<A>(per_launch * channels * out_h * static_cast<std::int64_t>(pitch));
  HorizontalArgs<T, O, A> h{};
  h.out_strides = out_strides;
  h.tail = out_tail;
  for (std::int64_t first = 0; first < total; first += per_launch) {
    const int count = static_cast<int>(std::min(per_launch, total - first));
    const ImageTable table = table_of(first, count);
    VerticalArgs<A> v{table, per_image, first, tmp, channels, out_h, pitch,
                      static_cast<int>(win.resize_h), static_cast<int>(win.top), filter};
    vertical_kernel<T, A><<<dim3(1, out_h, count * channels), kVerticalThreads, 0, scope.handle()>>>(v);
    scope.check_launch();
    h.table = table;
    h.per_image = per_image;
    h.first = first;
    h.tmp = tmp;
    h.out = static_cast<O*>(output.data()) + first * output.stride(0);
    h.channels = channels;
    h.out_h = out_h;
    h.out_w = out_w;
    h.pitch = pitch;
    h.resize_w = static_cast<int>(win.resize_w);
    h.win_left = static_cast<int>(win.left);
    h.filter = filter;
    horizontal_kernel<T, O, A><<<dim3(blocks_for(out_w, kHorizontalThreads), blocks_for(out_h, kRows), count),
                                 kHorizontalThreads, 0, scope.handle()>>>(h);
    scope.check_launch();
  }
}

template <class T>
void dispatch_output(const std::vector<Tensor>& images, const Tensor& boxes, const Tensor& hflip, const Tensor& output,
                     kernels::ResampleFilter filter, const BatchWindow& win, const BatchTail& tail, const Stream& stream) {
  switch (output.dtype()) {
    case DType::Float32:
      return launch<T, float>(images, boxes, hflip, output, filter, win, tail, stream);
    case DType::Float16:
      return launch<T, Half>(images, boxes, hflip, output, filter, win, tail, stream);
    case DType::BFloat16:
      return launch<T, BFloat16>(images, boxes, hflip, output, filter, win, tail, stream);
    default:
      if (output.dtype() == dtype_of<T>) return launch<T, T>(images, boxes, hflip, output, filter, win, tail, stream);
      throw Error(ErrorKind::NotImplemented, "resized_crop_batch", "dtype", "float32, float16, bfloat16 or the input's on CUDA",
                  dtype_name(output.dtype()));
  }
}

// Which schedule resize's uint8 bilinear antialias takes: SV_RESIZE_SCHEDULE=direct (read once)
// leaves every case to resize_antialias.cu, =tiles sends every case whose tile fits to the tiled
// kernel, mild scales included, so that a benchmark can time both on one build.
enum class ResizeSchedule { Auto, Direct, Tiles };
ResizeSchedule resize_schedule() {
  static const ResizeSchedule schedule = [] {
    const char* v = std::getenv("SV_RESIZE_SCHEDULE");
    if (v == nullptr) return ResizeSchedule::Auto;
    return std::strcmp(v, "direct") == 0 ? ResizeSchedule::Direct
           : std::strcmp(v, "tiles") == 0 ? ResizeSchedule::Tiles
                                          : ResizeSchedule::Auto;
  }();
  return schedule;
}

void resized_crop_batch(const std::vector<Tensor>& images, const Tensor& boxes, const Tensor& hflip, const Tensor& output,
                        InterpolationMode mode, bool antialias, const BatchWindow& win, const BatchTail& tail,
                        const Stream& stream) {
  if (mode != InterpolationMode::Bilinear || !antialias) {
    throw Error(ErrorKind::NotImplemented, "resized_crop_batch", "interpolation",
                "bilinear with antialias on CUDA (the per-image ops cover the other modes)",
                std::string(interpolation_mode_name(mode)) + (antialias ? " with antialias" : " without antialias"));
  }
  const kernels::ResampleFilter filter = kernels::ResampleFilter::Triangle;
  if (images.front().dtype() == DType::UInt8) {
    dispatch_output<std::uint8_t>(images, boxes, hflip, output, filter, win, tail, stream);
  } else {
    dispatch_output<float>(images, boxes, hflip, output, filter, win, tail, stream);
  }
}

SV_REGISTER_KERNEL(ops::ResizedCropBatch, DeviceType::CUDA, &resized_crop_batch,
                   (DTypeSet{DType::UInt8, DType::Float32}));

}  // namespace

bool resize_tiled(const Tensor& input, const Tensor& output, const Stream& stream) {
  const ResizeSchedule schedule = resize_schedule();
  if (schedule == ResizeSchedule::Direct || input.dtype() != DType::UInt8 || (input.dim() != 3 && input.dim() != 4)) return false;
  const int d = input.dim();
  const std::int64_t n = d == 4 ? input.size(0) : 1, c = input.size(d - 3), h = input.size(d - 2), w = input.size(d - 1);
  const std::int64_t out_h = output.size(d - 2), out_w = output.size(d - 1);
  // Byte quads need unit-stride rows; the tile kernel writes [N, C, H, W] contiguous.
  // A launch per kMaxImages images: past a few launches (tens of thousands of tiny images) the
  // antialias kernel's single launch costs less.
  if (n == 0 || n > 8 * kMaxImages || c < 1 || c > kChannels || h == 0 || w == 0 || out_h == 0 || out_w == 0 || input.stride(d - 1) != 1 ||
      !output.is_contiguous() || h > INT32_MAX || w > INT32_MAX || out_h * out_w > INT32_MAX) {
    return false;
  }
  // Large images at mild scales stay on the antialias kernel. On the H200 (bench/RESULTS.md,
  // ninth session), tiles against it: 64 1080p images to 224x224 (41x fewer pixels) 0.458 against
  // 0.626 ms, to 256x455 (18x) 0.587 against 0.707; 256 300x300 images to 224x224 0.399 against
  // 1.288; but 64 1080p images to 540x960 (4x) 1.178 against 1.112.
  const double scale = static_cast<double>(h) * static_cast<double>(w) / (static_cast<double>(out_h) * static_cast<double>(out_w));
  if (schedule == ResizeSchedule::Auto && h * w >= 512 * 512 && scale < 9.0) return false;
  const kernels::ResampleFilter filter = kernels::ResampleFilter::Triangle;
  if (tile_layout(h, w, out_h, out_w, filter).bytes<float>() > kTileSharedBytes) return false;
  std::vector<Tensor> images;
  images.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) images.push_back(d == 4 ? input.select(0, i) : input);
  Tensor whole = empty({4}, DType::Int64, Device::cpu());  // one box, the whole image: kernel arguments
  auto* box = static_cast<std::int64_t*>(whole.data());
  box[0] = 0;
  box[1] = 0;
  box[2] = h;
  box[3] = w;
  launch<std::uint8_t, std::uint8_t>(images, whole, Tensor(), d == 4 ? output : output.unsqueeze(0), filter,
                                     BatchWindow{out_h, out_w, 0, 0}, BatchTail{}, stream);
  return true;
}

}  // namespace streamvision::cuda
