// Internal: launch helpers shared by the CUDA geometry engines (resize, warps).
//
// The per-pixel kernels (nearest/bilinear/bicubic resize, the warps) are pixel-major: a thread
// computes the source taps of one output pixel once and applies them to a group of planes
// (n, c), so the coordinate math is amortised over the batch and every plane's store is
// coalesced. Blocks along y split the planes into groups so that small outputs still fill the
// device.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/launch.hpp"
#include "kernels/fast_divmod.hpp"
#include "kernels/image_batch.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision::cuda {

// The planes of an image batch: plane p = n * C + c starts at n * stride_n + c * stride_c.
struct PlaneSet {
  kernels::FastDivmod div_c;
  std::int64_t stride_n = 0, stride_c = 0;
  __device__ SV_FORCE_INLINE std::int64_t offset(std::uint32_t p) const {
    std::uint32_t n, c;
    div_c.divmod(p, n, c);
    return static_cast<std::int64_t>(n) * stride_n + static_cast<std::int64_t>(c) * stride_c;
  }
  // Plane p of a batch given as the kernels::PlaneView of its plane 0.
  template <class View>
  __device__ SV_FORCE_INLINE View plane(View v, std::uint32_t p) const {
    v.data += offset(p);
    return v;
  }
};

inline PlaneSet plane_set(const kernels::ImageBatch& b) {
  PlaneSet s;
  s.div_c = kernels::FastDivmod(static_cast<std::uint32_t>(std::max<std::int64_t>(b.c, 1)));
  s.stride_n = b.stride_n;
  s.stride_c = b.stride_c;
  return s;
}

// How the separable resampling kernels walk a batch: channels-last inputs filter all channels of
// a pixel run together (one plane group per image), other layouts one channel plane at a time.
struct PlaneGroups {
  int group = 1;              // channels filtered together: C for channels-last runs, else 1
  int groups = 1;             // C / group
  std::uint32_t planes = 0;   // N * groups
  bool contiguous = false;    // a row of a plane group is one run of consecutive elements
  bool vector_loads = false;  // ... and every row starts aligned for loads of `load_bytes`
};

inline PlaneGroups plane_groups(const kernels::ImageBatch& in, std::int64_t element_bytes, std::int64_t load_bytes) {
  PlaneGroups g;
  const bool interleaved = in.c > 1 && in.stride_c == 1 && in.stride_w == in.c;
  g.group = interleaved ? static_cast<int>(in.c) : 1;
  g.groups = static_cast<int>(in.c) / g.group;
  g.planes = static_cast<std::uint32_t>(in.n * g.groups);
  g.contiguous = interleaved || in.stride_w == 1 || in.w == 1;
  const auto aligned = [&](std::int64_t stride) { return stride * element_bytes % load_bytes == 0; };
  g.vector_loads = g.contiguous && reinterpret_cast<std::uintptr_t>(in.data) % load_bytes == 0 &&
                   (in.h <= 1 || aligned(in.stride_h)) && (in.n <= 1 || aligned(in.stride_n)) &&
                   (g.groups <= 1 || aligned(in.stride_c));
  return g;
}

// Grid of a pixel-major kernel: x covers `pixels` in blocks of kBlockThreads, y splits `planes` into
// groups so that the launch has roughly `target_threads` threads.
struct PixelMajorGrid {
  dim3 grid;
  std::uint32_t planes_per_group = 1;
  kernels::FastDivmod div_w;  // output width
};

inline PixelMajorGrid pixel_major_grid(std::int64_t out_h, std::int64_t out_w, std::int64_t planes, int device) {
  PixelMajorGrid g;
  const std::int64_t pixels = out_h * out_w;
  if (pixels >= (std::int64_t{1} << 31) - 256 || planes >= (std::int64_t{1} << 31)) {
    throw Error(ErrorKind::Value, "geometry", "output", "fewer than 2^31 pixels per plane and 2^31 planes",
                std::to_string(out_h) + " x " + std::to_string(out_w) + " pixels, " + std::to_string(planes) + " planes");
  }
  const std::int64_t target = 4 * resident_threads(device);
  const std::int64_t groups = std::clamp<std::int64_t>((target + pixels - 1) / std::max<std::int64_t>(pixels, 1), 1,
                                                       std::min<std::int64_t>(planes, 65535));
  g.planes_per_group = static_cast<std::uint32_t>((planes + groups - 1) / groups);
  g.grid = dim3(blocks_for(pixels), blocks_for(planes, g.planes_per_group));
  g.div_w = kernels::FastDivmod(static_cast<std::uint32_t>(std::max<std::int64_t>(out_w, 1)));
  return g;
}

// The planes [first, last) the current block's y index handles.
__device__ SV_FORCE_INLINE void plane_range(std::uint32_t planes, std::uint32_t per_group, std::uint32_t& first,
                                            std::uint32_t& last) {
  first = blockIdx.y * per_group;
  last = min(planes, first + per_group);
}

// Block blockIdx.x of a tiled separable resampler (`a.col_tiles` tiles per band of `a.tile_h`
// output rows): its output tile [oy0, oy1) x [ox0, ox1) and the part of an input row run its
// columns read, `span` elements from `run0` (a.group channels interleaved per pixel).
struct ResampleTile {
  int oy0, oy1, ox0, ox1, xs0, span, run0;
};

template <class Args>
__device__ SV_FORCE_INLINE ResampleTile resample_tile(const Args& a) {
  ResampleTile t;
  const int rt = static_cast<int>(blockIdx.x) / a.col_tiles, ct = static_cast<int>(blockIdx.x) % a.col_tiles;
  t.oy0 = rt * a.tile_h;
  t.oy1 = min(t.oy0 + a.tile_h, static_cast<int>(a.out.h));
  t.ox0 = ct * a.tile_w;
  t.ox1 = min(t.ox0 + a.tile_w, static_cast<int>(a.out.w));
  t.xs0 = a.tx.xmin[t.ox0];
  t.span = (a.tx.xmin[t.ox1 - 1] + a.tx.xsize[t.ox1 - 1] - t.xs0) * a.group;
  t.run0 = t.xs0 * a.group;
  return t;
}

}  // namespace streamvision::cuda
