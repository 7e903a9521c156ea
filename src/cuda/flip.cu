// CUDA kernels of the flips: a copy of the input read through a view with one stride negated
// (reversed 16-byte vectors where rows allow), and, for horizontal flips of channels-last images
// of 1- and 2-byte values, whole rows reversed pixel by pixel through shared memory.
#include <algorithm>

#include "core/dtype_dispatch.hpp"
#include "core/tensor_views.hpp"
#include "cuda/elementwise.cuh"
#include "kernels/fast_divmod.hpp"
#include "streamvision/functional/flip.hpp"

namespace streamvision::cuda {

namespace {

// A channels-last row is W pixels of C values; flipped, the pixels reverse but each pixel's
// values keep their order, so the row is not a reversed run and the elementwise engine gathers
// it value by value: uint8 hflip of 64x3x1080x1920 channels-last ran at 35 % of the copy
// bandwidth (ff59c01 on the H200), against 90 % for planar images. Here a block takes whole
// rows, one after another: 16-byte loads of the row into shared memory (coalesced), then 16-byte
// stores of the flipped row, each assembled from the reversed pixels in shared memory (coalesced).
constexpr int kRowThreads = 256;
constexpr std::int64_t kMaxRowBytes = 32 * 1024;

struct PixelRows {
  std::int64_t in_stride_n, in_stride_h, out_stride_n, out_stride_h;  // elements
  kernels::FastDivmod h_div;  // row r is (n, h) = divmod(r, H)
  kernels::FastDivmod c_div;  // value e of a row is (pixel, channel) = divmod(e, C)
  std::uint32_t rows, width, channels, values;  // values = width * channels
  bool vector_in, vector_out;                   // rows 16-byte aligned and a multiple of 16 bytes
};

// Rows whose vectors a thread can hold: these load the block's next row into registers before
// writing the current one, so that the SM keeps a row of loads in flight while it stores (one row
// at a time ran at 79 % of the copy rate on 64x3x1080x1920 uint8, bench/RESULTS.md, twenty-fifth
// session: the loads and the stores of a block took turns).
constexpr std::uint32_t kHeldVectors = 2;

template <class T>
__global__ void __launch_bounds__(kRowThreads) flip_pixel_rows_kernel(const T* in, T* out, const __grid_constant__ PixelRows p) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const row = reinterpret_cast<T*>(smem_raw);
  constexpr std::uint32_t kPerVector = 16 / sizeof(T);
  const std::uint32_t vectors = p.values / kPerVector;
  auto row_in = [&](std::uint32_t r) {
    std::uint32_t n, h;
    p.h_div.divmod(r, n, h);
    return in + n * p.in_stride_n + h * p.in_stride_h;
  };
  // The held row's vectors (threadIdx.x + k * kRowThreads), when rows are held in registers.
  const bool hold = p.vector_in && vectors <= kHeldVectors * kRowThreads;
  uint4 held[kHeldVectors];
  auto load_held = [&](std::uint32_t r) {
    const uint4* src = reinterpret_cast<const uint4*>(row_in(r));
#pragma unroll
    for (std::uint32_t k = 0; k < kHeldVectors; ++k) {
      const std::uint32_t i = threadIdx.x + k * kRowThreads;
      if (i < vectors) held[k] = src[i];
    }
  };
  if (hold && blockIdx.x < p.rows) load_held(blockIdx.x);
  for (std::uint32_t r = blockIdx.x; r < p.rows; r += gridDim.x) {
    std::uint32_t n, h;
    p.h_div.divmod(r, n, h);
    T* dst = out + n * p.out_stride_n + h * p.out_stride_h;
    if (hold) {
#pragma unroll
      for (std::uint32_t k = 0; k < kHeldVectors; ++k) {
        const std::uint32_t i = threadIdx.x + k * kRowThreads;
        if (i < vectors) reinterpret_cast<uint4*>(row)[i] = held[k];
      }
    } else if (p.vector_in) {
      const T* src = row_in(r);
      for (std::uint32_t i = threadIdx.x; i < vectors; i += kRowThreads) {
        reinterpret_cast<uint4*>(row)[i] = reinterpret_cast<const uint4*>(src)[i];
      }
    } else {
      const T* src = row_in(r);
      for (std::uint32_t i = threadIdx.x; i < p.values; i += kRowThreads) row[i] = src[i];
    }
    __syncthreads();
    if (hold && r + gridDim.x < p.rows) load_held(r + gridDim.x);  // in flight while this row is written
    // Output value e = (x, c) is the row's value (W - 1 - x, c).
    if (p.vector_out) {
      for (std::uint32_t i = threadIdx.x; i < vectors; i += kRowThreads) {
        union {
          uint4 v;
          T t[kPerVector];
        } pack;
        std::uint32_t x, c;
        p.c_div.divmod(i * kPerVector, x, c);
#pragma unroll
        for (std::uint32_t k = 0; k < kPerVector; ++k) {
          pack.t[k] = row[(p.width - 1 - x) * p.channels + c];
          if (++c == p.channels) {
            c = 0;
            ++x;
          }
        }
        reinterpret_cast<uint4*>(dst)[i] = pack.v;
      }
    } else {
      for (std::uint32_t e = threadIdx.x; e < p.values; e += kRowThreads) {
        std::uint32_t x, c;
        p.c_div.divmod(e, x, c);
        dst[e] = row[(p.width - 1 - x) * p.channels + c];
      }
    }
    __syncthreads();  // the row buffer is refilled for the next row
  }
}

// The pixel-row plan, or nullopt where the generic copy applies: both images channels-last with
// rows of whole pixels (stride_c 1, stride_w C), C of 2 or more, values of 1 or 2 bytes, rows
// that fit the shared buffer, and counts within 32 bits.
std::optional<PixelRows> pixel_rows_of(const Tensor& input, const Tensor& output) {
  const std::size_t item = input.itemsize();
  if (item > 2 || input.dim() < 3) return std::nullopt;
  const auto a = detail::try_image_batch(input), b = detail::try_image_batch(output);
  if (!a || !b || a->c < 2) return std::nullopt;
  for (const kernels::ImageBatch* x : {&*a, &*b}) {
    if (x->stride_c != 1 || x->stride_w != x->c) return std::nullopt;
  }
  const std::int64_t values = a->w * a->c, rows = a->n * a->h;
  if (values * static_cast<std::int64_t>(item) > kMaxRowBytes || rows >= (std::int64_t{1} << 31) || a->h >= (std::int64_t{1} << 31)) {
    return std::nullopt;
  }
  PixelRows p{};
  p.in_stride_n = a->n > 1 ? a->stride_n : 0;
  p.in_stride_h = a->stride_h;
  p.out_stride_n = b->n > 1 ? b->stride_n : 0;
  p.out_stride_h = b->stride_h;
  p.h_div = kernels::FastDivmod(static_cast<std::uint32_t>(a->h));
  p.c_div = kernels::FastDivmod(static_cast<std::uint32_t>(a->c));
  p.rows = static_cast<std::uint32_t>(rows);
  p.width = static_cast<std::uint32_t>(a->w);
  p.channels = static_cast<std::uint32_t>(a->c);
  p.values = static_cast<std::uint32_t>(values);
  const std::int64_t row_bytes = values * static_cast<std::int64_t>(item);
  auto rows_aligned = [&](const void* base, std::int64_t stride_n, std::int64_t stride_h) {
    const std::int64_t sn = stride_n * static_cast<std::int64_t>(item), sh = stride_h * static_cast<std::int64_t>(item);
    return (reinterpret_cast<std::uintptr_t>(base) % 16) == 0 && row_bytes % 16 == 0 && sn % 16 == 0 && sh % 16 == 0;
  };
  p.vector_in = rows_aligned(input.data(), p.in_stride_n, p.in_stride_h);
  p.vector_out = rows_aligned(output.data(), p.out_stride_n, p.out_stride_h);
  return p;
}

template <class T>
void flip_pixel_rows(const Tensor& input, const Tensor& output, const PixelRows& p, const Stream& stream) {
  const std::size_t smem = (static_cast<std::size_t>(p.values) * sizeof(T) + 15) / 16 * 16;
  LaunchScope scope(stream, "horizontal_flip");
  // Rows stride over one wave of resident blocks (threads and the shared buffer, up to 32 KB,
  // bound how many an SM holds): each block walks many rows, loading the next while it writes
  // the current. A block per row (the grid before) left those two phases to alternate.
  const int device = stream.device_index();
  const std::int64_t per_sm = std::max<std::int64_t>(
      1, std::min<std::int64_t>(2048 / kRowThreads, max_shared_bytes_per_multiprocessor(device) / static_cast<std::int64_t>(smem + 1024)));
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>({p.rows, per_sm * multiprocessor_count(device), 65535}));
  flip_pixel_rows_kernel<T><<<blocks, kRowThreads, smem, scope.handle()>>>(static_cast<const T*>(input.data()),
                                                                           static_cast<T*>(output.data()), p);
  scope.check_launch();
}

void horizontal_flip(const Tensor& input, const Tensor& output, const Stream& stream) {
  if (const auto rows = pixel_rows_of(input, output)) {
    if (input.itemsize() == 1) return flip_pixel_rows<std::uint8_t>(input, output, *rows, stream);
    return flip_pixel_rows<std::uint16_t>(input, output, *rows, stream);
  }
  copy_view(detail::strided_view(input).flipped(input.dim() - 1), detail::strided_view(output), stream,
            "horizontal_flip");
}

void vertical_flip(const Tensor& input, const Tensor& output, const Stream& stream) {
  copy_view(detail::strided_view(input).flipped(input.dim() - 2), detail::strided_view(output), stream,
            "vertical_flip");
}

SV_REGISTER_KERNEL(ops::HorizontalFlip, DeviceType::CUDA, &horizontal_flip, detail::AllDTypes::set);
SV_REGISTER_KERNEL(ops::VerticalFlip, DeviceType::CUDA, &vertical_flip, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
