// CUDA antialiased resize (bilinear / bicubic, float path; double for float64 images; uint8 images'
// vertical pass in fixed point, kernels::fixed_precision).
//
// One small kernel computes both dimensions' tap spans and weights (kernels::aa_weights) into
// stream-ordered scratch. The resampling kernel then reads the input once: a block owns one plane
// group (a plane, or all channels of a channels-last pixel run), a band of output rows and a tile
// of output columns. For each output row it first filters vertically every input column the tile
// needs (VEC consecutive elements per thread: one 8- or 16-byte load per input row, weights
// broadcast), into a row of accumulators in shared memory, then filters that row horizontally
// into the tile's outputs (coalesced stores). Output rows go two at a time where two rows of
// accumulators fit: the input rows both need (half of them at a 2x downscale) are loaded and
// converted once, and a pair takes two barriers where two rows took four. Input rows shared by
// neighbouring pairs are re-read from L1/L2, not DRAM; only the band edges are read twice.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "cuda/byte_quad.cuh"
#include "cuda/elementwise.cuh"
#include "cuda/geometry.cuh"
#include "cuda/resize.cuh"
#include "core/tensor_views.hpp"
#include "kernels/resize_weights.hpp"

namespace streamvision::cuda {

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kSharedBudget = 48 * 1024;

template <class A>
struct AaTable {
  const int* xmin;
  const int* xsize;
  const A* w;  // tap-major: w[j * size + i]
  int size;
  // uint8 images' rows: the weights in fixed point (kernels::fixed_precision), tap-major as w,
  // and each output's precision. Null otherwise.
  const std::int32_t* q = nullptr;
  const int* precision = nullptr;
};

template <class A>
__global__ void aa_tables_kernel(kernels::AaDim<A> dx, kernels::AaDim<A> dy, int* xmin, int* xsize, A* wx, int* ymin,
                                 int* ysize, A* wy, std::int32_t* qy, int* py) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  // Tap-major tables: w[j * out_size + i].
  if (blockIdx.y == 0) {
    if (i < dx.out_size) kernels::aa_weights(dx, i, xmin[i], xsize[i], wx + i, dx.out_size);
  } else if (i < dy.out_size) {
    kernels::aa_weights(dy, i, ymin[i], ysize[i], wy + i, dy.out_size);
    if (qy != nullptr) {  // uint8: the rows' weights in fixed point too
      const std::int64_t stride = dy.out_size;
      A peak = 0;
      for (int j = 0; j < ysize[i]; ++j) peak = max(peak, fabs(wy[i + j * stride]));
      const int p = kernels::fixed_precision(static_cast<double>(peak));
      py[i] = p;
      for (int j = 0; j < ysize[i]; ++j) qy[i + j * stride] = kernels::int16_weight(static_cast<double>(wy[i + j * stride]), p);
    }
  }
}

// Elements a thread filters vertically at once: 8 bytes of uint8, 16 bytes otherwise.
template <class T>
inline constexpr int kAaVec = sizeof(T) == 1 ? 8 : static_cast<int>(16 / sizeof(T));

template <class T, int N>
struct alignas(N * sizeof(T)) Vec {
  T v[N];
};

template <class A>
struct AaArgs : PlaneGroups {  // loads of VEC elements
  kernels::ImageBatch in, out;
  int tile_h, tile_w, col_tiles;
  int pair;       // output rows filtered at once: 2, or 1 where two rows of accumulators do not fit
  int row_pitch;  // elements from one row of accumulators to the next (a multiple of 4)
  AaTable<A> tx, ty;
};

// Blocks a multiprocessor must hold. uint8 left to the compiler takes 64 registers, 4 blocks (50 %
// occupancy), and ncu put 1080p -> 540x960 at 69 % of the issue slots with 10.8 cycles a warp
// instruction (bench/RESULTS.md, thirty-first session): latency more than instructions. Held at 6
// it takes 40 registers without spills (6 % more SASS): 540x960 1.08x on an H100. Channels-last
// rows (a.group > 1) ran 5 % slower held (1080p -> 224, same run), so only planar launches take
// this variant. 0 leaves the other dtypes and layouts to the compiler.
template <class T>
inline constexpr int kAaMinBlocks = std::is_same_v<T, std::uint8_t> ? 6 : 0;

