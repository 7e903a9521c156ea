// Internal: the mapping behind pad and crop (a crop is a constant-zero pad with negative
// paddings), shared by both engines.
//
// The output is dense, planar ([N, C, H, W] order: rows are (n, c, y)) or interleaved
// (channels-last [N, H, W, C] order: rows are (n, y), C values per pixel). Output element e of a
// row reads column x = e / G (G = C interleaved, 1 planar) of source row y - pad_top and source
// column x - pad_left, each mapped into the image by the border mode; Constant borders read the
// channel's fill. Inside the image, a row is one contiguous run of the input whenever the input
// has the output's innermost order, which lets both engines copy runs instead of elements.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "kernels/border.hpp"
#include "kernels/cast.hpp"
#include "kernels/fast_divmod.hpp"
#include "streamvision/functional/geometry.hpp"
#include "kernels/image_batch.hpp"
#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

struct PadPlan {
  std::int64_t n = 0, c = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  std::int64_t in_sn = 0, in_sc = 0, in_sh = 0, in_sw = 0;  // elements
  std::int64_t pad_top = 0, pad_left = 0;
  Border border = Border::Constant;
  bool interleaved = false;      // output order [N, H, W, C]
  bool contiguous_runs = false;  // input rows are runs of consecutive elements (see above)
  // Exact divisions by out_h and c (rows and row elements stay below 2^31, see make_pad_plan).
  FastDivmod div_out_h, div_c;

  SV_HOST_DEVICE std::int64_t group() const { return interleaved ? c : 1; }
  SV_HOST_DEVICE std::int64_t row_length() const { return out_w * group(); }
  SV_HOST_DEVICE std::int64_t rows() const { return interleaved ? n * out_h : n * c * out_h; }
  // Output elements [interior_begin, interior_end) of a row read source columns inside the image.
  SV_HOST_DEVICE std::int64_t interior_begin() const {
    const std::int64_t x = pad_left > 0 ? pad_left : 0;
    return (x < out_w ? x : out_w) * group();
  }
  SV_HOST_DEVICE std::int64_t interior_end() const {
    std::int64_t x = pad_left + in_w;
    if (x > out_w) x = out_w;
    if (x < 0) x = 0;
    const std::int64_t b = interior_begin();
    return x * group() < b ? b : x * group();
  }
  SV_HOST_DEVICE std::int64_t source_row(std::int64_t y) const { return border_index(y - pad_top, in_h, border); }
  SV_HOST_DEVICE std::int64_t source_col(std::int64_t x) const { return border_index(x - pad_left, in_w, border); }
};

// Where one output row comes from: the input offset of its source row (channel 0 for
// interleaved rows), or -1 when the row lies in a Constant border; and its channel (planar).
struct PadRow {
  std::int64_t source = -1;
  std::int64_t channel = 0;
};

SV_HOST_DEVICE inline PadRow pad_row(const PadPlan& p, std::int64_t row) {
  PadRow r;
  std::uint32_t q, y;
  p.div_out_h.divmod(static_cast<std::uint32_t>(row), q, y);
  std::uint32_t n = q;
  if (!p.interleaved) {
    std::uint32_t c;
    p.div_c.divmod(q, n, c);
    r.channel = c;
  }
  const std::int64_t sy = p.source_row(y);
  if (sy >= 0) r.source = n * p.in_sn + r.channel * p.in_sc + sy * p.in_sh;
  return r;
}

// Element e of a row whose source row starts at `source` (>= 0): the input offset it reads, or -1
// for a Constant border; `channel` receives its channel.
SV_HOST_DEVICE inline std::int64_t pad_element(const PadPlan& p, const PadRow& r, std::int64_t e, std::int64_t& channel) {
  std::int64_t x = e;
  channel = r.channel;
  if (p.interleaved) {
    std::uint32_t q, c;
    p.div_c.divmod(static_cast<std::uint32_t>(e), q, c);
    x = q;
    channel = c;
  }
  if (r.source < 0) return -1;
  const std::int64_t sx = p.source_col(x);
  if (sx < 0) return -1;
  return r.source + sx * p.in_sw + (p.interleaved ? channel * p.in_sc : 0);
}

