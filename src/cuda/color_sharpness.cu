// CUDA kernels of adjust_sharpness: four columns a thread over strips of rows for dense aligned
// planes, and one thread per output pixel for any other layout.
#include <cstring>
#include <type_traits>

#include "cuda/byte_quad.cuh"
#include "cuda/pixels.cuh"
#include "kernels/color_sharpness.hpp"
#include "core/dtype_dispatch.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

// adjust_sharpness over rows of dense, aligned quads: the common case (NCHW planes whose rows start
// on a 4-element boundary; uint8, uint16, float16, bfloat16, float32). A thread owns four columns
// and walks a strip of rows, keeping three rows converted in registers: each element is loaded
// once per strip (one vector load per row and thread; the two columns beside a quad come from the
// neighbouring lanes by shuffle) and converted once, where the per-pixel kernel below loads and
// converts nine elements for every output (2.12 ms against CV-CUDA's 0.66 on 64x3x1080x1920
// uint8, bench/RESULTS.md, tenth session). Both kernels call kernels::sharpen, so they agree bit
// for bit.
constexpr int kQuadThreads = 128;  // a block: 512 columns of a strip
constexpr int kStripRows = 32;     // halo rows re-read per strip: 2 of 34

template <class T>
struct alignas(4 * sizeof(T)) Quad {
  T v[4];
};

// The integer vector that loads and stores a quad in one instruction (a struct of four bytes is
// otherwise read byte by byte).
template <std::size_t Bytes> struct QuadWord;
template <> struct QuadWord<4> { using type = std::uint32_t; };
template <> struct QuadWord<8> { using type = uint2; };
template <> struct QuadWord<16> { using type = uint4; };

template <class T>
__device__ SV_FORCE_INLINE Quad<T> load_aligned_quad(const T* p) {
  const auto word = *reinterpret_cast<const typename QuadWord<sizeof(Quad<T>)>::type*>(p);
  Quad<T> q;
  memcpy(&q, &word, sizeof q);
  return q;
}

template <class T>
__device__ SV_FORCE_INLINE void store_aligned_quad(T* p, const Quad<T>& q) {
  typename QuadWord<sizeof(Quad<T>)>::type word;
  memcpy(&word, &q, sizeof q);
  *reinterpret_cast<decltype(word)*>(p) = word;
}

// The quad's four elements in the opmath type; uint8 through byte_quad.cuh's quad_byte (a byte
// permute and an add each, where the integer-to-float conversion issues at a quarter of the rate).
template <class T>
__device__ SV_FORCE_INLINE void quad_values(const Quad<T>& q, kernels::opmath_t<T> (&f)[4]) {
  if constexpr (std::is_same_v<T, unsigned char>) {
    std::uint32_t word;
    memcpy(&word, &q, 4);
#pragma unroll
    for (int i = 0; i < 4; ++i) f[i] = quad_byte<float>(word, i);
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) f[i] = kernels::to_opmath(q.v[i]);
  }
}

struct QuadGrid {
  kernels::FastDivmod column_blocks, strips, channels;
  std::uint32_t h, w;
};

