// Internal: the CUDA engine of the per-pixel colour ops and their reductions.
//
// An image batch [N, C, H, W] (kernels::ImageBatch, any strides) is walked in pixel groups
// (kernels/reduce.hpp): V consecutive pixels of a row, V = 16 bytes / element size. A thread
// loads a group of C channels with one 16-byte vector load per channel when the row is
// contiguous (NCHW) or with C vector loads de-interleaved in registers when the pixel's
// channels are contiguous (channels_last), and falls back to element loads at row ends and for
// other strides. Blocks never straddle images: block b works on image b / blocks_per_image, so
// per-image parameters (a mean, a lookup table) are uniform in a block.
//
// Index math is 32-bit (FastDivmod); the launchers split batches whose block count would not
// fit and reject images of more than 2^31 groups.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda/elementwise.cuh"
#include "cuda/launch.hpp"
#include "kernels/fast_divmod.hpp"
#include "kernels/image_batch.hpp"
#include "kernels/reduce.hpp"
#include "streamvision/core/error.hpp"

namespace streamvision::cuda {

inline constexpr int kPixelThreads = kernels::kReduceThreads;

template <class T>
struct DeviceImage {
  T* data;
  std::int64_t stride_n, stride_c, stride_h, stride_w;
};

template <class T>
DeviceImage<T> device_image(const kernels::ImageBatch& b) {
  return {static_cast<T*>(b.data), b.stride_n, b.stride_c, b.stride_h, b.stride_w};
}

// How blocks and threads map onto the groups of each image.
struct PixelGrid {
  std::uint32_t w = 0;
  std::uint32_t groups = 0;            // per image
  kernels::FastDivmod per_row;         // groups per row
  std::uint32_t groups_per_block = 0;  // groups_per_thread * kPixelThreads
  kernels::FastDivmod blocks;          // blocks per image
};

inline PixelGrid make_pixel_grid(const kernels::PixelGroups& g, int groups_per_thread, std::int64_t blocks_per_image,
                                 const char* op) {
  if (g.count >= (std::int64_t{1} << 31) || g.w >= (std::int64_t{1} << 31)) {
    throw Error(ErrorKind::Value, op, "image", "images of fewer than 2^31 pixel groups on CUDA",
                std::to_string(g.h) + "x" + std::to_string(g.w) + " pixels");
  }
  PixelGrid p;
  p.w = static_cast<std::uint32_t>(g.w);
  p.groups = static_cast<std::uint32_t>(g.count);
  p.per_row = kernels::FastDivmod(static_cast<std::uint32_t>(std::max<std::int64_t>(g.per_row, 1)));
  p.groups_per_block = static_cast<std::uint32_t>(groups_per_thread * kPixelThreads);
  p.blocks = kernels::FastDivmod(static_cast<std::uint32_t>(blocks_per_image));
  return p;
}

// Calls launch(first_image, images) for slices of the batch whose block count fits in a grid.
template <class Fn>
void for_each_image_slice(std::int64_t images, std::int64_t blocks_per_image, Fn&& launch) {
  const std::int64_t per_launch = std::max<std::int64_t>(1, ((std::int64_t{1} << 31) - 1) / blocks_per_image);
  for (std::int64_t first = 0; first < images; first += per_launch) launch(first, std::min(per_launch, images - first));
}

template <int C, class T>
__device__ SV_FORCE_INLINE bool channels_aligned16(const T* p, std::int64_t sc) {
  bool aligned = true;
#pragma unroll
  for (int c = 0; c < C; ++c) aligned = aligned && aligned16(p + c * sc);
  return aligned;
}

// The group `g` of an image: the offset of its first pixel in row-major units and its size.
struct GroupPos {
  std::uint32_t y, x0;
  int count;
};

template <int V>
__device__ SV_FORCE_INLINE GroupPos group_pos(const PixelGrid& grid, std::uint32_t g) {
  GroupPos p;
  std::uint32_t gx;
  grid.per_row.divmod(g, p.y, gx);
  p.x0 = gx * V;
  p.count = static_cast<int>(min(static_cast<std::uint32_t>(V), grid.w - p.x0));
  return p;
}

// x[c][v] = pixel v of the group, channel c. `p` points at the group's first pixel, channel 0.
template <int C, int V, class T>
__device__ SV_FORCE_INLINE void load_group(const T* p, std::int64_t sc, std::int64_t sw, int count, T (&x)[C][V]) {
  static_assert(V * sizeof(T) == 16, "a group is 16 bytes per channel");
  if (count == V) {
    if (sw == 1 && channels_aligned16<C>(p, sc)) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const Pack<T, V> pack = *reinterpret_cast<const Pack<T, V>*>(p + c * sc);
#pragma unroll
        for (int v = 0; v < V; ++v) x[c][v] = pack.v[v];
      }
      return;
    } else if (C > 1 && sc == 1 && sw == C && aligned16(p)) {
      T flat[C * V];
#pragma unroll
      for (int k = 0; k < C; ++k) {
        const Pack<T, V> pack = *reinterpret_cast<const Pack<T, V>*>(p + k * V);
#pragma unroll
        for (int v = 0; v < V; ++v) flat[k * V + v] = pack.v[v];
      }
#pragma unroll
      for (int c = 0; c < C; ++c) {
#pragma unroll
        for (int v = 0; v < V; ++v) x[c][v] = flat[v * C + c];
      }
      return;
    }
  }