template <class T, class A, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) aa_kernel(AaArgs<A> a) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  A* row = reinterpret_cast<A*>(smem_raw);
  constexpr int VEC = kAaVec<T>;
  constexpr bool kFixed = std::is_same_v<T, std::uint8_t>;  // the vertical pass in fixed point
  const ResampleTile t = resample_tile(a);  // the tile reads elements [run0, run0 + span) of a row
  const int oy0 = t.oy0, oy1 = t.oy1, ox0 = t.ox0, ox1 = t.ox1, xs0 = t.xs0, span = t.span, run0 = t.run0, g = a.group;
  const int shift = a.vector_loads ? run0 % VEC : 0;  // so that loads are aligned
  for (std::uint32_t p = blockIdx.y; p < a.planes; p += gridDim.y) {
    const std::uint32_t n = p / static_cast<std::uint32_t>(a.groups), c0 = (p % static_cast<std::uint32_t>(a.groups)) * g;
    // Raw pointers, addressed below with the kernel argument's strides: PlaneView copies of the
    // strides cost registers (up to 14) and instructions.
    const T* plane = kernels::plane_view<T>(a.in, n, c0).data;
    T* out_plane = kernels::plane_view<T, T*>(a.out, n, c0).data;
    auto at = [&](const T* r, int k) {  // element k of a row run
      if (a.contiguous) return r[k];
      return r[static_cast<std::int64_t>(k / g) * a.in.stride_w + static_cast<std::int64_t>(k % g) * a.in.stride_c];
    };
    for (int oy = oy0; oy < oy1; oy += a.pair) {
      // Output rows oy and oy + 1 (when two): input rows y0 + t for t < rows, the first output's
      // taps t < ny, the second's lead <= t < lead + ny2 (spans move down with the output row).
      const bool two = a.pair == 2 && oy + 1 < oy1;
      const int y0 = a.ty.xmin[oy], ny = a.ty.xsize[oy];
      const int lead = two ? a.ty.xmin[oy + 1] - y0 : 0, ny2 = two ? a.ty.xsize[oy + 1] : 0;
      const int rows = max(ny, lead + ny2);
      const A* wy = a.ty.w + oy;
      const A* wy2 = a.ty.w + oy + 1;
      A* const row2 = row + a.row_pitch;
      // Vertical: every element of the span, VEC per thread.
      for (int e = static_cast<int>(threadIdx.x) * VEC - shift; e < span; e += kThreads * VEC) {
        const bool full = a.vector_loads && e >= 0 && e + VEC <= span;
        // VEC values of input row y0 + t (zeros outside the span).
        auto load_row = [&](int t, A (&v)[VEC]) {
          const T* r = plane + static_cast<std::int64_t>(y0 + t) * a.in.stride_h + (a.contiguous ? run0 : 0);
          if (full) {
            const Vec<T, VEC> pack = *reinterpret_cast<const Vec<T, VEC>*>(r + e);
#pragma unroll
            for (int k = 0; k < VEC; ++k) v[k] = kernels::load_as<A>(pack.v[k]);
          } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
              const int idx = e + k;
              v[k] = idx >= 0 && idx < span ? kernels::load_as<A>(a.contiguous ? r[idx] : at(r, run0 + idx)) : A(0);
            }
          }
        };
        A acc[VEC], acc2[VEC];
        if constexpr (kFixed) {
          // uint8: exact int32 sums of the fixed-point weights (kernels::fixed_precision), the
          // bits of the tiled kernel (cuda/batch.cu) whatever the order.
          std::int32_t sum[VEC] = {}, sum2[VEC] = {};
          const std::int32_t* const qy = a.ty.q + oy;
          const std::int32_t* const qy2 = a.ty.q + oy + 1;
          auto q1 = [&](int t) { return t < ny ? qy[static_cast<std::int64_t>(t) * a.ty.size] : 0; };
          auto q2 = [&](int t) { return t >= lead && t < lead + ny2 ? qy2[static_cast<std::int64_t>(t - lead) * a.ty.size] : 0; };
          if (full) {
            // Two input rows a step: their bytes interleaved column by column (PRMT), each DP2A
            // takes a column's two taps (cuda/byte_quad.cuh). Past the last row the weights are 0.
            const T* r = plane + static_cast<std::int64_t>(y0) * a.in.stride_h + (a.contiguous ? run0 : 0) + e;
            for (int t = 0; t < rows; t += 2, r += 2 * a.in.stride_h) {
              const uint2 w0 = *reinterpret_cast<const uint2*>(r);
              const uint2 w1 = t + 1 < rows ? *reinterpret_cast<const uint2*>(r + a.in.stride_h) : w0;
              const unsigned b[4] = {__byte_perm(w0.x, w1.x, 0x5140u), __byte_perm(w0.x, w1.x, 0x7362u),
                                     __byte_perm(w0.y, w1.y, 0x5140u), __byte_perm(w0.y, w1.y, 0x7362u)};
              const unsigned p1 = kernels::pack_int16_pair(static_cast<std::int16_t>(q1(t)), static_cast<std::int16_t>(q1(t + 1)));
#pragma unroll
              for (int k = 0; k < 4; ++k) {
                sum[2 * k] = dot2<false>(p1, b[k], sum[2 * k]);
                sum[2 * k + 1] = dot2<true>(p1, b[k], sum[2 * k + 1]);
              }
              if (two) {
                const unsigned p2 = kernels::pack_int16_pair(static_cast<std::int16_t>(q2(t)), static_cast<std::int16_t>(q2(t + 1)));
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                  sum2[2 * k] = dot2<false>(p2, b[k], sum2[2 * k]);
                  sum2[2 * k + 1] = dot2<true>(p2, b[k], sum2[2 * k + 1]);
                }
              }
            }
          } else {
            for (int t = 0; t < rows; ++t) {
              const T* r = plane + static_cast<std::int64_t>(y0 + t) * a.in.stride_h + (a.contiguous ? run0 : 0);
              const std::int32_t w = q1(t), w2 = q2(t);
#pragma unroll
              for (int k = 0; k < VEC; ++k) {
                const int idx = e + k;
                const std::int32_t v = idx >= 0 && idx < span ? static_cast<std::int32_t>(a.contiguous ? r[idx] : at(r, run0 + idx)) : 0;
                sum[k] += v * w;
                sum2[k] += v * w2;
              }
            }
          }
          const A unit = kernels::fixed_unit(a.ty.precision[oy]);
          const A unit2 = two ? kernels::fixed_unit(a.ty.precision[oy + 1]) : A(0);
#pragma unroll
          for (int k = 0; k < VEC; ++k) {
            acc[k] = static_cast<A>(sum[k]) * unit;
            acc2[k] = static_cast<A>(sum2[k]) * unit2;
          }
        } else {
          // Each sum takes its taps in order, the first as a product: the same bits as one row at a
          // time (the second's first tap is fma(v, w, 0), the same rounded product).
          A v[VEC];
          load_row(0, v);
          const A w0 = wy[0];
#pragma unroll
          for (int k = 0; k < VEC; ++k) {
            acc[k] = v[k] * w0;
            acc2[k] = A(0);
          }
          if (lead == 0 && ny2 > 0) {
            const A w = wy2[0];
#pragma unroll
            for (int k = 0; k < VEC; ++k) acc2[k] = v[k] * w;
          }
#pragma unroll 2
          for (int t = 1; t < rows; ++t) {
            load_row(t, v);
            if (t < ny) {
              const A w = wy[static_cast<std::int64_t>(t) * a.ty.size];
#pragma unroll
              for (int k = 0; k < VEC; ++k) acc[k] = kernels::fused_mul_add(v[k], w, acc[k]);
            }
            if (t >= lead && t < lead + ny2) {
              const A w = wy2[static_cast<std::int64_t>(t - lead) * a.ty.size];
#pragma unroll
              for (int k = 0; k < VEC; ++k) acc2[k] = kernels::fused_mul_add(v[k], w, acc2[k]);
            }
          }
        }
        if constexpr (std::is_same_v<A, float> && VEC % 4 == 0) {
          // 16-byte stores: scalar stores of VEC consecutive floats per thread would hit each
          // bank from VEC / 4 * 8 lanes at once (8-way conflicts for VEC = 8).
          if (full && (e & 3) == 0) {
#pragma unroll
            for (int k = 0; k < VEC; k += 4) {
              *reinterpret_cast<float4*>(row + e + k) = make_float4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]);
              if (two) *reinterpret_cast<float4*>(row2 + e + k) = make_float4(acc2[k], acc2[k + 1], acc2[k + 2], acc2[k + 3]);
            }
            continue;
          }
        }
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
          if (e + k >= 0 && e + k < span) {
            row[e + k] = acc[k];
            if (two) row2[e + k] = acc2[k];
          }
        }
      }
      __syncthreads();
      // Horizontal: the tile's outputs of this row.
      const int outputs = (ox1 - ox0) * g;
      for (int i = static_cast<int>(threadIdx.x); i < (two ? 2 * outputs : outputs); i += kThreads) {
        const int r = i >= outputs ? 1 : 0, q = i - r * outputs;
        // Planar images (g == 1, the usual case) skip the division: ~25 instructions an output
        // where the filter itself takes ~5 a tap.
        const int ox = ox0 + (g == 1 ? q : q / g), c = g == 1 ? 0 : q % g;
        const A s = kernels::weighted_sum(a.tx.w + ox, a.tx.size, a.tx.xsize[ox], row + r * a.row_pitch + (a.tx.xmin[ox] - xs0) * g + c, g);
        out_plane[c * a.out.stride_c + (oy + r) * a.out.stride_h + ox * a.out.stride_w] = kernels::resize_output<T>(s);
      }
      __syncthreads();
    }
  }
}

