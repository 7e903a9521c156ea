// CUDA engine of pad and crop (kernels/pad_plan.hpp).
//
// Each thread writes one 16-byte chunk of the dense output (VEC elements) with one vector store.
// A chunk inside one row and inside the image reads VEC consecutive input elements: one aligned
// 16-byte load when the source is aligned, else the two aligned 16-byte blocks around it,
// funnel-shifted into place (when both blocks lie in the source row; near the row ends it loads
// element by element). Border chunks map element by element. Index math is 32-bit
// multiply-shift division; outputs above 2^30 elements are launched in pieces of whole rows.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/launch.hpp"
#include "functional/geometry_utils.hpp"
#include "kernels/pad_plan.hpp"
#include "streamvision/functional/crop.hpp"
#include "streamvision/functional/pad.hpp"

namespace streamvision::cuda {

namespace {

template <class T, int Capacity>
struct PadFill {
  T value[Capacity];
  int count;
  __device__ SV_FORCE_INLINE T of(std::int64_t channel) const { return value[count == 1 ? 0 : channel]; }
};

struct PadPiece {
  std::int64_t first_row = 0;
  std::uint32_t elements = 0;
};

template <class T, bool RoundTrip>
__device__ SV_FORCE_INLINE T load_element(const T* in, std::int64_t offset) {
  if constexpr (RoundTrip) {
    return kernels::float32_round_trip(in[offset]);
  } else {
    return in[offset];
  }
}

// Bytes [shift, shift + 16) of the 32 bytes a:b.
__device__ SV_FORCE_INLINE uint4 funnel16(const uint4& a, const uint4& b, unsigned shift) {
  const unsigned w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  const unsigned q = shift >> 2, r = (shift & 3u) * 8u;
  unsigned s[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) {
    // w[q + i] without dynamic indexing (which would go through local memory).
    const unsigned k = q + i;
    s[i] = k == 0 ? w[0] : k == 1 ? w[1] : k == 2 ? w[2] : k == 3 ? w[3] : k == 4 ? w[4] : k == 5 ? w[5] : k == 6 ? w[6] : w[7];
  }
  return make_uint4(__funnelshift_r(s[0], s[1], r), __funnelshift_r(s[1], s[2], r), __funnelshift_r(s[2], s[3], r),
                    __funnelshift_r(s[3], s[4], r));
}

template <class T, bool RoundTrip, int Capacity>
__global__ void __launch_bounds__(256) pad_kernel(const T* __restrict__ in, T* __restrict__ out, kernels::PadPlan p,
                                                  kernels::FastDivmod row_len, PadPiece piece, PadFill<T, Capacity> fill) {
  constexpr int VEC = 16 / sizeof(T);
  const std::uint32_t f0 = (blockIdx.x * 256u + threadIdx.x) * VEC;
  if (f0 >= piece.elements) return;
  const int count = min(VEC, static_cast<int>(piece.elements - f0));
  const std::int64_t len = row_len.divisor;
  const std::int64_t g = p.interleaved ? p.c : 1;
  std::uint32_t local_row, e0;
  row_len.divmod(f0, local_row, e0);
  T* dst = out + piece.first_row * len + f0;

  union {
    T v[VEC];
    uint4 bits;
  } chunk;

  auto element = [&](const kernels::PadRow& r, std::int64_t e) {
    std::int64_t channel = 0;
    const std::int64_t off = kernels::pad_element(p, r, e, channel);
    return off < 0 ? fill.of(channel) : load_element<T, RoundTrip>(in, off);
  };

  if (count == VEC && e0 + VEC <= len) {
    const kernels::PadRow r = kernels::pad_row(p, piece.first_row + local_row);
    const std::int64_t ib = p.interior_begin(), ie = p.interior_end();
    if (r.source >= 0 && p.contiguous_runs && e0 >= ib && e0 + VEC <= ie) {
      const T* run = in + r.source;                  // the source row's first element
      const T* src = run + (e0 - p.pad_left * g);    // VEC consecutive elements
      const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(src);
      const unsigned shift = static_cast<unsigned>(addr & 15u);
      const std::uintptr_t lo = addr - shift;
      const std::uintptr_t run_begin = reinterpret_cast<std::uintptr_t>(run);
      const std::uintptr_t run_end = reinterpret_cast<std::uintptr_t>(run + p.in_w * g);
      if (shift == 0) {
        chunk.bits = *reinterpret_cast<const uint4*>(src);
      } else if (shift % sizeof(T) == 0 && lo >= run_begin && lo + 32 <= run_end) {
        chunk.bits = funnel16(*reinterpret_cast<const uint4*>(lo), *reinterpret_cast<const uint4*>(lo + 16), shift);
      } else {
#pragma unroll
        for (int k = 0; k < VEC; ++k) chunk.v[k] = src[k];
      }
      if constexpr (RoundTrip) {
#pragma unroll
        for (int k = 0; k < VEC; ++k) chunk.v[k] = kernels::float32_round_trip(chunk.v[k]);
      }
    } else if (r.source < 0 && !p.interleaved) {
#pragma unroll
      for (int k = 0; k < VEC; ++k) chunk.v[k] = fill.of(r.channel);
    } else {
#pragma unroll
      for (int k = 0; k < VEC; ++k) chunk.v[k] = element(r, e0 + k);
    }
  } else {
    // The chunk crosses rows or ends the piece: element by element.
    for (int k = 0; k < count; ++k) {
      std::uint32_t rr, e;
      row_len.divmod(f0 + k, rr, e);
      chunk.v[k] = element(kernels::pad_row(p, piece.first_row + rr), e);
    }
  }
  if (count == VEC && (reinterpret_cast<std::uintptr_t>(dst) & 15u) == 0) {
    *reinterpret_cast<uint4*>(dst) = chunk.bits;
  } else {
    for (int k = 0; k < count; ++k) dst[k] = chunk.v[k];
  }
}

template <class T, bool RoundTrip, int Capacity>
void launch_pad(const Tensor& input, const Tensor& output, const kernels::PadPlan& plan,
                const std::vector<std::uint64_t>& fill_bits, const Stream& stream, const char* op) {
  PadFill<T, Capacity> fill{};
  fill.count = static_cast<int>(fill_bits.size());
  for (std::size_t i = 0; i < fill_bits.size() && i < Capacity; ++i) std::memcpy(&fill.value[i], &fill_bits[i], sizeof(T));
  constexpr int VEC = 16 / sizeof(T);
  const std::int64_t len = plan.row_length(), rows = plan.rows();
  if (len == 0 || rows == 0) return;
  // Pieces of whole rows, a multiple of 16 rows (so each piece starts 16-byte aligned), < 2^30 elements.
  std::int64_t rows_per_piece = std::max<std::int64_t>(16, ((std::int64_t{1} << 30) / len) / 16 * 16);
  if (rows_per_piece * len >= (std::int64_t{1} << 31) - VEC) rows_per_piece = std::max<std::int64_t>(1, ((std::int64_t{1} << 30) / len));
  const kernels::FastDivmod row_len(static_cast<std::uint32_t>(len));
  LaunchScope scope(stream, op);
  for (std::int64_t first = 0; first < rows; first += rows_per_piece) {
    PadPiece piece;
    piece.first_row = first;
    piece.elements = static_cast<std::uint32_t>(std::min(rows_per_piece, rows - first) * len);
    const std::uint64_t chunks = (piece.elements + VEC - 1) / VEC;
    const unsigned blocks = static_cast<unsigned>((chunks + 255) / 256);
    pad_kernel<T, RoundTrip, Capacity><<<blocks, 256, 0, scope.handle()>>>(
        static_cast<const T*>(input.data()), static_cast<T*>(output.data()), plan, row_len, piece, fill);
    scope.check_launch();
  }
}

void run_pad(const Tensor& input, const Tensor& output, std::int64_t pad_left, std::int64_t pad_top, PaddingMode mode,
             const std::vector<double>& fill, const Stream& stream, const char* op) {
  const kernels::PadPlan plan =
      kernels::make_pad_plan(detail::image_batch(input), detail::image_batch(output), pad_left, pad_top,
                             kernels::border_of(mode), detail::is_interleaved(output));
  const std::vector<std::uint64_t> bits = kernels::pad_fill_bits(input.dtype(), fill);
  kernels::dispatch_pad(input.dtype(), mode, [&](auto tag, auto round_trip) {
    using T = typename decltype(tag)::type;
    constexpr bool kRoundTrip = decltype(round_trip)::value;
    if constexpr (kRoundTrip) {
      launch_pad<T, true, 1>(input, output, plan, {0}, stream, op);  // edge/reflect: no fill
    } else if (bits.size() <= 1) {
      launch_pad<T, false, 1>(input, output, plan, bits, stream, op);
    } else {
      launch_pad<T, false, static_cast<int>(detail::kMaxFillValues)>(input, output, plan, bits, stream, op);
    }
  });
}

void pad(const Tensor& input, const Tensor& output, std::int64_t pad_left, std::int64_t pad_top, PaddingMode mode,
         const std::vector<double>& fill, const Stream& stream) {
  run_pad(input, output, pad_left, pad_top, mode, fill, stream, "pad");
}

void crop(const Tensor& input, const Tensor& output, std::int64_t top, std::int64_t left, const Stream& stream) {
  run_pad(input, output, -left, -top, PaddingMode::Constant, {0.0}, stream, "crop");
}

SV_REGISTER_KERNEL(ops::Pad, DeviceType::CUDA, &pad, DTypeSet::all());
SV_REGISTER_KERNEL(ops::Crop, DeviceType::CUDA, &crop, DTypeSet::all());

}  // namespace

}  // namespace streamvision::cuda