#pragma unroll
  for (int v = 0; v < V; ++v) {
    if (v < count) {
#pragma unroll
      for (int c = 0; c < C; ++c) x[c][v] = p[v * sw + c * sc];
    }
  }
}

template <int C, int V, class T>
__device__ SV_FORCE_INLINE void store_group(T* p, std::int64_t sc, std::int64_t sw, int count, const T (&y)[C][V]) {
  if (count == V) {
    if (sw == 1 && channels_aligned16<C>(p, sc)) {
#pragma unroll
      for (int c = 0; c < C; ++c) {
        Pack<T, V> pack;
#pragma unroll
        for (int v = 0; v < V; ++v) pack.v[v] = y[c][v];
        *reinterpret_cast<Pack<T, V>*>(p + c * sc) = pack;
      }
      return;
    } else if (C > 1 && sc == 1 && sw == C && aligned16(p)) {
#pragma unroll
      for (int k = 0; k < C; ++k) {
        Pack<T, V> pack;
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const int flat = k * V + v;
          pack.v[v] = y[flat % C][flat / C];
        }
        *reinterpret_cast<Pack<T, V>*>(p + k * V) = pack;
      }
      return;
    }
  }
#pragma unroll
  for (int v = 0; v < V; ++v) {
    if (v < count) {
#pragma unroll
      for (int c = 0; c < C; ++c) p[v * sw + c * sc] = y[c][v];
    }
  }
}

// An op whose parameters are per image may offer at(n) in place of its call operator: image n's
// functor, made once per thread (a block never straddles images) rather than read from its
// arrays once per pixel.
template <class Op>
__device__ SV_FORCE_INLINE auto for_image(const Op& op, std::int64_t n) {
  if constexpr (requires { op.at(n); }) {
    return op.at(n);
  } else {
    return op;
  }
}

// The element type an op writes: Op::Out when it names one (a fused conversion, batch_jitter.cu),
// else its input's.
template <class Op, class T>
struct op_output {
  using type = T;
};
template <class Op, class T>
  requires requires { typename Op::Out; }
struct op_output<Op, T> {
  using type = typename Op::Out;
};

// Blocks per SM the pixel kernel is built for: 4 (at most 64 registers) unless the op asks for
// fewer (Op::kMinBlocks: a long per-pixel chain that would spill at 64, batch_jitter.cu).
template <class Op>
constexpr int pixel_min_blocks() {
  if constexpr (requires { Op::kMinBlocks; }) {
    return Op::kMinBlocks;
  } else {
    return 4;
  }
}

