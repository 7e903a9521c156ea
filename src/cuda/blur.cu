// CUDA kernel of gaussian_blur, separable, in float (double for float64).
//
// Weights: one tiny kernel computes both 1-D kernels on the device with the CPU's code
// (kernels/blur.hpp) into stream-ordered scratch.
//
// Fused path (float accumulation, radii <= kMaxFusedRadius): a block produces a 64x64 output
// tile of one (image, channel) plane. It loads the tile plus its halo once into shared memory
// (converted to float, REFLECT_101 indices at the image border), filters the rows into a
// second shared buffer, then filters the columns and writes the tile. Each thread computes 8
// consecutive outputs with a register window, so a tap costs 8 FMAs per shared-memory load;
// row-pass lanes own different rows (odd row stride: no bank conflicts), column-pass lanes own
// consecutive columns. Global traffic: the input once plus the halo overlap ((64 + 2r)^2 / 64^2
// of the tile, mostly served by L2), the output once.
//
// Fallback (float64, or larger radii): a row pass into a float / double scratch image and a
// column pass, straight from global memory.
//
// Both paths accumulate every output as sum_j w[j] * x[j] with fma in increasing tap order, the
// CPU engine's order, so CPU and CUDA agree bit for bit.
#include <mutex>

#include "cuda/pixels.cuh"
#include "kernels/blur.hpp"
#include "core/dtype_dispatch.hpp"
#include "streamvision/functional/blur.hpp"