// Host copy of one dimension's tap spans (the weights themselves stay on the device).
template <class A>
void spans(const kernels::AaDim<A>& d, std::vector<int>& xmin, std::vector<int>& xsize) {
  xmin.resize(static_cast<std::size_t>(d.out_size));
  xsize.resize(static_cast<std::size_t>(d.out_size));
  std::vector<A> w(static_cast<std::size_t>(d.max_taps));
  for (int i = 0; i < d.out_size; ++i) kernels::aa_weights(d, i, xmin[i], xsize[i], w.data());
}

template <class T>
void launch_antialias(const Tensor& input, const Tensor& output, kernels::ResampleFilter filter, const Stream& stream);

template <class T>
void resize_planar_copy(const Tensor& input, const Tensor& output, kernels::ResampleFilter filter, const Stream& stream) {
  const Tensor planar_in = empty(Dims(input.shape()), input.dtype(), input.device(), MemoryFormat::Contiguous, stream);
  const Tensor planar_out = empty(Dims(output.shape()), output.dtype(), output.device(), MemoryFormat::Contiguous, stream);
  copy_view(detail::strided_view(input), detail::strided_view(planar_in), stream, "resize");
  launch_antialias<T>(planar_in, planar_out, filter, stream);
  copy_view(detail::strided_view(planar_out), detail::strided_view(output), stream, "resize");
}

