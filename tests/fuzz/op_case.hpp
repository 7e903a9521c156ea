// The fuzz case generator: bytes -> one call of one public functional.
//
// A case is decoded from a byte string: the op, the image (dtype, shape, strides, offset into a
// larger buffer, contents) and the op's parameters. The same bytes always give the same case, so
// the libFuzzer target (fuzz_ops.cpp) and the CPU-vs-CUDA differential run (differential.cpp)
// share it: the differential program decodes one case twice, once per device.
//
// What the decoder aims at (every value is reachable from some bytes):
//  * shapes of rank 0-6 with zero-size, one-pixel and odd sizes; layouts contiguous,
//    channels_last, permuted, sliced (gaps, an offset into the buffer), expanded (stride 0) and
//    huge strides on size-1 dims (legal, costs nothing);
//  * numbers from each parameter's sensible range plus NaN, +-inf, -0, negative, tiny and huge;
//  * integers in range plus 0, -1 and values near the int64 limits; lists of the right and the
//    wrong length.
// Outputs stay small (a few MB at most) or are absurd (2^40 and up), never in between: an
// absurd size must end as a streamvision::Error (size checks or a failed allocation), and a
// merely large one would only slow the fuzzer down.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <streamvision/streamvision.hpp>

namespace sv_fuzz {

namespace sv = streamvision;
namespace F = streamvision::functional;

// Reads the case's decisions from the front of the input; past its end every read is 0, so any
// prefix of a case is itself a case.
class ByteSource {
 public:
  ByteSource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | byte();
    return v;
  }
  std::uint64_t u64() { return std::uint64_t{u32()} << 32 | u32(); }
  bool flag() { return byte() & 1; }
  // Uniform-ish in [lo, hi] (hi - lo below 2^32).
  std::int64_t in(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(u32() % span);
  }
  template <class T> T pick(std::initializer_list<T> values) {
    return values.begin()[byte() % values.size()];
  }

  // A double: usually in [lo, hi], sometimes one of the values that break naive code.
  double number(double lo, double hi) {
    const std::uint8_t kind = byte();
    if (kind < 240) return lo + (hi - lo) * (u32() / 4294967295.0);
    switch (kind % 12) {
      case 0: return std::numeric_limits<double>::quiet_NaN();
      case 1: return std::numeric_limits<double>::infinity();
      case 2: return -std::numeric_limits<double>::infinity();
      case 3: return -0.0;
      case 4: return 0.0;
      case 5: return -1.0;
      case 6: return 1e308;
      case 7: return -1e308;
      case 8: return std::numeric_limits<double>::denorm_min();
      case 9: return 4294967296.0;
      case 10: return static_cast<double>(in(-8, 8));
      default: {
        double d;
        const std::uint64_t bits = u64();
        std::memcpy(&d, &bits, sizeof d);
        return d;
      }
    }
  }