namespace streamvision::cuda {

namespace {

constexpr int kTileW = 64, kTileH = 64, kThreads = 256, kR = 8;
constexpr int kMaxFusedRadius = 32;

template <class T>
__global__ void blur_weights_kernel(int kx, double sx, int ky, double sy, kernels::BlurAcc<T>* w) {
  kernels::gaussian_weights<T>(kx, sx, w);
  kernels::gaussian_weights<T>(ky, sy, w + kx);
}

struct BlurShape {
  std::int64_t c, h, w;
  int kx, ky;
};

// Block b: channel b % C, then tile column, tile row, image (neighbouring blocks share a tile's
// pixels across channels, which helps channels_last inputs through L2).
struct TileIndex {
  kernels::FastDivmod channels, tiles_x, tiles_y;
};

// acc[i] = sum_j w[j] * src[(i + j) * step] for the 8 outputs i of a task, taps in increasing
// order (the CPU's order). A register window holds 16 consecutive inputs: a block of 8 taps costs
// 8 shared-memory loads and 64 FMAs. Reads beyond `last` (an index the task's outputs never
// need) are clamped to it.
__device__ SV_FORCE_INLINE void filter8(const float* src, int step, int last, const float* w, int k,
                                        float (&acc)[kR]) {
  float v[2 * kR];
#pragma unroll
  for (int i = 0; i < kR; ++i) {
    acc[i] = 0.0f;
    v[i] = src[min(i, last) * step];
  }
  int j0 = 0;
  for (; j0 + kR <= k; j0 += kR) {
#pragma unroll
    for (int i = 0; i < kR; ++i) v[kR + i] = src[min(j0 + kR + i, last) * step];
#pragma unroll
    for (int jj = 0; jj < kR; ++jj) {
      const float wj = w[j0 + jj];
#pragma unroll
      for (int i = 0; i < kR; ++i) acc[i] = fmaf(wj, v[i + jj], acc[i]);
    }
#pragma unroll
    for (int i = 0; i < kR; ++i) v[i] = v[kR + i];
  }
  for (int j = j0; j < k; ++j) {
    const float wj = w[j];
#pragma unroll
    for (int i = 0; i < kR; ++i) acc[i] = fmaf(wj, src[min(j + i, last) * step], acc[i]);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    blur_tile_kernel(DeviceImage<const T> in, DeviceImage<T> out, BlurShape s, TileIndex ti, std::int64_t first_image,
                     const float* weights) {
  extern __shared__ float smem[];
  const int rx = s.kx / 2, ry = s.ky / 2;
  const int rows = kTileH + 2 * ry;        // input rows of the tile
  const int cols = kTileW + 2 * rx;        // input columns of the tile
  const int in_stride = cols | 1;          // odd: conflict-free when lanes own rows
  constexpr int hs_stride = kTileW + 1;
  float* wx = smem;
  float* wy = wx + s.kx;
  float* in_s = wy + s.ky;
  float* hs = in_s + rows * in_stride;

  std::uint32_t rest, c, tx, ty, n;
  ti.channels.divmod(blockIdx.x, rest, c);
  ti.tiles_x.divmod(rest, rest, tx);
  ti.tiles_y.divmod(rest, n, ty);
  const std::int64_t image = first_image + n;
  const std::int64_t y0 = static_cast<std::int64_t>(ty) * kTileH, x0 = static_cast<std::int64_t>(tx) * kTileW;
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;

  for (int i = t; i < s.kx + s.ky; i += kThreads) smem[i] = weights[i];

  // Load: rows y0 - ry .. y0 + kTileH + ry, clamped to the last row any output of the tile reads
  // (the clamped ones are never used), then reflected into the image.
  const T* plane = in.data + image * in.stride_n + c * in.stride_c;
  for (int r = warp; r < rows; r += kThreads / 32) {
    const std::int64_t gy = kernels::reflect_index(min(y0 - ry + r, s.h - 1 + ry), s.h);
    const T* row = plane + gy * in.stride_h;
    for (int k = lane; k < cols; k += 32) {
      const std::int64_t gx = kernels::reflect_index(min(x0 - rx + k, s.w - 1 + rx), s.w);
      in_s[r * in_stride + k] = kernels::blur_input(row[gx * in.stride_w]);
    }
  }
  __syncthreads();

  // Rows: hs[r][x] = sum_j wx[j] * in_s[r][x + j], 8 consecutive x per task.
  for (int task = t; task < rows * (kTileW / kR); task += kThreads) {
    const int r = task % rows, xg = (task / rows) * kR;
    float acc[kR];
    filter8(in_s + r * in_stride + xg, 1, cols - 1 - xg, wx, s.kx, acc);
#pragma unroll
    for (int i = 0; i < kR; ++i) hs[r * hs_stride + xg + i] = acc[i];
  }
  __syncthreads();

  // Columns: out[y][x] = sum_i wy[i] * hs[y + i][x], 8 consecutive y per task.
  T* out_plane = out.data + image * out.stride_n + c * out.stride_c;
  for (int task = t; task < kTileW * (kTileH / kR); task += kThreads) {
    const int x = task % kTileW, yg = (task / kTileW) * kR;
    float acc[kR];
    filter8(hs + yg * hs_stride + x, hs_stride, rows - 1 - yg, wy, s.ky, acc);
    const std::int64_t gx = x0 + x;
    if (gx < s.w) {
#pragma unroll
      for (int i = 0; i < kR; ++i) {
        const std::int64_t gy = y0 + yg + i;
        if (gy < s.h) out_plane[gy * out.stride_h + gx * out.stride_w] = kernels::blur_output<T>(acc[i]);
      }
    }
  }
}

std::size_t tile_smem_bytes(const BlurShape& s) {
  const int rows = kTileH + 2 * (s.ky / 2), cols = kTileW + 2 * (s.kx / 2);
  return sizeof(float) * static_cast<std::size_t>(s.kx + s.ky + rows * (cols | 1) + rows * (kTileW + 1));
}

// ---- fallback: a row pass and a column pass through global memory ------------------------------

// Block b: 256 consecutive columns of row (plane, y).
struct RowIndex {
  kernels::FastDivmod blocks_per_row, height, channels;
};

template <class T>
__global__ void __launch_bounds__(256)
    blur_rows_kernel(DeviceImage<const T> in, kernels::BlurAcc<T>* tmp, BlurShape s, RowIndex ri,
                     std::int64_t first_row, const kernels::BlurAcc<T>* wx) {
  using Acc = kernels::BlurAcc<T>;
  std::uint32_t row, xb, plane, y, n, c;
  ri.blocks_per_row.divmod(blockIdx.x, row, xb);
  const std::int64_t x = static_cast<std::int64_t>(xb) * 256 + threadIdx.x;
  if (x >= s.w) return;
  const std::int64_t global_row = first_row + row;
  ri.height.divmod(static_cast<std::uint32_t>(global_row), plane, y);
  ri.channels.divmod(plane, n, c);
  const T* src = in.data + n * in.stride_n + c * in.stride_c + y * in.stride_h;
  const int rx = s.kx / 2;
  Acc acc = 0;
  for (int j = 0; j < s.kx; ++j) {
    acc = kernels::pmath::fma_(wx[j], kernels::blur_input(src[kernels::reflect_index(x + j - rx, s.w) * in.stride_w]), acc);
  }
  tmp[global_row * s.w + x] = acc;
}

template <class T>
__global__ void __launch_bounds__(256)
    blur_cols_kernel(const kernels::BlurAcc<T>* tmp, DeviceImage<T> out, BlurShape s, RowIndex ri, std::int64_t first_row,
                     const kernels::BlurAcc<T>* wy) {
  using Acc = kernels::BlurAcc<T>;
  std::uint32_t row, xb, plane, y, n, c;
  ri.blocks_per_row.divmod(blockIdx.x, row, xb);
  const std::int64_t x = static_cast<std::int64_t>(xb) * 256 + threadIdx.x;
  if (x >= s.w) return;
  const std::int64_t global_row = first_row + row;
  ri.height.divmod(static_cast<std::uint32_t>(global_row), plane, y);
  ri.channels.divmod(plane, n, c);
  const Acc* src = tmp + static_cast<std::int64_t>(plane) * s.h * s.w + x;
  const int ry = s.ky / 2;
  Acc acc = 0;
  // y is unsigned: widen before subtracting the radius (y + i - ry would wrap above the image).
  const std::int64_t y0 = static_cast<std::int64_t>(y) - ry;
  for (int i = 0; i < s.ky; ++i) acc = kernels::pmath::fma_(wy[i], src[kernels::reflect_index(y0 + i, s.h) * s.w], acc);
  out.data[n * out.stride_n + c * out.stride_c + y * out.stride_h + x * out.stride_w] = kernels::blur_output<T>(acc);
}

template <class T>
void blur(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const ops::GaussianBlurParams& params,
          Device device, const Stream& stream) {
  using Acc = kernels::BlurAcc<T>;
  const BlurShape s{in.c, in.h, in.w, static_cast<int>(params.kernel_x), static_cast<int>(params.kernel_y)};
  const bool fused = std::is_same_v<Acc, float> && s.kx / 2 <= kMaxFusedRadius && s.ky / 2 <= kMaxFusedRadius;
  const std::int64_t planes = in.n * in.c;
  if (planes >= (std::int64_t{1} << 31) || planes * in.h >= (std::int64_t{1} << 31)) {
    throw Error(ErrorKind::Value, "gaussian_blur", "image", "fewer than 2^31 rows on CUDA",
                std::to_string(planes * in.h) + " rows");
  }
  Scratch scratch(Scratch::aligned_bytes<Acc>(s.kx + s.ky) + (fused ? 0 : Scratch::aligned_bytes<Acc>(planes * in.h * in.w)),
                  device, stream);
  Acc* weights = scratch.take<Acc>(s.kx + s.ky);
  LaunchScope scope(stream, "gaussian_blur");
  blur_weights_kernel<T><<<1, 1, 0, scope.handle()>>>(s.kx, params.sigma_x, s.ky, params.sigma_y, weights);
  scope.check_launch();
  const DeviceImage<const T> src = device_image<const T>(in);
  const DeviceImage<T> dst = device_image<T>(out);
  if constexpr (std::is_same_v<Acc, float>) {
    if (fused) {
      const std::int64_t tiles_x = (in.w + kTileW - 1) / kTileW, tiles_y = (in.h + kTileH - 1) / kTileH;
      const std::int64_t blocks_per_image = tiles_x * tiles_y * in.c;
      TileIndex ti{kernels::FastDivmod(static_cast<std::uint32_t>(in.c)),
                   kernels::FastDivmod(static_cast<std::uint32_t>(tiles_x)),
                   kernels::FastDivmod(static_cast<std::uint32_t>(tiles_y))};
      const std::size_t smem = tile_smem_bytes(s);
      static std::once_flag configured[64];
      if (scope.device() >= 0 && scope.device() < 64) {
        std::call_once(configured[scope.device()], [] {
          const BlurShape largest{1, 1, 1, 2 * kMaxFusedRadius + 1, 2 * kMaxFusedRadius + 1};
          SV_CUDA_CHECK(cudaFuncSetAttribute(blur_tile_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(tile_smem_bytes(largest))),
                        "gaussian_blur");
        });
      }
      for_each_image_slice(in.n, blocks_per_image, [&](std::int64_t first, std::int64_t images) {
        blur_tile_kernel<T><<<static_cast<unsigned>(images * blocks_per_image), kThreads, smem, scope.handle()>>>(
            src, dst, s, ti, first, weights);
        scope.check_launch();
      });
      return;
    }
  }
  Acc* tmp = scratch.take<Acc>(planes * in.h * in.w);
  const std::int64_t blocks_per_row = blocks_for(in.w);
  const RowIndex ri{kernels::FastDivmod(static_cast<std::uint32_t>(blocks_per_row)),
                    kernels::FastDivmod(static_cast<std::uint32_t>(in.h)),
                    kernels::FastDivmod(static_cast<std::uint32_t>(in.c))};
  const std::int64_t rows = planes * in.h;
  const std::int64_t rows_per_launch = std::max<std::int64_t>(1, ((std::int64_t{1} << 31) - 1) / blocks_per_row);
  for (std::int64_t first = 0; first < rows; first += rows_per_launch) {
    const unsigned blocks = static_cast<unsigned>(std::min(rows_per_launch, rows - first) * blocks_per_row);
    blur_rows_kernel<T><<<blocks, 256, 0, scope.handle()>>>(src, tmp, s, ri, first, weights);
    scope.check_launch();
  }
  for (std::int64_t first = 0; first < rows; first += rows_per_launch) {
    const unsigned blocks = static_cast<unsigned>(std::min(rows_per_launch, rows - first) * blocks_per_row);
    blur_cols_kernel<T><<<blocks, 256, 0, scope.handle()>>>(tmp, dst, s, ri, first, weights + s.kx);
    scope.check_launch();
  }
}

void gaussian_blur(const Tensor& input, const Tensor& output, const ops::GaussianBlurParams& params,
                   const Stream& stream) {
  detail::ColorDTypes::dispatch(input.dtype(), "gaussian_blur", [&](auto tag) {
    blur<typename decltype(tag)::type>(detail::image_batch(input), detail::image_batch(output), params,
                                       input.device(), stream);
  });
}

SV_REGISTER_KERNEL(ops::GaussianBlur, DeviceType::CUDA, &gaussian_blur, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
