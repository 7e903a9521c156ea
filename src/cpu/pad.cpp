// CPU engine of pad (and crop: a pad with negative paddings): rows of the output over the
// thread pool; inside the image a row is one run copied at once, borders element by element
// (kernels/pad_plan.hpp).
#include <algorithm>
#include <cstring>

#include "cpu/parallel.hpp"
#include "core/tensor_views.hpp"
#include "kernels/pad_plan.hpp"
#include "streamvision/functional/pad.hpp"

namespace streamvision::cpu {

namespace {

template <class T, bool RoundTrip>
void pad_rows(const kernels::PadPlan& p, const T* in, T* out, const std::vector<std::uint64_t>& fill_bits) {
  std::vector<T> fill(fill_bits.size());
  for (std::size_t i = 0; i < fill.size(); ++i) std::memcpy(&fill[i], &fill_bits[i], sizeof(T));
  auto fill_of = [&](std::int64_t channel) { return fill.size() == 1 ? fill[0] : fill[static_cast<std::size_t>(channel)]; };
  auto load = [&](std::int64_t offset) {
    if constexpr (RoundTrip) {
      return kernels::float32_round_trip(in[offset]);
    } else {
      return in[offset];
    }
  };
  const std::int64_t len = p.row_length(), g = p.group();
  const std::int64_t ib = p.interior_begin(), ie = p.interior_end();
  const bool constant_planar = p.border == kernels::Border::Constant && !p.interleaved;
  parallel_for(p.rows(), std::max<std::int64_t>(1, (1 << 15) / std::max<std::int64_t>(len, 1)), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t row = first; row < last; ++row) {
      T* dst = out + row * len;
      const kernels::PadRow r = kernels::pad_row(p, row);
      auto element = [&](std::int64_t e) {
        std::int64_t channel = 0;
        const std::int64_t off = kernels::pad_element(p, r, e, channel);
        dst[e] = off < 0 ? fill_of(channel) : load(off);
      };
      if (constant_planar) {
        // A planar row of a constant pad: its borders are the row's channel's fill, stored as
        // fills (element by element through pad_element, a uint8 64x3x224x224 batch padded by 4
        // ran at 0.68x torchvision's CPU speed).
        const T f = fill_of(r.channel);
        if (r.source < 0) {
          std::fill(dst, dst + len, f);
          continue;
        }
        std::fill(dst, dst + ib, f);
        std::fill(dst + ie, dst + len, f);
      } else {
        if (r.source < 0) {
          for (std::int64_t e = 0; e < len; ++e) element(e);
          continue;
        }
        for (std::int64_t e = 0; e < ib; ++e) element(e);
        for (std::int64_t e = ie; e < len; ++e) element(e);
      }
      if (p.contiguous_runs && !RoundTrip) {
        if (ie > ib) std::memcpy(dst + ib, in + r.source + (ib - p.pad_left * g), static_cast<std::size_t>(ie - ib) * sizeof(T));
      } else {
        for (std::int64_t e = ib; e < ie; ++e) element(e);
      }
    }
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