// Blocks per SM pixel_quad_kernel is built for: Op::kQuadMinBlocks where the op sets it (hue: its
// quad form fits 48 registers with the same instructions as at 64), else pixel_min_blocks.
template <class Op>
constexpr int pixel_quad_min_blocks() {
  if constexpr (requires { Op::kQuadMinBlocks; }) {
    return Op::kQuadMinBlocks;
  } else {
    return pixel_min_blocks<Op>();
  }
}

// uint8 ops with a quad form (Op::kQuads, kernels/color.hpp): op.quad(n, x[kIn], y[kOut]) on four
// pixels, one 32-bit word per channel.
template <class Op, class T>
inline constexpr bool kPixelQuads = false;
template <class Op, class T>
  requires requires { Op::kQuads; }
inline constexpr bool kPixelQuads<Op, T> =
    Op::kQuads && std::is_same_v<T, std::uint8_t> && std::is_same_v<typename op_output<Op, T>::type, std::uint8_t>;

// op(n, x[kIn], y[kOut]) for every pixel: one group per thread.
// At most 64 registers (4 blocks of 256 per SM): enough 16-byte loads in flight per SM to
// saturate memory even though each thread handles one group.
template <int V, class T, class Op>
__global__ void __launch_bounds__(kPixelThreads, pixel_min_blocks<Op>())
    pixel_map_kernel(DeviceImage<const T> in, DeviceImage<typename op_output<Op, T>::type> out, PixelGrid grid,
                     std::int64_t first_image, Op op) {
  using O = typename op_output<Op, T>::type;
  std::uint32_t n, q;
  grid.blocks.divmod(blockIdx.x, n, q);
  const std::uint32_t g = q * kPixelThreads + threadIdx.x;
  if (g >= grid.groups) return;
  const GroupPos pos = group_pos<V>(grid, g);
  const std::int64_t image = first_image + n;
  T x[Op::kIn][V];
  load_group<Op::kIn, V>(in.data + image * in.stride_n + pos.y * in.stride_h + pos.x0 * in.stride_w, in.stride_c,
                         in.stride_w, pos.count, x);
  O y[Op::kOut][V];
  const auto f = for_image(op, image);
#pragma unroll
  for (int v = 0; v < V; ++v) {
    T a[Op::kIn];
    O b[Op::kOut];
#pragma unroll
    for (int c = 0; c < Op::kIn; ++c) a[c] = x[c][v];
    f(image, a, b);
#pragma unroll
    for (int c = 0; c < Op::kOut; ++c) y[c][v] = b[c];
  }
  store_group<Op::kOut, V>(out.data + image * out.stride_n + pos.y * out.stride_h + pos.x0 * out.stride_w,
                           out.stride_c, out.stride_w, pos.count, y);
}

// The uint8 quad forms over a batch in which every group is a whole, aligned vector per channel
// (quad_vectors below): one 16-byte load per channel, the op on its four words, one store per
// channel. A kernel of its own: sharing one with pixel_map_kernel's element paths cost the
// channels-last saturation kernel 32 bytes of spills (0.270 -> 0.309 ms, eleventh session).
template <class Op>
__global__ void __launch_bounds__(kPixelThreads, pixel_quad_min_blocks<Op>())
    pixel_quad_kernel(DeviceImage<const std::uint8_t> in, DeviceImage<std::uint8_t> out, PixelGrid grid,
                      std::int64_t first_image, Op op) {
  std::uint32_t n, q;
  grid.blocks.divmod(blockIdx.x, n, q);
  const std::uint32_t g = q * kPixelThreads + threadIdx.x;
  if (g >= grid.groups) return;
  const GroupPos pos = group_pos<16>(grid, g);
  const std::int64_t image = first_image + n;
  const std::uint8_t* src = in.data + image * in.stride_n + pos.y * in.stride_h + pos.x0;
  std::uint8_t* dst = out.data + image * out.stride_n + pos.y * out.stride_h + pos.x0;
  const auto f = for_image(op, image);
  uint4 xv[Op::kIn], yv[Op::kOut];
#pragma unroll
  for (int c = 0; c < Op::kIn; ++c) xv[c] = *reinterpret_cast<const uint4*>(src + c * in.stride_c);
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    std::uint32_t a[Op::kIn], b[Op::kOut];
#pragma unroll
    for (int c = 0; c < Op::kIn; ++c) a[c] = reinterpret_cast<const std::uint32_t*>(&xv[c])[w];
    f.quad(image, a, b);
#pragma unroll
    for (int c = 0; c < Op::kOut; ++c) reinterpret_cast<std::uint32_t*>(&yv[c])[w] = b[c];
  }
