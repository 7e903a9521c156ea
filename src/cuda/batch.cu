// CUDA resized_crop_batch: crop, antialiased bilinear resize, horizontal flip, to_dtype and
// normalize of a whole batch in two launches, with each image's box and flip read on the device.
//
// The arithmetic is resize_antialias.cu's, value for value: the vertical filter of every input
// column the crop spans (kernels::aa_weights' weights, first product then fused multiply-adds in
// tap order), then the horizontal filter of those sums, rounded by resize_output, then the
// to_dtype and normalize functors. Only the schedule differs: the weights are computed per thread
// from the image's own box (make_aa_dim on the device) instead of read from tables, and the
// vertical sums go through global scratch, [N, C, out_h, widest image] floats, instead of shared
// memory, because every image has its own span.
//
// Images travel in the kernel arguments (kMaxImages per launch, ~10 KB of parameters: CUDA 12.1+
// allows 32 KB), so no table is copied from the host and a graph capture records everything.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "cuda/launch.hpp"
#include "kernels/normalize.hpp"
#include "kernels/resize_weights.hpp"
#include "kernels/to_dtype.hpp"
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

__device__ SV_FORCE_INLINE Box load_box(const std::int64_t* boxes, const ImageDesc& d, std::int64_t n) {
  const std::int64_t* b = boxes + 4 * n;
  Box r;
  r.top = static_cast<int>(min(max(b[0], std::int64_t{0}), std::int64_t{d.h - 1}));
  r.left = static_cast<int>(min(max(b[1], std::int64_t{0}), std::int64_t{d.w - 1}));
  r.h = static_cast<int>(min(max(b[2], std::int64_t{1}), std::int64_t{d.h - r.top}));
  r.w = static_cast<int>(min(max(b[3], std::int64_t{1}), std::int64_t{d.w - r.left}));
  return r;
}

// Taps of output index i of dimension d: [xmin, xmin + xsize), as kernels::aa_weights gives them.
template <class A>
struct Taps {
  int xmin, xsize;
  A xmin_m_center, total;
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
  A total = 0;
  for (int j = 0; j < t.xsize; ++j) total += kernels::aa_filter(d.filter, (static_cast<A>(j) + t.xmin_m_center + A(0.5)) * d.invscale);
  t.total = total;
  return t;
}

template <class A>
__device__ SV_FORCE_INLINE A tap_weight(const kernels::AaDim<A>& d, const Taps<A>& t, int j) {
  const A v = kernels::aa_filter(d.filter, (static_cast<A>(j) + t.xmin_m_center + A(0.5)) * d.invscale);
  return t.total != A(0) ? v / t.total : v;
}

template <class A>
struct VerticalArgs {
  ImageTable table;
  const std::int64_t* boxes;  // [N, 4] of the whole batch; this launch's images start at `first`
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
  const Box box = load_box(a.boxes, d, a.first + n);
  const kernels::AaDim<A> dy = kernels::make_aa_dim<A>(box.h, a.resize_h, a.filter);
  if (threadIdx.x == 0) row_taps = taps(dy, oy + a.win_top);
  __syncthreads();
  const Taps<A> t = row_taps;
  const bool shared = t.xsize <= kMaxSharedTaps;
  if (shared) {
    for (int j = static_cast<int>(threadIdx.x); j < t.xsize; j += blockDim.x) weights[j] = tap_weight(dy, t, j);
  }
  __syncthreads();
  const A w0 = shared ? weights[0] : tap_weight(dy, t, 0);
  A* const out_row = a.tmp + ((static_cast<std::int64_t>(n) * a.channels + c) * a.out_h + oy) * a.pitch;
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

template <class T, class O, class A>
struct HorizontalArgs {
  ImageTable table;
  const std::int64_t* boxes;
  const bool* hflip;  // or null
  std::int64_t first;
  const A* tmp;
  O* out;             // [N, C, out_h, out_w] contiguous, this launch's first image
  int channels, out_h, out_w, pitch;
  int resize_w, win_left;  // columns resized to resize_w; output column x is resized column x + win_left
  kernels::ResampleFilter filter;
  bool convert, normalize;
  kernels::ToDtypeOp<T, O> to_dtype;
  kernels::NormalizeOp<O, kChannels> norm;
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
  const Box box = load_box(a.boxes, a.table.image[n], a.first + n);
  const bool flip = a.hflip != nullptr && a.hflip[a.first + n];
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
      const T v = kernels::resize_output<T>(sum[c]);
      O o;
      if constexpr (std::is_same_v<T, O>) {
        o = a.convert ? a.to_dtype(v, 0) : v;
      } else {
        o = a.to_dtype(v, 0);
      }
      if (a.normalize) {
        if constexpr (kernels::is_float_like<O>) o = a.norm(o, static_cast<std::uint32_t>(c));
      }
      a.out[((static_cast<std::int64_t>(n) * a.channels + c) * a.out_h + oy) * a.out_w + ox] = o;
    }
  }
}