// torchvision pads int32/int64 images in edge and reflect modes through float32 (torch pads
// only float tensors that way): values beyond 2^24 round, and the way back saturates like the
// GPU conversion. Every other dtype and mode copies bits.
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE T float32_round_trip(T x) {
  static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>);
  constexpr T max = static_cast<T>(static_cast<std::make_unsigned_t<T>>(~std::make_unsigned_t<T>(0)) >> 1);
  const float f = static_cast<float>(x);
  if (f >= static_cast<float>(max)) return max;
  return static_cast<T>(f);
}

inline Border border_of(PaddingMode mode) {
  switch (mode) {
    case PaddingMode::Edge: return Border::Replicate;
    case PaddingMode::Reflect: return Border::Reflect101;
    case PaddingMode::Symmetric: return Border::Reflect;
    case PaddingMode::Constant: break;
  }
  return Border::Constant;
}

// The plan of a pad of `in` into the dense `out` (shapes and the output order already decided).
// Throws when the output has 2^31 rows or more, or rows of 2^31 elements or more.
inline PadPlan make_pad_plan(const ImageBatch& in, const ImageBatch& out, std::int64_t pad_left, std::int64_t pad_top,
                             PaddingMode mode) {
  const Border border = border_of(mode);
  const bool interleaved = channels_innermost(out);
  PadPlan p;
  p.n = in.n;
  p.c = in.c;
  p.in_h = in.h;
  p.in_w = in.w;
  p.out_h = out.h;
  p.out_w = out.w;
  p.in_sn = in.stride_n;
  p.in_sc = in.stride_c;
  p.in_sh = in.stride_h;
  p.in_sw = in.stride_w;
  p.pad_top = pad_top;
  p.pad_left = pad_left;
  p.border = border;
  p.interleaved = interleaved && in.c > 1;
  p.contiguous_runs = p.interleaved ? (in.stride_c == 1 && in.stride_w == in.c) : (in.stride_w == 1 || in.w <= 1);
  constexpr std::int64_t kLimit = std::int64_t{1} << 31;
  if (p.rows() >= kLimit || p.row_length() >= kLimit) {
    throw Error(ErrorKind::Value, "pad", "image", "fewer than 2^31 rows of fewer than 2^31 elements",
                std::to_string(p.rows()) + " rows of " + std::to_string(p.row_length()));
  }
  p.div_out_h = FastDivmod(static_cast<std::uint32_t>(p.out_h > 0 ? p.out_h : 1));
  p.div_c = FastDivmod(static_cast<std::uint32_t>(p.c > 0 ? p.c : 1));
  return p;
}

// The fill values as the image dtype holds them (torch .to semantics), as raw bits in the low
// bytes of each uint64, one per given value.
inline std::vector<std::uint64_t> pad_fill_bits(DType dtype, const std::vector<double>& fill) {
  std::vector<std::uint64_t> bits(fill.size(), 0);
  detail::AllDTypes::dispatch(dtype, "pad", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t i = 0; i < fill.size(); ++i) {
      const T v = cast<T>(fill[i]);
      std::memcpy(&bits[i], &v, sizeof(T));
    }
  });
  return bits;
}


// int32/int64 images in edge and reflect modes go through float32 (float32_round_trip).
inline bool pad_rounds_through_float32(DType dtype, PaddingMode mode) {
  return (dtype == DType::Int32 || dtype == DType::Int64) && (mode == PaddingMode::Edge || mode == PaddingMode::Reflect);
}

// Calls f(TypeTag<T>{}, std::bool_constant<RoundTrip>{}) with the element type the pad engines
// move: int32/int64 themselves when they round through float32, else the carrier of the element
// size (pad only moves bits otherwise).
template <class F>
void dispatch_pad(DType dtype, PaddingMode mode, F&& f) {
  if (pad_rounds_through_float32(dtype, mode)) {
    if (dtype == DType::Int32) {
      f(detail::TypeTag<std::int32_t>{}, std::true_type{});
    } else {
      f(detail::TypeTag<std::int64_t>{}, std::true_type{});
    }
    return;
  }
  detail::dispatch_itemsize(itemsize(dtype), [&](auto tag) { f(tag, std::false_type{}); });
}

}  // namespace streamvision::kernels
