// CUDA uint8 bicubic resize on torch's CPU integer path (kernels/resize_weights.hpp): a one-block
// kernel per dimension computes the double weights, their largest value, the fixed-point
// precision and the int16 weights into stream-ordered scratch; then a horizontal pass (into a
// uint8 intermediate [planes, H_in, W_out]) and a vertical pass, each a thread per output value
// with int32 accumulation over weight pairs (the horizontal pass reads its bytes as aligned 32-bit
// words where the rows allow). A dimension whose size does not change has no pass, as in torch.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/geometry.cuh"
#include "cuda/resize.cuh"
#include "functional/geometry_utils.hpp"
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

__device__ SV_FORCE_INLINE std::int32_t low_weight(unsigned pair) { return static_cast<std::int16_t>(pair & 0xFFFFu); }
__device__ SV_FORCE_INLINE std::int32_t high_weight(unsigned pair) { return static_cast<std::int32_t>(pair) >> 16; }

struct PassArgs {
  const std::uint8_t* src;
  std::uint8_t* dst;
  PlaneSet src_planes, dst_planes;
  std::int64_t src_sh, src_sw, dst_sh, dst_sw;
  int dst_h, dst_w;
  int row_words;  // word path: whole 32-bit words in a source row (0: word path off)
  std::uint32_t planes, planes_per_group;
  kernels::FastDivmod div_w;
  bool horizontal;
  Int16Table t;
};

__global__ void __launch_bounds__(256) int16_pass_kernel(PassArgs a) {
  const std::uint32_t pixel = blockIdx.x * 256u + threadIdx.x;
  std::uint32_t y, x;
  a.div_w.divmod(pixel, y, x);
  if (y >= static_cast<std::uint32_t>(a.dst_h)) return;
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

void pass(const kernels::ImageBatch& src, const kernels::ImageBatch& dst, const Int16Table& t, bool horizontal,
          LaunchScope& scope, int device) {
  const std::int64_t planes = dst.n * dst.c;
  const PixelGrid g = pixel_grid(dst.h, dst.w, planes, device);
  // The word path needs 4-byte aligned contiguous rows in every plane.
  const bool aligned = src.stride_w == 1 && reinterpret_cast<std::uintptr_t>(src.data) % 4 == 0 && src.stride_h % 4 == 0 &&
                       src.stride_n % 4 == 0 && src.stride_c % 4 == 0;
  const int row_words = horizontal && aligned ? static_cast<int>(src.w / 4) : 0;
  const PassArgs a{static_cast<const std::uint8_t*>(src.data), static_cast<std::uint8_t*>(dst.data), plane_set(src),
                   plane_set(dst), src.stride_h, src.stride_w, dst.stride_h, dst.stride_w, static_cast<int>(dst.h),
                   static_cast<int>(dst.w), row_words, static_cast<std::uint32_t>(planes), g.planes_per_group, g.div_w,
                   horizontal, t};
  int16_pass_kernel<<<g.grid, 256, 0, scope.handle()>>>(a);
  scope.check_launch();
}

}  // namespace

void resize_uint8_bicubic(const Tensor& input, const Tensor& output, bool antialias, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const bool horizontal = in.w != out.w, vertical = in.h != out.h;
  const kernels::Int16Dim dx = kernels::make_int16_dim(in.w, out.w, antialias);
  const kernels::Int16Dim dy = kernels::make_int16_dim(in.h, out.h, antialias);
  ScratchLayout layout;
  struct Offsets {
    std::int64_t xmin, xsize, w, wd, precision;
  };
  auto add = [&](const kernels::Int16Dim& d) {
    return Offsets{layout.add<int>(d.out_size), layout.add<int>(d.out_size), layout.add<unsigned>(std::int64_t{d.out_size} * pair_count(d.max_taps)),
                   layout.add<double>(std::int64_t{d.out_size} * d.max_taps), layout.add<int>(1)};
  };
  const Offsets ox = add(dx), oy = add(dy);
  const std::int64_t o_mid = horizontal && vertical ? layout.add<std::uint8_t>(out.n * out.c * in.h * out.w) : 0;
  const Tensor scratch = scratch_bytes(layout.bytes(), input, stream);
  auto table = [&](const Offsets& o, const kernels::Int16Dim& d) {
    return Int16Table{ScratchLayout::at<int>(scratch, o.xmin), ScratchLayout::at<int>(scratch, o.xsize),
                      ScratchLayout::at<unsigned>(scratch, o.w), ScratchLayout::at<double>(scratch, o.wd),
                      ScratchLayout::at<int>(scratch, o.precision), d.max_taps, d.out_size};
  };
  const Int16Table tx = table(ox, dx), ty = table(oy, dy);

  LaunchScope scope(stream, "resize");
  int16_tables_kernel<<<2, kTableThreads, 0, scope.handle()>>>(dx, dy, tx, ty);
  scope.check_launch();
  if (horizontal && vertical) {
    const kernels::ImageBatch mid = kernels::int16_intermediate(ScratchLayout::at<std::uint8_t>(scratch, o_mid), in, out);
    pass(in, mid, tx, true, scope, stream.device_index());
    pass(mid, out, ty, false, scope, stream.device_index());
  } else if (horizontal) {
    pass(in, out, tx, true, scope, stream.device_index());
  } else {
    pass(in, out, ty, false, scope, stream.device_index());
  }
}

}  // namespace streamvision::cuda