template <class T>
__global__ void __launch_bounds__(kQuadThreads)
    sharpness_quad_kernel(DeviceImage<const T> in, DeviceImage<T> out, QuadGrid g, kernels::SharpnessParams<T> params) {
  using F = kernels::opmath_t<T>;
  std::uint32_t plane_strip, column_block, plane, strip, n, c;
  g.column_blocks.divmod(blockIdx.x, plane_strip, column_block);
  g.strips.divmod(plane_strip, plane, strip);
  g.channels.divmod(plane, n, c);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint32_t x0 = (column_block * kQuadThreads + threadIdx.x) * 4;
  // Threads past the row's end store nothing but stay for the shuffles. They load the row's first
  // quad (unpredicated loads and conversions: no zeroing of the quad on every row); the value they
  // pass on is the right neighbour of the row's last quad, whose last pixel is a border pixel,
  // so it is never used.
  const bool active = x0 < g.w;
  const T* src = in.data + n * in.stride_n + c * in.stride_c + (active ? x0 : 0);
  T* dst = out.data + n * out.stride_n + c * out.stride_c + x0;

  // Row y as six values: the columns x0 - 1 .. x0 + 4. The outer two come from the neighbouring
  // lanes; a warp's first and last lanes load theirs. A column outside the image is never used
  // (its neighbour is a border pixel), so it is left at 0.
  auto load_row = [&](const T* r, F (&row)[6]) {  // r: the row's element at column x0 (or 0)
    F q[4];
    quad_values(load_aligned_quad(r), q);
    F left = __shfl_up_sync(0xffffffffu, q[3], 1);
    F right = __shfl_down_sync(0xffffffffu, q[0], 1);
    if (lane == 0) left = active && x0 > 0 ? kernels::to_opmath(r[-1]) : F(0);
    if (lane == 31) right = active && x0 + 4 < g.w ? kernels::to_opmath(r[4]) : F(0);
    row[0] = left;
#pragma unroll
    for (int i = 0; i < 4; ++i) row[i + 1] = q[i];
    row[5] = right;
  };

  const std::uint32_t y_begin = strip * kStripRows;
  const std::uint32_t y_end = min(y_begin + kStripRows, g.h);
  // The loop takes the rows that have a row below them; the image's last row (border values
  // only) follows it. So `below` is loaded on every row of the loop, which lets the unrolling by
  // 3 rotate the rows by register renaming (a row loaded only when it existed kept two possible
  // values, and the loop moved all three rows every row: 12 MOVs in ~130 instructions a row for
  // uint8), and the row pointers advance by a stride instead of a multiply each.
  const std::uint32_t y_last = min(y_end, g.h - 1);
  const bool inner_columns = x0 > 0 && x0 + 4 < g.w;
  F above[6] = {}, here[6], below[6] = {};
  const T* row_in = src + static_cast<std::int64_t>(y_begin) * in.stride_h;
  T* row_out = dst + static_cast<std::int64_t>(y_begin) * out.stride_h;
  if (y_begin > 0) load_row(row_in - in.stride_h, above);
  load_row(row_in, here);

  // The sharpened values before the clamp and the cast; for uint8 the clamp and the cast are
  // byte_word.hpp's clamped_byte (min/max and a rounding add, not F2I; NaN gives 0 as F2I does)
  // and the four bytes go out as one word.
  auto store = [&](const F (&result)[4]) {
    if constexpr (std::is_same_v<T, unsigned char>) {
      *reinterpret_cast<std::uint32_t*>(row_out) =
          kernels::pack_bytes(kernels::clamped_byte(result[0]), kernels::clamped_byte(result[1]),
                              kernels::clamped_byte(result[2]), kernels::clamped_byte(result[3]));
    } else {
      Quad<T> q;
#pragma unroll
      for (int i = 0; i < 4; ++i) q.v[i] = kernels::sharpen_border_value<T>(result[i]);
      store_aligned_quad(row_out, q);
    }
  };

#pragma unroll 3
  for (std::uint32_t y = y_begin; y < y_last; ++y) {
    row_in += in.stride_h;
    load_row(row_in, below);  // uniform across the block
    if (active) {
      F result[4];
      auto sharpen_at = [&](int i) {
        const F v[9] = {above[i], above[i + 1], above[i + 2], here[i], here[i + 1], here[i + 2],
                        below[i], below[i + 1], below[i + 2]};
        return kernels::sharpened<T>(v, params);
      };
      if (y > 0 && inner_columns) {  // all four inside: no border tests
#pragma unroll
        for (int i = 0; i < 4; ++i) result[i] = sharpen_at(i);
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const std::uint32_t x = x0 + i;
          result[i] = y == 0 || x == 0 || x + 1 == g.w ? here[i + 1] : sharpen_at(i);
        }
      }
      store(result);
    }
    row_out += out.stride_h;
#pragma unroll
    for (int i = 0; i < 6; ++i) {
      above[i] = here[i];
      here[i] = below[i];
    }
  }
  if (y_last < y_end && active) {  // the image's last row: its pixels, clamped and cast
    const F result[4] = {here[1], here[2], here[3], here[4]};
    store(result);
  }
}

// Whether the quad kernel can take the image: unit column stride, whole quads per row, every row of
// input and output starting on a quad boundary, and a grid that fits one launch.
template <class T>
bool quads_fit(const kernels::ImageBatch& in, const kernels::ImageBatch& out, std::int64_t blocks) {
  auto aligned = [](const kernels::ImageBatch& b) {
    const auto step_ok = [](std::int64_t size, std::int64_t stride) { return size <= 1 || stride % 4 == 0; };
    return b.stride_w == 1 && step_ok(b.n, b.stride_n) && step_ok(b.c, b.stride_c) && step_ok(b.h, b.stride_h) &&
           reinterpret_cast<std::uintptr_t>(b.data) % (4 * sizeof(T)) == 0;
  };
  return in.w % 4 == 0 && in.w > 0 && in.h > 0 && aligned(in) && aligned(out) && blocks < (std::int64_t{1} << 31);
}