#pragma unroll
  for (int c = 0; c < Op::kOut; ++c) *reinterpret_cast<uint4*>(dst + c * out.stride_c) = yv[c];
}

// Whether every 16-pixel group of a uint8 batch is one aligned 16-byte vector per channel: unit
// pixel stride, rows a multiple of 16 pixels, every other stride a multiple of 16 bytes, an
// aligned base.
inline bool quad_vectors(const kernels::ImageBatch& b) {
  const auto multiple = [](std::int64_t v) { return v % 16 == 0; };
  return b.stride_w == 1 && multiple(b.w) && multiple(b.stride_h) && multiple(b.stride_c) && multiple(b.stride_n) &&
         (reinterpret_cast<std::uintptr_t>(b.data) & 15u) == 0;
}

// Reductions: fn(x, count) for the groups thread t of chunk `chunk` accumulates, in order
// (kernels/reduce.hpp: groups (chunk * groups_per_thread + k) * kPixelThreads + t).
template <int C, int V, class T, class Fn>
__device__ SV_FORCE_INLINE void for_each_group(const DeviceImage<const T>& in, const PixelGrid& grid,
                                               std::int64_t image, std::uint32_t chunk, int groups_per_thread,
                                               Fn&& fn) {
  for (int k = 0; k < groups_per_thread; ++k) {
    const std::uint32_t g = (chunk * groups_per_thread + k) * kPixelThreads + threadIdx.x;
    if (g >= grid.groups) break;
    const GroupPos pos = group_pos<V>(grid, g);
    T x[C][V];
    load_group<C, V>(in.data + image * in.stride_n + pos.y * in.stride_h + pos.x0 * in.stride_w, in.stride_c,
                     in.stride_w, pos.count, x);
    fn(x, pos.count);
  }
}

template <class T, class Op>
void launch_pixels(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const Op& op, const Stream& stream,
                   const char* name) {
  constexpr int V = kernels::pixel_group_size<T>();
  if (in.n == 0 || in.h == 0 || in.w == 0) return;
  const kernels::PixelGroups groups = kernels::PixelGroups::make(in.h, in.w, V);
  const std::int64_t blocks_per_image = groups.chunks(1);
  const PixelGrid grid = make_pixel_grid(groups, 1, blocks_per_image, name);
  LaunchScope scope(stream, name);
  bool quads = false;
  if constexpr (kPixelQuads<Op, T>) quads = quad_vectors(in) && quad_vectors(out);
  for_each_image_slice(in.n, blocks_per_image, [&](std::int64_t first, std::int64_t images) {
    const unsigned blocks = static_cast<unsigned>(images * blocks_per_image);
    if constexpr (kPixelQuads<Op, T>) {
      if (quads) {
        pixel_quad_kernel<Op><<<blocks, kPixelThreads, 0, scope.handle()>>>(
            device_image<const std::uint8_t>(in), device_image<std::uint8_t>(out), grid, first, op);
        scope.check_launch();
        return;
      }
    }
    pixel_map_kernel<V, T, Op><<<blocks, kPixelThreads, 0, scope.handle()>>>(
        device_image<const T>(in), device_image<typename op_output<Op, T>::type>(out), grid, first, op);
    scope.check_launch();
  });
}

}  // namespace streamvision::cuda
