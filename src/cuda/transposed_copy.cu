// The strided copy of a transposed view (rotate's quarter turns): the output's contiguous dim
// steps the input by whole rows, and the next dim walks along an input row. The general
// elementwise kernel reads such a copy one element per input row, 1 to 8 bytes of every 32-byte
// sector it fetches (uint8 rotate 90 of 64x3x1080x1920: 1.56 ms on the H200, 12 % of the copy
// bandwidth). Here a block moves a square tile through shared memory: a warp reads 32 words along
// input rows and writes 32 words along output rows, so both sides move whole 128-byte lines.
//
// Values narrower than 4 bytes travel in 4-byte words of P = 4 / size values. A thread loads P
// words from P neighbouring input rows and transposes that P x P block in registers (byte
// permutes), so every shared-memory access is a whole word; the word columns are XOR-swizzled
// by row group so that neither the stores nor the loads of a warp share a bank.
#include "cuda/transposed_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "core/dtype_dispatch.hpp"
#include "cuda/launch.hpp"

namespace streamvision::cuda {

namespace {

struct TransposePlan {
  std::int64_t n0, n1;          // output sizes: dim 0 (contiguous in the output) and dim 1
  std::int64_t in0, in1;        // input strides of dims 0 and 1 (in1 is +1 or -1)
  std::int64_t out1;            // output stride of dim 1 (dim 0's is 1)
  std::int64_t planes, in_plane, out_plane;  // dim 2, when the plan has one (else 1 plane)
};

template <class T>
using TileWord = std::conditional_t<(sizeof(T) >= 4), T, std::uint32_t>;

// Values per word, and the tile's side in values (32 words).
template <class T>
inline constexpr int kPerWord = static_cast<int>(sizeof(TileWord<T>) / sizeof(T));

// The P values of a word in reverse order (a run read backwards along the input row).
template <int P, class W>
__device__ __forceinline__ W reversed(W w) {
  if constexpr (P == 4) return __byte_perm(w, 0, 0x0123);
  if constexpr (P == 2) return __byte_perm(w, 0, 0x1032);
  return w;
}

// rows[k] holds values (row k, columns 0..P-1); afterwards rows[j] holds (rows 0..P-1, column j).
template <int P, class W>
__device__ __forceinline__ void transpose_block(W (&rows)[P]) {
  if constexpr (P == 4) {
    const std::uint32_t t0 = __byte_perm(rows[0], rows[1], 0x5140), t1 = __byte_perm(rows[0], rows[1], 0x7362);
    const std::uint32_t t2 = __byte_perm(rows[2], rows[3], 0x5140), t3 = __byte_perm(rows[2], rows[3], 0x7362);
    rows[0] = __byte_perm(t0, t2, 0x5410);
    rows[1] = __byte_perm(t0, t2, 0x7632);
    rows[2] = __byte_perm(t1, t3, 0x5410);
    rows[3] = __byte_perm(t1, t3, 0x7632);
  } else if constexpr (P == 2) {
    const std::uint32_t r0 = rows[0], r1 = rows[1];
    rows[0] = __byte_perm(r0, r1, 0x5410);
    rows[1] = __byte_perm(r0, r1, 0x7632);
  }
}

// The word of the tile's row `row` (an input column), word column `col` (P output columns).
template <int P>
__device__ __forceinline__ int tile_slot(int row, int col) {
  return row * 32 + (col ^ ((row / P) & 31));
}

// kWords: every word of the plan is aligned (checked on the host); otherwise values move one by one.
template <class T, bool kWords>
__global__ void __launch_bounds__(256) transposed_copy_kernel(const T* in, T* out, const __grid_constant__ TransposePlan p) {
  using W = TileWord<T>;
  constexpr int P = kPerWord<T>;
  constexpr int kSide = 32 * P;
  __shared__ W tile[kSide * 32];
  const int lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
  const std::int64_t a0 = static_cast<std::int64_t>(blockIdx.x) * kSide;
  const std::int64_t a1 = static_cast<std::int64_t>(blockIdx.y) * kSide;
  const std::int64_t i1 = a1 + lane * P;  // this lane's first input column (output dim 1)
  const bool reverse = p.in1 < 0;
  for (std::int64_t plane = blockIdx.z; plane < p.planes; plane += gridDim.z) {
    const T* src = in + plane * p.in_plane;
    T* dst = out + plane * p.out_plane;
    // Load: warp `warp` reads the input rows (output dim 0) of word columns warp, warp + 8, ...;
    // lane `lane` the P values from column i1 of each.
#pragma unroll
    for (int m = 0; m < 4; ++m) {
      const int col = m * 8 + warp;
      W rows[P];
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const std::int64_t r = a0 + col * P + k;
        W w{};
        if (r < p.n0) {
          const T* row = src + r * p.in0;
          if (kWords && i1 + P <= p.n1) {
            w = *reinterpret_cast<const W*>(reverse ? row - i1 - (P - 1) : row + i1);
            if (reverse) w = reversed<P>(w);
          } else {
            T v[P] = {};
#pragma unroll
            for (int j = 0; j < P; ++j) {
              if (i1 + j < p.n1) v[j] = row[(i1 + j) * p.in1];
            }
            memcpy(&w, v, sizeof w);
          }
        }
        rows[k] = w;
      }
      transpose_block<P>(rows);
#pragma unroll
      for (int j = 0; j < P; ++j) tile[tile_slot<P>(lane * P + j, col)] = rows[j];
    }
    __syncthreads();
    // Store: warp `warp` writes output rows a1 + warp, + 8, ...; lane `lane` the word of output
    // columns a0 + lane * P.
    const std::int64_t o0 = a0 + lane * P;
#pragma unroll
    for (int k = 0; k < 4 * P; ++k) {
      const int row = warp + 8 * k;
      if (a1 + row >= p.n1) break;
      if (o0 < p.n0) {
        const W w = tile[tile_slot<P>(row, lane)];
        T* out_row = dst + (a1 + row) * p.out1;
        if (kWords && o0 + P <= p.n0) {
          *reinterpret_cast<W*>(out_row + o0) = w;
        } else {
          T v[P];
          memcpy(v, &w, sizeof w);
#pragma unroll
          for (int j = 0; j < P; ++j) {
            if (o0 + j < p.n0) out_row[o0 + j] = v[j];
          }
        }
      }
    }
    __syncthreads();
  }
}

bool multiple_of(std::int64_t bytes, std::int64_t n) { return bytes % n == 0; }

template <class T>
void launch(const kernels::ElementwisePlan& plan, const void* in, void* out, const Stream& stream, const char* op) {
  using W = TileWord<T>;
  constexpr int P = kPerWord<T>;
  constexpr std::int64_t kSide = 32 * P;
  constexpr std::int64_t E = sizeof(T), WB = sizeof(W);
  TransposePlan p{};
  p.n0 = plan.size[0];
  p.n1 = plan.size[1];
  p.in0 = plan.in_stride[0];
  p.in1 = plan.in_stride[1];
  p.out1 = plan.out_stride[1];
  p.planes = plan.rank == 3 ? plan.size[2] : 1;
  p.in_plane = plan.rank == 3 ? plan.in_stride[2] : 0;
  p.out_plane = plan.rank == 3 ? plan.out_stride[2] : 0;
  // Words need every word address aligned: the lowest value of a run read backwards sits P - 1
  // values below the run's first.
  const auto in_addr = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in));
  const auto out_addr = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(out));
  const bool words = multiple_of(p.in1 < 0 ? in_addr - (P - 1) * E : in_addr, WB) && multiple_of(p.in0 * E, WB) &&
                     multiple_of(p.in_plane * E, WB) && multiple_of(out_addr, WB) && multiple_of(p.out1 * E, WB) &&
                     multiple_of(p.out_plane * E, WB);
  const dim3 grid(static_cast<unsigned>((p.n0 + kSide - 1) / kSide), static_cast<unsigned>((p.n1 + kSide - 1) / kSide),
                  static_cast<unsigned>(std::min<std::int64_t>(p.planes, 65535)));
  LaunchScope scope(stream, op);
  const T* src = static_cast<const T*>(in);
  T* dst = static_cast<T*>(out);
  if (words) {
    transposed_copy_kernel<T, true><<<grid, 256, 0, scope.handle()>>>(src, dst, p);
  } else {
    transposed_copy_kernel<T, false><<<grid, 256, 0, scope.handle()>>>(src, dst, p);
  }
  scope.check_launch();
}

}  // namespace