template <class T, class O>
void launch(const std::vector<Tensor>& images, const Tensor& boxes, const Tensor& hflip, const Tensor& output,
            kernels::ResampleFilter filter, const BatchWindow& win, const BatchTail& tail, const Stream& stream) {
  using A = kernels::acc_t<T>;
  const int channels = static_cast<int>(images.front().size(0));
  const int out_h = static_cast<int>(output.size(2)), out_w = static_cast<int>(output.size(3));
  int pitch = 1;
  for (const Tensor& x : images) pitch = std::max(pitch, static_cast<int>(x.size(2)));
  const auto total = static_cast<std::int64_t>(images.size());
  const std::int64_t per_launch = std::min<std::int64_t>(kMaxImages, total);
  Scratch scratch(Scratch::aligned_bytes<A>(per_launch * channels * out_h * static_cast<std::int64_t>(pitch)),
                  output.device(), stream);
  A* const tmp = scratch.take<A>(per_launch * channels * out_h * static_cast<std::int64_t>(pitch));

  HorizontalArgs<T, O, A> h{};
  h.to_dtype = kernels::make_to_dtype_op<T, O>(tail.scale);
  h.convert = tail.dtype.has_value();
  h.normalize = !tail.mean.empty();
  for (std::size_t c = 0; c < tail.mean.size(); ++c) {
    h.norm.mean[c] = kernels::to_opmath(kernels::cast<O>(tail.mean[c]));
    h.norm.stdev[c] = kernels::to_opmath(kernels::cast<O>(tail.std[c]));
  }
  LaunchScope scope(stream, "resized_crop_batch");
  for (std::int64_t first = 0; first < total; first += per_launch) {
    const int count = static_cast<int>(std::min(per_launch, total - first));
    ImageTable table{};
    for (int i = 0; i < count; ++i) {
      const Tensor& x = images[static_cast<std::size_t>(first + i)];
      table.image[i] = {x.data(), static_cast<std::int32_t>(x.size(1)), static_cast<std::int32_t>(x.size(2)), x.stride(0),
                        x.stride(1), x.stride(2)};
    }
    VerticalArgs<A> v{table, static_cast<const std::int64_t*>(boxes.data()), first, tmp, channels, out_h, pitch,
                      static_cast<int>(win.resize_h), static_cast<int>(win.top), filter};
    vertical_kernel<T, A><<<dim3(1, out_h, count * channels), kVerticalThreads, 0, scope.handle()>>>(v);
    scope.check_launch();
    h.table = table;
    h.boxes = v.boxes;
    h.hflip = hflip.defined() ? static_cast<const bool*>(hflip.data()) : nullptr;
    h.first = first;
    h.tmp = tmp;
    h.out = static_cast<O*>(output.data()) + first * channels * out_h * static_cast<std::int64_t>(out_w);
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

}  // namespace streamvision::cuda
