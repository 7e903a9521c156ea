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
};

inline PlaneSet plane_set(const kernels::ImageBatch& b) {
  PlaneSet s;
  s.div_c = kernels::FastDivmod(static_cast<std::uint32_t>(std::max<std::int64_t>(b.c, 1)));
  s.stride_n = b.stride_n;
  s.stride_c = b.stride_c;
  return s;
}

// Grid of a pixel-major kernel: x covers `pixels` in blocks of 256, y splits `planes` into
// groups so that the launch has roughly `target_threads` threads.
struct PixelGrid {
  dim3 grid;
  std::uint32_t planes_per_group = 1;
  kernels::FastDivmod div_w;  // output width
};

inline PixelGrid pixel_grid(std::int64_t out_h, std::int64_t out_w, std::int64_t planes, int device) {
  PixelGrid g;
  const std::int64_t pixels = out_h * out_w;
  if (pixels >= (std::int64_t{1} << 31) - 256 || planes >= (std::int64_t{1} << 31)) {
    throw Error(ErrorKind::Value, "geometry", "output", "fewer than 2^31 pixels per plane and 2^31 planes",
                std::to_string(out_h) + " x " + std::to_string(out_w) + " pixels, " + std::to_string(planes) + " planes");
  }
  const std::int64_t target = static_cast<std::int64_t>(multiprocessor_count(device)) * 2048 * 4;
  const std::int64_t groups = std::clamp<std::int64_t>((target + pixels - 1) / std::max<std::int64_t>(pixels, 1), 1,
                                                       std::min<std::int64_t>(planes, 65535));
  g.planes_per_group = static_cast<std::uint32_t>((planes + groups - 1) / groups);
  g.grid = dim3(static_cast<unsigned>((pixels + 255) / 256), static_cast<unsigned>((planes + g.planes_per_group - 1) / g.planes_per_group));
  g.div_w = kernels::FastDivmod(static_cast<std::uint32_t>(std::max<std::int64_t>(out_w, 1)));
  return g;
}

// The planes [first, last) the current block's y index handles.
__device__ SV_FORCE_INLINE void plane_range(std::uint32_t planes, std::uint32_t per_group, std::uint32_t& first,
                                            std::uint32_t& last) {
  first = blockIdx.y * per_group;
  last = min(planes, first + per_group);
}

// Stream-ordered scratch bytes on the op's stream (freed, stream-ordered, when the tensor goes).
inline Tensor scratch_bytes(std::int64_t bytes, const Tensor& like, const Stream& stream) {
  return empty({std::max<std::int64_t>(bytes, 1)}, DType::UInt8, like.device(), MemoryFormat::Contiguous, stream);
}

// Carves aligned arrays out of one scratch allocation.
class ScratchLayout {
 public:
  template <class T>
  std::int64_t add(std::int64_t count) {
    offset_ = (offset_ + 255) / 256 * 256;
    const std::int64_t at = offset_;
    offset_ += count * static_cast<std::int64_t>(sizeof(T));
    return at;
  }
  std::int64_t bytes() const { return offset_; }
  template <class T>
  static T* at(const Tensor& scratch, std::int64_t offset) {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(scratch.data()) + offset);
  }

 private:
  std::int64_t offset_ = 0;
};

}  // namespace streamvision::cuda