bool copy_transposed(const kernels::ElementwisePlan& plan, const void* in, void* out, std::size_t itemsize,
                     const Stream& stream, const char* op) {
  // A transpose: output dim 0 is contiguous and steps the input by more than a sector's worth of
  // a row, output dim 1 walks an input row. Small extents (a 3-channel pixel innermost) stay
  // with the elementwise kernel, whose gathers already read whole sectors there.
  // STREAMVISION_CUDA_NO_TRANSPOSE: the elementwise kernel instead (an A/B switch for benchmarks,
  // as STREAMVISION_CUDA_NO_ROW_PATH is for the row path).
  static const bool disabled = std::getenv("STREAMVISION_CUDA_NO_TRANSPOSE") != nullptr;
  if (disabled || plan.rank < 2 || plan.rank > 3 || plan.out_stride[0] != 1 || (plan.in_stride[1] != 1 && plan.in_stride[1] != -1)) {
    return false;
  }
  const std::int64_t step = plan.in_stride[0] < 0 ? -plan.in_stride[0] : plan.in_stride[0];
  if (plan.size[0] < 16 || plan.size[1] < 16 || step * static_cast<std::int64_t>(itemsize) < 32) return false;
  // blockIdx.y covers output dim 1 in tiles of 32 to 128 values.
  if (plan.size[1] > std::int64_t{65535} * 32) return false;
  detail::dispatch_itemsize(itemsize, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch<T>(plan, in, out, stream, op);
  });
  return true;
}

}  // namespace streamvision::cuda