  // An integer: usually in [lo, hi], sometimes 0, -1 or absurd.
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    const std::uint8_t kind = byte();
    if (kind < 240) return in(lo, hi);
    switch (kind % 8) {
      case 0: return 0;
      case 1: return -1;
      case 2: return std::int64_t{1} << 40;
      case 3: return -(std::int64_t{1} << 40);
      case 4: return std::numeric_limits<std::int64_t>::max();
      case 5: return std::numeric_limits<std::int64_t>::min();
      case 6: return std::int64_t{1} << 62;
      default: return in(-300, 300);
    }
  }

  std::size_t length(std::size_t usual) {
    const std::uint8_t kind = byte();
    if (kind < 236) return usual;
    return kind % 6;  // 0..5: empty, short, long
  }
  std::vector<double> numbers(std::size_t usual, double lo, double hi) {
    std::vector<double> out(length(usual));
    for (double& v : out) v = number(lo, hi);
    return out;
  }
  std::vector<std::int64_t> integers(std::size_t usual, std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> out(length(usual));
    for (std::int64_t& v : out) v = integer(lo, hi);
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// splitmix64: image contents from a seed, so that pixels cost the case a few bytes only.
inline std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Makes a tensor's memory on the device the case runs on. The decoder fills a host buffer; the
// differential run copies it to the GPU and views it there with the same strides and offset.
using BufferMaker = sv::Tensor (*)(const sv::Tensor& host_bytes);
inline sv::Tensor host_buffer(const sv::Tensor& host_bytes) { return host_bytes; }

constexpr std::int64_t kMaxElements = std::int64_t{1} << 16;  // per decoded tensor

inline sv::DType any_dtype(ByteSource& in) { return static_cast<sv::DType>(in.byte() % sv::kNumDTypes); }

// Image dtypes weighted towards the ones the image ops take (the others test dtype errors).
inline sv::DType image_dtype(ByteSource& in) {
  const std::uint8_t b = in.byte();
  if (b < 200) {
    return std::initializer_list<sv::DType>{sv::DType::UInt8, sv::DType::UInt16, sv::DType::Float16,
                                            sv::DType::BFloat16, sv::DType::Float32,
                                            sv::DType::Float64}.begin()[b % 6];
  }
  return static_cast<sv::DType>(b % sv::kNumDTypes);
}

// A tensor with the decoded dtype, shape and layout, on the device `make` puts buffers on.
// `shape_hint` (when not empty) is used instead of a decoded shape, so that companion tensors
// (normals, displacement fields, erase values) usually fit the image.
inline sv::Tensor decode_tensor(ByteSource& in, sv::DType dtype, BufferMaker make, sv::Dims shape_hint = {}) {
  sv::Dims shape = shape_hint;
  if (shape.size() == 0 && !(in.byte() < 8)) {  // a few rank-0 tensors, else rank 1-6
    const int rank = static_cast<int>(in.byte() < 230 ? in.in(3, 4) : in.in(1, 6));
    for (int d = 0; d < rank; ++d) {
      const std::uint8_t kind = in.byte();
      std::int64_t size;
      if (kind < 24) size = 0;
      else if (kind < 72) size = 1;
      else if (kind < 200) size = in.in(2, 9);
      else size = in.in(10, 70);
      shape.push_back(size);
    }
    if (rank >= 3 && in.byte() < 200) shape[rank - 3] = in.pick<std::int64_t>({3, 3, 3, 3, 1, 1, 4, 2});  // channels
  }
  const int rank = shape.size();
  std::int64_t numel = 1;
  for (std::int64_t s : shape) numel *= s;
  // Few planes (leading dims): ops that enlarge each plane (resize, pad) stay cheap too.
  for (int d = 0; d + 2 < rank; ++d) {
    std::int64_t planes = 1;
    for (int k = 0; k + 2 < rank; ++k) planes *= shape[k];
    if (planes > 64) {
      numel /= std::max<std::int64_t>(shape[d], 1);
      shape[d] = std::min<std::int64_t>(shape[d], 4);
      numel *= shape[d];
    }
  }
  while (numel > kMaxElements) {  // shrink the largest dim until it is cheap
    int big = 0;
    for (int d = 1; d < rank; ++d)
      if (shape[d] > shape[big]) big = d;
    numel /= shape[big];
    shape[big] = std::max<std::int64_t>(1, shape[big] / 4);
    numel *= shape[big];
  }

  // Layout: dense in some dim order, then gaps (slices with steps), stride 0 (expanded dims) and
  // huge strides on size-1 dims.
  sv::Dims strides;
  const std::uint8_t layout = in.byte();
  if (layout < 96) {
    strides = sv::contiguous_strides(shape);
  } else if (layout < 160) {
    strides = sv::channels_last_strides(shape);
  } else {
    int order[sv::kMaxRank];
    for (int d = 0; d < rank; ++d) order[d] = d;
    for (int d = rank - 1; d > 0; --d) std::swap(order[d], order[in.in(0, d)]);
    strides = shape;
    std::int64_t running = 1;
    for (int i = rank - 1; i >= 0; --i) {
      strides[order[i]] = running;
      running *= std::max<std::int64_t>(shape[order[i]], 1);
    }
  }
  const std::uint8_t extras = in.byte();
  for (int d = 0; d < rank; ++d) {
    if ((extras & 1) && in.byte() < 64) strides[d] *= in.in(2, 3);                    // sliced: gaps
    if ((extras & 2) && in.byte() < 40) strides[d] = 0;                               // expanded
    if ((extras & 4) && shape[d] == 1 && in.byte() < 128) strides[d] = std::int64_t{1} << in.in(20, 44);
  }
  const std::int64_t offset = (extras & 8) ? in.in(0, 7) : 0;

  std::int64_t span = numel == 0 ? 0 : 1;
  for (int d = 0; d < rank && numel > 0; ++d) {
    if (shape[d] > 1) span += (shape[d] - 1) * strides[d];
  }
  // Size-1 dims with huge strides do not count: the tensor never steps along them.
  const std::int64_t elems = offset + span;
  const std::size_t item = sv::itemsize(dtype);
  sv::Tensor bytes = sv::empty({std::max<std::int64_t>(elems, 1) * static_cast<std::int64_t>(item)},
                               sv::DType::UInt8, sv::Device::cpu());
  auto* p = static_cast<std::uint8_t*>(bytes.data());
  std::uint64_t state = in.u64();
  const std::uint8_t contents = in.byte();
  const std::size_t total = static_cast<std::size_t>(bytes.numel());
  if (sv::is_floating_point(dtype) && contents < 200) {
    // Values in [lo, hi] as the dtype, with a few NaN/inf where the contents byte says so.
    const double lo = contents < 100 ? 0.0 : -2.0, hi = contents < 100 ? 1.0 : 300.0;
    for (std::int64_t i = 0; i < elems; ++i) {
      const std::uint64_t r = splitmix(state);
      double v = lo + (hi - lo) * static_cast<double>(r >> 11) * 0x1.0p-53;
      if (contents % 4 == 3 && (r & 0xff) < 4) v = (r & 0xff) == 0 ? NAN : (r & 1 ? INFINITY : -INFINITY);
      std::uint8_t* at = p + i * item;
      switch (dtype) {
        case sv::DType::Float16: { const sv::Half h(static_cast<float>(v)); std::memcpy(at, &h, 2); break; }
        case sv::DType::BFloat16: { const sv::BFloat16 h(static_cast<float>(v)); std::memcpy(at, &h, 2); break; }
        case sv::DType::Float32: { const float f = static_cast<float>(v); std::memcpy(at, &f, 4); break; }
        default: std::memcpy(at, &v, 8); break;
      }
    }
  } else {
    for (std::size_t i = 0; i < total; ++i) p[i] = static_cast<std::uint8_t>(splitmix(state));
    if (dtype == sv::DType::Bool) {
      for (std::size_t i = 0; i < total; ++i) p[i] &= 1;  // bool bytes other than 0/1 are UB
    }
  }
  const sv::Tensor buffer = make(bytes);
  auto* base = static_cast<std::uint8_t*>(buffer.data()) + offset * static_cast<std::int64_t>(item);
  return sv::from_blob(numel == 0 ? nullptr : base, shape, strides, dtype, buffer.device(), buffer.owner());
}

// Mostly a mode the op takes (the grid ops: nearest and bilinear; resize: the four tensor modes),
// sometimes any mode (the others must be refused).
inline sv::InterpolationMode interpolation(ByteSource& in, bool grid = true) {
  const std::uint8_t b = in.byte();
  if (b < 220) {
    return grid ? (b % 2 ? sv::InterpolationMode::Bilinear : sv::InterpolationMode::Nearest)
                : static_cast<sv::InterpolationMode>(b % 4);
  }
  return static_cast<sv::InterpolationMode>(b % 7);
}
inline sv::PaddingMode padding_mode(ByteSource& in) { return static_cast<sv::PaddingMode>(in.byte() % 4); }
inline sv::Fill fill(ByteSource& in, double hi) {
  if (in.byte() < 100) return std::nullopt;
  return in.numbers(in.pick<std::size_t>({1, 3, 1, 2}), -hi / 4, hi);
}
inline sv::OptionalList<double> optional_numbers(ByteSource& in, std::size_t usual, double lo, double hi) {
  if (in.flag()) return std::nullopt;
  return in.numbers(usual, lo, hi);
}
// Four corners of a frame, jittered (usually a valid quadrilateral), or hostile lists.
inline F::Points points(ByteSource& in, double hi) {
  if (in.byte() < 200) {
    const double w = in.number(1, hi), h = in.number(1, hi);
    F::Points pts = {{0, 0}, {w, 0}, {w, h}, {0, h}};
    for (auto& p : pts) {
      p[0] += static_cast<double>(in.in(-3, 3));
      p[1] += static_cast<double>(in.in(-3, 3));
    }
    return pts;
  }
  F::Points pts(in.length(4));
  for (auto& p : pts) p = in.numbers(2, -hi / 4, hi);
  return pts;
}
inline std::optional<bool> antialias(ByteSource& in) {
  const std::uint8_t b = in.byte() % 3;
  return b == 2 ? std::nullopt : std::optional<bool>(b == 1);
}
inline std::optional<std::int64_t> max_size(ByteSource& in) {
  if (in.byte() < 180) return std::nullopt;
  return in.integer(1, 80);
}

// Resizes whose output would hold more than kMaxResizeValues values are left out: a size that is
// absurd but valid (integer's in(-300, 300): 284 as the short edge of a 4x39 crop gave
// 4x3x284x2769 bicubic values, a minute under ASan, and CI's fuzz step timed out) tests nothing a
// small one does not. Sizes the library refuses still reach it: resized_output_size throws first.
constexpr double kMaxResizeValues = 1 << 20;
inline bool resize_affordable(const sv::Tensor& x, std::int64_t h, std::int64_t w, const sv::Size& size,
                              std::optional<std::int64_t> max_size) {
  double planes = 1;
  for (int d = 0; d + 2 < x.dim(); ++d) planes *= static_cast<double>(x.size(d));
  try {
    const std::vector<std::int64_t> hw = F::resized_output_size(h, w, size, max_size);
    return planes * static_cast<double>(hw.at(0)) * static_cast<double>(hw.at(1)) <= kMaxResizeValues;
  } catch (const sv::Error&) {
    return true;  // the op refuses it too, before any work
  }
}

// One public functional per entry: decodes its parameters and calls it.
struct OpEntry {
  const char* name;
  std::vector<sv::Tensor> (*run)(ByteSource& in, const sv::Tensor& image, BufferMaker make);
};

using Results = std::vector<sv::Tensor>;

inline Results one(sv::Tensor t) { return {std::move(t)}; }
template <std::size_t N> Results many(const std::array<sv::Tensor, N>& ts) { return Results(ts.begin(), ts.end()); }
// Host-side results (sizes, coefficients, dtypes) as a 1-D float64 CPU tensor, so that the
// differential run compares them too.
inline Results values(const std::vector<double>& v) {
  sv::Tensor t = sv::empty({static_cast<std::int64_t>(v.size())}, sv::DType::Float64, sv::Device::cpu());
  if (!v.empty()) std::memcpy(t.data(), v.data(), v.size() * sizeof(double));
  return {t};
}
template <class Seq> Results values_of(const Seq& seq) { return values(std::vector<double>(seq.begin(), seq.end())); }

// gaussian_noise's mean: below 1 in magnitude a multiple of 2^-8 (hostile values pass through),
// exact in float16 and bfloat16, so that the engines' documented difference (the CPU rounds the
// mean to a 16-bit image dtype first, as torch's CPU add; CUDA does not) never shows and the
// differential run can compare noise bit for bit. Consumes the same bytes as in.number.
inline double noise_mean(ByteSource& in) {
  const double m = in.number(-0.5, 0.5);
  return std::abs(m) < 1 ? std::round(m * 256) / 256 : m;  // |k| < 256: 8 significant bits
}

// The ops. Parameters follow each functional's signature; ranges are where the op does its
// work, the ByteSource adds the hostile values.
inline const std::vector<OpEntry>& ops() {
  static const std::vector<OpEntry> table = {
      {"horizontal_flip", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return one(F::horizontal_flip(x)); }},
      {"vertical_flip", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return one(F::vertical_flip(x)); }},
      {"convert_layout", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::convert_layout(x, in.flag() ? sv::MemoryFormat::ChannelsLast : sv::MemoryFormat::Contiguous));
       }},
      {"copy_", [](ByteSource& in, const sv::Tensor& x, BufferMaker make) {
         sv::Tensor dst = in.byte() < 200 ? decode_tensor(in, x.dtype(), make, sv::Dims(x.shape()))
                                          : decode_tensor(in, any_dtype(in), make);
         sv::copy_(dst, x);
         return one(dst);
       }},
      {"to_dtype", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const sv::DType d = any_dtype(in);
         return one(F::to_dtype(x, d, in.flag()));
       }},
      {"normalize", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const std::size_t c = x.dim() >= 3 ? static_cast<std::size_t>(std::min<std::int64_t>(x.size(-3), 5)) : 3;
         const auto mean = in.numbers(c, -1, 1);
         const auto std = in.numbers(c, 0.01, 2);
         const bool inplace = in.flag();
         sv::Tensor out = F::normalize(x, mean, std, inplace);
         return one(inplace ? x : out);
       }},
      {"rgb_to_grayscale", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::rgb_to_grayscale(x, static_cast<int>(in.integer(1, 3))));
       }},
      {"grayscale_to_rgb", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return one(F::grayscale_to_rgb(x)); }},
      {"adjust_brightness", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::adjust_brightness(x, in.number(0, 3)));
       }},
      {"adjust_saturation", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::adjust_saturation(x, in.number(0, 3)));
       }},
      {"adjust_contrast", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::adjust_contrast(x, in.number(0, 3)));
       }},
      {"adjust_sharpness", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::adjust_sharpness(x, in.number(0, 3)));
       }},
      {"adjust_hue", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::adjust_hue(x, in.number(-0.5, 0.5)));
       }},
      {"adjust_gamma", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const double gamma = in.number(0, 3);
         return one(F::adjust_gamma(x, gamma, in.number(0, 2)));
       }},
      {"invert", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return one(F::invert(x)); }},
      {"posterize", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::posterize(x, static_cast<int>(in.integer(0, 16))));
       }},
      {"solarize", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::solarize(x, in.number(0, 1.1 * sv::max_value(x.dtype()))));
       }},
      {"autocontrast", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return one(F::autocontrast(x)); }},
      {"equalize", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return one(F::equalize(x)); }},
      {"permute_channels", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const std::int64_t c = x.dim() >= 3 ? std::min<std::int64_t>(x.size(-3), 6) : 3;
         std::vector<std::int64_t> perm(static_cast<std::size_t>(c));
         for (std::int64_t i = 0; i < c; ++i) perm[static_cast<std::size_t>(i)] = i;
         for (std::int64_t i = c - 1; i > 0; --i) std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(in.in(0, i))]);
         if (in.byte() > 220) perm = in.integers(static_cast<std::size_t>(c), -1, c);
         return one(F::permute_channels(x, perm));
       }},
      {"gaussian_blur", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         std::vector<std::int64_t> ks(in.pick<std::size_t>({1, 2, 2}));
         for (auto& k : ks) k = in.byte() < 230 ? 2 * in.in(0, 3) + 1 : in.integer(-2, 12);
         return one(F::gaussian_blur(x, ks, optional_numbers(in, in.pick<std::size_t>({1, 2}), 0.1, 3)));
       }},
      {"gaussian_noise", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const double mean = noise_mean(in), sigma = in.number(0, 0.5);
         const bool clip = in.flag();
         const sv::PhiloxState state{in.u64(), in.u64()};
         return one(F::gaussian_noise(x, mean, sigma, clip, state));
       }},
      {"gaussian_noise_normals", [](ByteSource& in, const sv::Tensor& x, BufferMaker make) {
         const double mean = noise_mean(in), sigma = in.number(0, 0.5);
         const bool clip = in.flag();
         sv::DType nd = sv::DType::Float32;
         try {
           nd = F::gaussian_noise_normals_dtype(x, sigma);
         } catch (const sv::Error&) {
         }
         if (in.byte() > 220) nd = any_dtype(in);
         const sv::Tensor normals = in.byte() < 220 ? decode_tensor(in, nd, make, sv::Dims(x.shape()))
                                                    : decode_tensor(in, nd, make);
         return one(F::gaussian_noise(x, normals, mean, sigma, clip));
       }},
      {"erase", [](ByteSource& in, const sv::Tensor& x, BufferMaker make) {
         const std::int64_t h = x.dim() >= 2 ? x.size(-2) : 4, w = x.dim() >= 2 ? x.size(-1) : 4;
         const std::int64_t i = in.integer(-2, h), j = in.integer(-2, w);
         const std::int64_t eh = in.integer(0, h + 2), ew = in.integer(0, w + 2);
         sv::Dims vshape;
         const std::uint8_t vkind = in.byte() % 4;
         const std::int64_t c = x.dim() >= 3 ? x.size(-3) : 1;
         if (vkind == 0) vshape = {c, std::max<std::int64_t>(eh, 0) % 64, std::max<std::int64_t>(ew, 0) % 64};
         else if (vkind == 1) vshape = {c, 1, 1};
         else if (vkind == 2) vshape = {1};
         const sv::DType vd = in.byte() < 200 ? x.dtype() : any_dtype(in);
         const sv::Tensor v = decode_tensor(in, vd, make, vshape);
         const bool inplace = in.flag();
         sv::Tensor out = F::erase(x, i, j, eh, ew, v, inplace);
         return one(inplace ? x : out);
       }},
      {"pad", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         auto padding = in.integers(in.pick<std::size_t>({1, 2, 4}), -3, 12);
         const sv::Fill f = fill(in, 300);
         return one(F::pad(x, padding, f, padding_mode(in)));
       }},
      {"crop", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const std::int64_t top = in.integer(-20, 40), left = in.integer(-20, 40);
         const std::int64_t h = in.integer(0, 60);
         return one(F::crop(x, top, left, h, in.integer(0, 60)));
       }},
      {"center_crop", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return one(F::center_crop(x, in.integers(in.pick<std::size_t>({1, 2}), 0, 60)));
       }},
      {"five_crop", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         return many(F::five_crop(x, in.integers(in.pick<std::size_t>({1, 2}), 0, 20)));
       }},
      {"ten_crop", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         auto size = in.integers(in.pick<std::size_t>({1, 2}), 0, 20);
         return many(F::ten_crop(x, size, in.flag()));
       }},
      {"resize", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         sv::Size size = std::nullopt;
         if (in.byte() < 240) size = in.integers(in.pick<std::size_t>({1, 2, 2}), 1, 80);
         const auto mode = interpolation(in, false);
         const auto ms = max_size(in);
         const auto aa = antialias(in);
         if (x.dim() >= 2 && !resize_affordable(x, x.size(-2), x.size(-1), size, ms)) return Results{};
         return one(F::resize(x, size, mode, ms, aa));
       }},
      {"resized_crop", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const std::int64_t top = in.integer(-10, 30), left = in.integer(-10, 30);
         const std::int64_t h = in.integer(0, 40), w = in.integer(0, 40);
         auto size = in.integers(in.pick<std::size_t>({1, 2}), 1, 60);
         const auto mode = interpolation(in, false);
         const auto aa = antialias(in);
         if (!resize_affordable(x, h, w, size, std::nullopt)) return Results{};
         return one(F::resized_crop(x, top, left, h, w, size, mode, aa));
       }},
      {"resized_output_size", [](ByteSource& in, const sv::Tensor&, BufferMaker) {
         const std::int64_t h = in.integer(0, 5000), w = in.integer(0, 5000);
         sv::Size size = std::nullopt;
         if (in.byte() < 240) size = in.integers(in.pick<std::size_t>({1, 2}), 1, 5000);
         return values_of(F::resized_output_size(h, w, size, max_size(in)));
       }},
      {"affine", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const double angle = in.number(-360, 360);
         const auto translate = in.numbers(2, -20, 20);
         const double scale = in.number(0.1, 3);
         const auto shear = in.numbers(2, -60, 60);
         const auto mode = interpolation(in);
         const sv::Fill f = fill(in, 300);
         return one(F::affine(x, angle, translate, scale, shear, mode, f, optional_numbers(in, 2, -10, 40)));
       }},
      {"rotate", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const double angle = in.byte() < 64 ? 90.0 * static_cast<double>(in.in(-8, 8)) : in.number(-360, 360);
         const auto mode = interpolation(in);
         const bool expand = in.flag();
         const auto center = optional_numbers(in, 2, -10, 40);
         return one(F::rotate(x, angle, mode, expand, center, fill(in, 300)));
       }},
      {"inverse_affine_matrix", [](ByteSource& in, const sv::Tensor&, BufferMaker) {
         const std::array<double, 2> center{in.number(-10, 40), in.number(-10, 40)};
         const double angle = in.number(-360, 360);
         const std::array<double, 2> translate{in.number(-20, 20), in.number(-20, 20)};
         const double scale = in.number(0.1, 3);
         const std::array<double, 2> shear{in.number(-60, 60), in.number(-60, 60)};
         return values_of(F::inverse_affine_matrix(center, angle, translate, scale, shear));
       }},
      {"perspective", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         std::optional<F::Points> start, end;
         sv::OptionalList<double> coeffs = std::nullopt;
         if (in.byte() < 160) {
           start = points(in, 40);
           end = points(in, 40);
         } else {
           std::vector<double> c = in.numbers(8, -0.01, 0.01);
           if (c.size() >= 8) { c[0] += 1; c[4] += 1; }
           coeffs = c;
         }
         const auto mode = interpolation(in);
         return one(F::perspective(x, start, end, mode, fill(in, 300), coeffs));
       }},
      {"perspective_coefficients", [](ByteSource& in, const sv::Tensor&, BufferMaker) {
         const auto start = points(in, 40);
         return values_of(F::perspective_coefficients(start, points(in, 40)));
       }},
      {"elastic", [](ByteSource& in, const sv::Tensor& x, BufferMaker make) {
         sv::Dims dshape;
         if (in.byte() < 200 && x.dim() >= 2) dshape = {1, x.size(-2), x.size(-1), 2};
         const sv::DType dd = in.byte() < 180 ? sv::DType::Float32 : image_dtype(in);
         const sv::Tensor displacement = decode_tensor(in, dd, make, dshape);
         const auto mode = interpolation(in);
         return one(F::elastic(x, displacement, mode, fill(in, 300)));
       }},
      {"get_dimensions", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return values_of(F::get_dimensions(x)); }},
      {"get_num_channels", [](ByteSource&, const sv::Tensor& x, BufferMaker) {
         return values({static_cast<double>(F::get_num_channels(x))});
       }},
      {"get_size", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return values_of(F::get_size(x)); }},
      {"gaussian_noise_counters", [](ByteSource&, const sv::Tensor& x, BufferMaker) {
         return values({static_cast<double>(F::gaussian_noise_counters(x))});
       }},
      // Entries are only ever appended: a case's first byte is its op, so committed crash
      // reproducers keep decoding to the op they crashed.
      {"gaussian_noise_generator", [](ByteSource& in, const sv::Tensor& x, BufferMaker) {
         const double mean = noise_mean(in), sigma = in.number(0, 0.5);
         const bool clip = in.flag();
         sv::Generator generator(in.u64());  // seeded by the case: both engines draw the same numbers
         return one(F::gaussian_noise(x, mean, sigma, clip, &generator));
       }},
      {"to_device", [](ByteSource&, const sv::Tensor& x, BufferMaker) { return one(sv::to_device(x, sv::Device::cpu())); }},
      {"interpolation_mode_from", [](ByteSource& in, const sv::Tensor&, BufferMaker) {
         const int code = static_cast<int>(in.integer(-1, 6));
         std::string name(static_cast<std::size_t>(in.in(0, 14)), ' ');
         for (char& ch : name) ch = in.pick<char>({'n', 'e', 'a', 'r', 's', 't', 'b', 'i', 'l', '-', '_', 'c', 'u', 'N'});
         if (in.byte() < 160) {
           name = in.pick<const char*>({"nearest", "nearest-exact", "bilinear", "bicubic", "box", "hamming", "lanczos"});
         }
         return values({static_cast<double>(sv::interpolation_mode_from_int(code)),
                        static_cast<double>(sv::interpolation_mode_from_string(name))});
       }},
      {"padding_mode_from_string", [](ByteSource& in, const sv::Tensor&, BufferMaker) {
         std::string name(static_cast<std::size_t>(in.in(0, 10)), ' ');
         for (char& ch : name) ch = in.pick<char>({'c', 'o', 'n', 's', 't', 'a', 'e', 'd', 'g', 'r', 'f', 'l', 'y', 'm'});
         if (in.byte() < 128) name = in.pick<const char*>({"constant", "edge", "reflect", "symmetric", "wrap"});
         return values({static_cast<double>(sv::padding_mode_from_string(name))});
       }},
      // The batch ops (CUDA kernels; on the CPU their checks run and the kernel lookup refuses).
      {"resized_crop_batch", [](ByteSource& in, const sv::Tensor& x, BufferMaker make) {
         std::vector<sv::Tensor> images{x};
         const std::int64_t extra = in.in(0, 2);
         for (std::int64_t k = 0; k < extra; ++k) images.push_back(decode_tensor(in, x.dtype(), make));
         const auto n = static_cast<std::int64_t>(images.size());
         const sv::Tensor boxes = decode_tensor(in, in.byte() < 220 ? sv::DType::Int64 : any_dtype(in), make,
                                                in.byte() < 220 ? sv::Dims{n, 4} : sv::Dims{});
         const auto size = in.integers(2, 1, 40);
         const auto mode = interpolation(in, false);
         const auto aa = antialias(in);
         std::optional<sv::Tensor> flip;
         if (in.flag()) flip = decode_tensor(in, sv::DType::Bool, make, sv::Dims{n});
         sv::BatchTail tail;
         if (in.flag()) tail.dtype = any_dtype(in);
         tail.scale = in.flag();
         if (in.flag()) {
           tail.mean = in.numbers(3, -1, 1);
           tail.std = in.numbers(3, 0.01, 2);
         }
         std::optional<sv::BatchWindow> window;
         if (in.flag()) window = sv::BatchWindow{in.integer(1, 60), in.integer(1, 60), in.integer(-5, 30), in.integer(-5, 30)};
         return one(F::resized_crop_batch(images, boxes, size, mode, aa, flip, tail, window));
       }},
      {"color_jitter_batch", [](ByteSource& in, const sv::Tensor& x, BufferMaker make) {
         const std::int64_t n = x.dim() >= 1 ? x.size(0) : 1;
         const sv::Tensor factors = decode_tensor(in, in.byte() < 220 ? sv::DType::Float64 : any_dtype(in), make,
                                                  sv::Dims{n, 4});
         const sv::Tensor order = decode_tensor(in, in.byte() < 220 ? sv::DType::Int64 : any_dtype(in), make,
                                                sv::Dims{n, 4});
         const std::array<bool, 4> enabled{in.flag(), in.flag(), in.flag(), in.flag()};
         return one(F::color_jitter_batch(x, factors, order, enabled));
       }},
  };
  return table;
}

// One case: the op, then the image, then the op's parameters.
struct Case {
  const OpEntry* op;
  sv::Tensor image;
};

inline Case decode_case(ByteSource& in, BufferMaker make) {
  const auto& table = ops();
  const OpEntry& op = table[in.byte() % table.size()];
  const sv::DType dtype = image_dtype(in);
  return {&op, decode_tensor(in, dtype, make)};
}

}  // namespace sv_fuzz
