// CPU engine of pad (and crop: a pad with negative paddings): rows of the output over the
// thread pool; inside the image a row is one run copied at once, borders element by element
// through a table of where they read (kernels/pad_plan.hpp maps them).
#include <algorithm>
#include <cstring>

#include "cpu/elementwise.hpp"
#include "cpu/parallel.hpp"
#include "cpu/stream_store.hpp"
#include "core/tensor_views.hpp"
#include "kernels/pad_plan.hpp"
#include "streamvision/functional/pad.hpp"

namespace streamvision::cpu {

namespace {

// The longest output row (bytes) built in a buffer to be streamed out: a 1080p float32
// channels_last row is 23 KB. Longer rows keep plain stores.
constexpr std::int64_t kPadRowBuffer = 32 * 1024;

template <class T, bool RoundTrip>
void pad_rows(const kernels::PadPlan& p, const T* in, T* out, const std::vector<std::uint64_t>& fill_bits) {
  std::vector<T> fill(fill_bits.size());
  for (std::size_t i = 0; i < fill.size(); ++i) std::memcpy(&fill[i], &fill_bits[i], sizeof(T));
  auto fill_of = [&](std::int64_t channel) { return fill.size() == 1 ? fill[0] : fill[static_cast<std::size_t>(channel)]; };
  auto load_at = [](const T* src, std::int64_t offset) {
    if constexpr (RoundTrip) {
      return kernels::float32_round_trip(src[offset]);
    } else {
      return src[offset];
    }
  };
  auto load = [&](std::int64_t offset) { return load_at(in, offset); };
  const std::int64_t len = p.row_length();
  const std::int64_t ib = p.interior_begin(), ie = p.interior_end();
  const bool constant_planar = p.border == kernels::Border::Constant && !p.interleaved;
  const bool copy_interior = p.contiguous_runs && !RoundTrip;
  // Where each element of a row reads, relative to its row's source (-1: the fill), and its fill
  // (interleaved rows: its channel's): the same for every row, so computed once here instead of
  // per element through pad_element (the borders of a 64x3x224x224 batch are 356,352 elements).
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(len));
  std::vector<T> row_fill(static_cast<std::size_t>(len));
  kernels::PadRow origin;
  origin.source = 0;
  for (std::int64_t e = 0; e < len; ++e) {
    std::int64_t channel = 0;
    offsets[static_cast<std::size_t>(e)] = kernels::pad_element(p, origin, e, channel);
    row_fill[static_cast<std::size_t>(e)] = fill_of(channel);
  }
  const bool gather_borders = std::none_of(offsets.begin(), offsets.end(), [](std::int64_t o) { return o < 0; });
  // A large output's rows are built in an L1 buffer and streamed out (cpu/stream_store.hpp).
  // Rows of whole 16-byte pieces only, on 16 bytes (see run_elementwise): a uint8 pad's 232-byte rows
  // streamed ran 2.5x slower.
  const std::int64_t row_bytes = len * static_cast<std::int64_t>(sizeof(T));
  const bool streaming = row_bytes <= kPadRowBuffer && row_bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
                         stream_output(static_cast<std::size_t>(p.rows() * len) * sizeof(T));
  // The border elements of a row with a source row (r.source >= 0).
  auto fill_borders = [&](const kernels::PadRow& r, T* dst) {
    if (constant_planar) {
      // A planar row of a constant pad: its borders are the row's channel's fill, stored as
      // fills (element by element, a uint8 64x3x224x224 batch padded by 4 ran at 0.68x
      // torchvision's CPU speed).
      const T f = fill_of(r.channel);
      std::fill(dst, dst + ib, f);
      std::fill(dst + ie, dst + len, f);
    } else if (gather_borders) {
      // No border element reads the fill (reflect, symmetric, edge): a plain gather, without the
      // fill's branch per element.
      const T* src = in + r.source;
      const std::int64_t* off = offsets.data();
      for (std::int64_t e = 0; e < ib; ++e) dst[e] = load_at(src, off[e]);
      for (std::int64_t e = ie; e < len; ++e) dst[e] = load_at(src, off[e]);
    } else {
      auto border = [&](std::int64_t e) {
        const std::int64_t off = offsets[static_cast<std::size_t>(e)];
        dst[e] = off < 0 ? row_fill[static_cast<std::size_t>(e)] : load(r.source + off);
      };
      for (std::int64_t e = 0; e < ib; ++e) border(e);
      for (std::int64_t e = ie; e < len; ++e) border(e);
    }
  };
  auto build_row = [&](const kernels::PadRow& r, T* dst) {
    if (r.source < 0) {  // a top or bottom row of a constant pad
      if (constant_planar) {
        std::fill(dst, dst + len, fill_of(r.channel));
      } else {
        std::copy(row_fill.begin(), row_fill.end(), dst);
      }
      return;
    }
    // The interior first, then the borders: the input row is read front to back once, and the
    // borders' reads hit the cache (reading the row's ends first made them the misses).
    if (copy_interior) {
      if (ie > ib) {
        copy_bytes(dst + ib, in + r.source + offsets[static_cast<std::size_t>(ib)], static_cast<std::size_t>(ie - ib) * sizeof(T));
      }
    } else {
      for (std::int64_t e = ib; e < ie; ++e) dst[e] = load(r.source + offsets[static_cast<std::size_t>(e)]);
    }
    fill_borders(r, dst);
  };
  // Streamed rows start on 16 bytes (row_bytes % 16 == 0): the 16-byte pieces of a contiguous
  // interior, [head, tail), go straight from the input to the output; only the pieces holding
  // border elements pass through the buffer. Building whole rows in the buffer read every byte
  // once more from L1 (a float32 64x3x224x224 reflect pad ran at 0.85x torchvision's speed).
  const std::int64_t piece = 16 / static_cast<std::int64_t>(sizeof(T));
  const std::int64_t head = (ib + piece - 1) / piece * piece, tail = ie / piece * piece;
  const bool direct = copy_interior && head < tail;
  parallel_for(p.rows(), std::max<std::int64_t>(1, (1 << 15) / std::max<std::int64_t>(len, 1)), [&](std::int64_t first, std::int64_t last) {
    if (!streaming) {
      for (std::int64_t row = first; row < last; ++row) build_row(kernels::pad_row(p, row), out + row * len);
      return;
    }
    alignas(64) unsigned char buffer[kPadRowBuffer];
    T* const staged = reinterpret_cast<T*>(buffer);
    for (std::int64_t row = first; row < last; ++row) {
      const kernels::PadRow r = kernels::pad_row(p, row);
      T* const dst = out + row * len;
      if (!direct || r.source < 0) {
        build_row(r, staged);
        stream_bytes(dst, staged, static_cast<std::size_t>(row_bytes));
        continue;
      }
      const T* interior = in + r.source + offsets[static_cast<std::size_t>(ib)];  // element ib of the row
      std::copy(interior, interior + (head - ib), staged + ib);
      std::copy(interior + (tail - ib), interior + (ie - ib), staged + tail);
      fill_borders(r, staged);
      stream_bytes(dst, staged, static_cast<std::size_t>(head) * sizeof(T));
      stream_bytes(dst + head, interior + (head - ib), static_cast<std::size_t>(tail - head) * sizeof(T));
      stream_bytes(dst + tail, staged + tail, static_cast<std::size_t>(len - tail) * sizeof(T));
    }
    stream_fence();
  });
}

void pad(const Tensor& input, const Tensor& output, std::int64_t pad_left, std::int64_t pad_top, PaddingMode mode,
         const std::vector<double>& fill, const Stream&) {
  const kernels::PadPlan plan =
      kernels::make_pad_plan(detail::image_batch(input), detail::image_batch(output), pad_left, pad_top, mode);
  const std::vector<std::uint64_t> bits = kernels::pad_fill_bits(input.dtype(), fill);
  kernels::dispatch_pad(input.dtype(), mode, [&](auto tag, auto round_trip) {
    using T = typename decltype(tag)::type;
    pad_rows<T, decltype(round_trip)::value>(plan, static_cast<const T*>(input.data()), static_cast<T*>(output.data()), bits);
  });
}

SV_REGISTER_KERNEL(ops::Pad, DeviceType::CPU, &pad, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