// Any layout: one thread per output pixel, the 3x3 neighbourhood read through L1 (every input
// pixel is read by nine neighbours of the same or adjacent rows).
struct RowGrid {
  kernels::FastDivmod blocks_per_row, height, channels;
  std::uint32_t h, w;
};

template <class T>
__global__ void __launch_bounds__(256)
    sharpness_kernel(DeviceImage<const T> in, DeviceImage<T> out, RowGrid g, std::int64_t first_row,
                     kernels::SharpnessParams<T> params) {
  std::uint32_t row, xb, plane, y, n, c;
  g.blocks_per_row.divmod(blockIdx.x, row, xb);
  const std::uint32_t x = xb * 256 + threadIdx.x;
  if (x >= g.w) return;
  g.height.divmod(static_cast<std::uint32_t>(first_row + row), plane, y);
  g.channels.divmod(plane, n, c);
  const T* center = in.data + n * in.stride_n + c * in.stride_c + y * in.stride_h + x * in.stride_w;
  T* dst = out.data + n * out.stride_n + c * out.stride_c + y * out.stride_h + x * out.stride_w;
  if (y == 0 || x == 0 || y + 1 == g.h || x + 1 == g.w) {
    *dst = kernels::sharpen_border(*center);
    return;
  }
  kernels::opmath_t<T> v[9];
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy) {
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) v[(dy + 1) * 3 + dx + 1] = kernels::to_opmath(center[dy * in.stride_h + dx * in.stride_w]);
  }
  *dst = kernels::sharpen<T>(v, params);
}

void adjust_sharpness(const Tensor& input, const Tensor& output, double factor, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  const std::int64_t rows = in.n * in.c * in.h;
  if (rows >= (std::int64_t{1} << 31) || in.w >= (std::int64_t{1} << 31)) {
    throw Error(ErrorKind::Value, "adjust_sharpness", "image", "fewer than 2^31 rows on CUDA", std::to_string(rows) + " rows");
  }
  const std::int64_t blocks_per_row = blocks_for(in.w);
  const RowGrid g{kernels::FastDivmod(static_cast<std::uint32_t>(blocks_per_row)),
                  kernels::FastDivmod(static_cast<std::uint32_t>(in.h)), kernels::FastDivmod(static_cast<std::uint32_t>(in.c)),
                  static_cast<std::uint32_t>(in.h), static_cast<std::uint32_t>(in.w)};
  const std::int64_t rows_per_launch = std::max<std::int64_t>(1, ((std::int64_t{1} << 31) - 1) / blocks_per_row);
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_sharpness", [&](auto tag) {
    using T = typename decltype(tag)::type;
    LaunchScope scope(stream, "adjust_sharpness");
    const std::int64_t column_blocks = (in.w / 4 + kQuadThreads - 1) / kQuadThreads;
    const std::int64_t strips = (in.h + kStripRows - 1) / kStripRows;
    const std::int64_t quad_blocks = in.n * in.c * strips * column_blocks;
    if constexpr (sizeof(T) <= 4) {
      if (quads_fit<T>(in, out, quad_blocks)) {
        const QuadGrid q{kernels::FastDivmod(static_cast<std::uint32_t>(column_blocks)),
                         kernels::FastDivmod(static_cast<std::uint32_t>(strips)),
                         kernels::FastDivmod(static_cast<std::uint32_t>(in.c)), static_cast<std::uint32_t>(in.h),
                         static_cast<std::uint32_t>(in.w)};
        sharpness_quad_kernel<T><<<static_cast<unsigned>(quad_blocks), kQuadThreads, 0, scope.handle()>>>(
            device_image<const T>(in), device_image<T>(out), q, kernels::SharpnessParams<T>::make(factor));
        scope.check_launch();
        return;
      }
    }
    for (std::int64_t first = 0; first < rows; first += rows_per_launch) {
      const unsigned blocks = static_cast<unsigned>(std::min(rows_per_launch, rows - first) * blocks_per_row);
      sharpness_kernel<T><<<blocks, 256, 0, scope.handle()>>>(device_image<const T>(in), device_image<T>(out), g, first,
                                                              kernels::SharpnessParams<T>::make(factor));
      scope.check_launch();
    }
  });
}

SV_REGISTER_KERNEL(ops::AdjustSharpness, DeviceType::CUDA, &adjust_sharpness, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