template <class T>
void launch_antialias(const Tensor& input, const Tensor& output, kernels::ResampleFilter filter, const Stream& stream) {
  using A = kernels::acc_t<T>;
  constexpr int VEC = kAaVec<T>;
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const kernels::AaDim<A> dx = kernels::make_aa_dim<A>(in.w, out.w, filter), dy = kernels::make_aa_dim<A>(in.h, out.h, filter);

  AaArgs<A> a{};
  a.in = in;
  a.out = out;
  static_cast<PlaneGroups&>(a) = plane_groups(in, sizeof(T), VEC * sizeof(T));
  void (*const kernel)(AaArgs<A>) = a.group == 1 ? aa_kernel<T, A, kAaMinBlocks<T>> : aa_kernel<T, A, 0>;

  // Column tiles whose input span fits the shared-memory budget; exact spans from the host.
  std::vector<int> xmin, xsize;
  spans(dx, xmin, xsize);
  const std::int64_t max_elements = kSharedBudget / static_cast<std::int64_t>(sizeof(A));
  auto widest_span = [&](int tile_w) {
    std::int64_t widest = 0;
    for (int x0 = 0; x0 < out.w; x0 += tile_w) {
      const int x1 = std::min<int>(x0 + tile_w, static_cast<int>(out.w));
      widest = std::max<std::int64_t>(widest, static_cast<std::int64_t>(xmin[x1 - 1] + xsize[x1 - 1] - xmin[x0]) * a.group);
    }
    return widest + VEC;  // slack for the aligned start
  };
  int tile_w = static_cast<int>(out.w);
  while (tile_w > 1 && widest_span(tile_w) > max_elements) tile_w = (tile_w + 1) / 2;
  // Two rows of accumulators where they fit in the same budget, else one (only spans too wide
  // for two: the opt-in below keeps serving them as before).
  const std::int64_t pitch = (widest_span(tile_w) + 3) / 4 * 4;
  a.pair = 2 * pitch <= max_elements ? 2 : 1;
  a.row_pitch = static_cast<int>(pitch);
  const std::int64_t shared =
      (a.pair == 2 ? 2 * pitch : widest_span(tile_w)) * static_cast<std::int64_t>(sizeof(A));
  if (shared > kSharedBudget) {
    // One output column's taps span more than the usual budget (a wide row shrunk to a few
    // columns): the block opts in to the device's larger shared memory for this launch.
    const int device = stream.device_index();
    if (shared > max_shared_bytes_optin(device)) {
      if (a.group > 1) {
        // Channels-last needs the span of every channel at once; plane by plane it needs one
        // channel's: resize a planar copy and copy the result back into the output's layout.
        resize_planar_copy<T>(input, output, filter, stream);
        return;
      }
      throw Error(ErrorKind::Value, "resize", "image",
                  "an input width whose antialias filter span fits in shared memory (" +
                      std::to_string(max_shared_bytes_optin(device)) + " bytes)",
                  "width " + std::to_string(in.w) + " resized to " + std::to_string(out.w));
    }
    SV_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)),
                  "resize");
  }
  a.tile_w = tile_w;
  a.col_tiles = static_cast<int>((out.w + tile_w - 1) / tile_w);
  // Bands of output rows: enough blocks to fill the device, bands tall enough that re-reading
  // their edges costs little.
  const std::int64_t sms = multiprocessor_count(stream.device_index());
  const std::int64_t per_band = static_cast<std::int64_t>(a.planes) * a.col_tiles;
  a.tile_h = static_cast<int>(std::clamp<std::int64_t>(per_band * out.h / (8 * sms), 1, 32));
  const std::int64_t bands = (out.h + a.tile_h - 1) / a.tile_h;
  const dim3 grid(static_cast<unsigned>(bands * a.col_tiles), static_cast<unsigned>(std::min<std::int64_t>(a.planes, 65535)));

  // Tables in stream-ordered scratch.
  constexpr bool fixed = std::is_same_v<T, std::uint8_t>;
  Scratch scratch(2 * Scratch::aligned_bytes<int>(out.w) + Scratch::aligned_bytes<A>(out.w * dx.max_taps) +
                      2 * Scratch::aligned_bytes<int>(out.h) + Scratch::aligned_bytes<A>(out.h * dy.max_taps) +
                      (fixed ? Scratch::aligned_bytes<std::int32_t>(out.h * dy.max_taps) + Scratch::aligned_bytes<int>(out.h) : 0),
                  input.device(), stream);
  int* const tx_min = scratch.take<int>(out.w);
  int* const tx_size = scratch.take<int>(out.w);
  A* const tx_w = scratch.take<A>(out.w * dx.max_taps);
  int* const ty_min = scratch.take<int>(out.h);
  int* const ty_size = scratch.take<int>(out.h);
  A* const ty_w = scratch.take<A>(out.h * dy.max_taps);
  a.tx = {tx_min, tx_size, tx_w, static_cast<int>(out.w)};
  std::int32_t* const ty_q = fixed ? scratch.take<std::int32_t>(out.h * dy.max_taps) : nullptr;
  int* const ty_precision = fixed ? scratch.take<int>(out.h) : nullptr;
  a.ty = {ty_min, ty_size, ty_w, static_cast<int>(out.h), ty_q, ty_precision};

  LaunchScope scope(stream, "resize");
  aa_tables_kernel<A><<<dim3(blocks_for(std::max(out.w, out.h)), 2), kBlockThreads, 0, scope.handle()>>>(
      dx, dy, tx_min, tx_size, tx_w, ty_min, ty_size, ty_w, ty_q, ty_precision);
  scope.check_launch();
  kernel<<<grid, kThreads, static_cast<std::size_t>(shared), scope.handle()>>>(a);
  scope.check_launch();
}

}  // namespace

void resize_antialias(const Tensor& input, const Tensor& output, InterpolationMode mode, const Stream& stream) {
  const kernels::ResampleFilter filter =
      mode == InterpolationMode::Bicubic ? kernels::ResampleFilter::Cubic : kernels::ResampleFilter::Triangle;
  detail::GeometryDTypes::dispatch(input.dtype(), "resize", [&](auto tag) {
    launch_antialias<typename decltype(tag)::type>(input, output, filter, stream);
  });
}

}  // namespace streamvision::cuda
