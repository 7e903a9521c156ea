// Test helpers for the colour, filter and noise ops: torch-like scalar semantics written out
// independently of the library's kernels (the references transcribe torchvision's Python op by
// op), per-pixel iteration over [..., C, H, W] tensors, and their CUDA == CPU comparison.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "test_utils.hpp"

namespace svt {

// Calls f(TypeTag) with the C++ type of one of the colour dtypes.
template <class T> struct Tag { using type = T; };
template <class Fn>
void with_dtype(DType dtype, Fn&& f) {
  switch (dtype) {
    case DType::UInt8: f(Tag<std::uint8_t>{}); break;
    case DType::UInt16: f(Tag<std::uint16_t>{}); break;
    case DType::Float16: f(Tag<Half>{}); break;
    case DType::BFloat16: f(Tag<BFloat16>{}); break;
    case DType::Float32: f(Tag<float>{}); break;
    case DType::Float64: f(Tag<double>{}); break;
    default: FAIL() << "unexpected dtype " << dtype_name(dtype);
  }
}

template <class T> inline constexpr bool is_int = std::is_integral_v<T>;
template <class T> inline constexpr bool is_16 = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// What torchvision computes T in: float32 for integer and 16-bit images, double for float64.
template <class T> using Calc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
Calc<T> to_calc(T x) {
  if constexpr (is_16<T>) {
    return static_cast<float>(x);
  } else {
    return static_cast<Calc<T>>(x);
  }
}

// A float tensor materialised by torch: rounded to T for float images, float32 for integers.
template <class T>
Calc<T> keep(Calc<T> v) {
  if constexpr (is_16<T>) {
    return static_cast<float>(T(v));
  } else {
    return v;
  }
}

// `.to(dtype)`: truncation for integers (values here are in range), rounding for floats.
template <class T>
T to_t(Calc<T> v) {
  if constexpr (is_int<T>) {
    return static_cast<T>(static_cast<std::int64_t>(v));
  } else if constexpr (is_16<T>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
double max_of() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return 255.0;
  if constexpr (std::is_same_v<T, std::uint16_t>) return 65535.0;
  return 1.0;
}

template <class F>
F clampf(F v, F lo, F hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}

// torch's a.add_(b, alpha): a fused multiply-add.
inline float fmadd(float b, float alpha, float a) { return std::fma(b, alpha, a); }
inline double fmadd(double b, double alpha, double a) { return std::fma(b, alpha, a); }

// to_dtype(image, float32, scale=True) and back (float32 -> T), as torchvision.
template <class T>
float scale_to_float(T x) {
  if constexpr (is_int<T>) {
    return static_cast<float>(x) * static_cast<float>(1.0 / max_of<T>());
  } else if constexpr (is_16<T>) {
    return static_cast<float>(x);
  } else {
    return static_cast<float>(x);
  }
}

template <class T>
T scale_from_float(float v) {
  if constexpr (is_int<T>) {
    return static_cast<T>(static_cast<std::int64_t>(v * static_cast<float>(max_of<T>() + 1.0 - 1e-3)));
  } else {
    return T(v);
  }
}

// [..., C, H, W] views: image index (leading dims flattened), channel, row, column.
struct ImageIndex {
  std::int64_t images = 1, c = 1, h = 1, w = 1;
  explicit ImageIndex(const Tensor& t) {
    const int r = t.dim();
    h = t.size(r - 2);
    w = t.size(r - 1);
    c = r >= 3 ? t.size(r - 3) : 1;
    images = t.numel() / std::max<std::int64_t>(1, c * h * w);
    if (t.numel() == 0) images = 0;
  }
};

// The multi-index of logical element (n, c, y, x) of a tensor viewed as [N, C, H, W] (n over the
// leading dims).
inline void image_index(const Tensor& t, std::int64_t n, std::int64_t c, std::int64_t y, std::int64_t x,
                        std::int64_t (&idx)[kMaxRank]) {
  const int r = t.dim();
  idx[r - 1] = x;
  idx[r - 2] = y;
  if (r < 3) return;
  idx[r - 3] = c;
  for (int d = r - 4; d >= 0; --d) {
    idx[d] = n % t.size(d);
    n /= t.size(d);
  }
}

template <class T>
T at(const Tensor& t, std::int64_t n, std::int64_t c, std::int64_t y, std::int64_t x) {
  std::int64_t idx[kMaxRank] = {};
  image_index(t, n, c, y, x, idx);
  return load<T>(t, idx);
}

template <class T>
void set(const Tensor& t, std::int64_t n, std::int64_t c, std::int64_t y, std::int64_t x, T v) {
  std::int64_t idx[kMaxRank] = {};
  image_index(t, n, c, y, x, idx);
  store<T>(t, idx, v);
}

// A contiguous CPU tensor with `in`'s leading dims, `channels` channels, H and W, each pixel
// fn(n, pixel values) -> output values.
template <class T>
Tensor per_pixel(const Tensor& in, std::int64_t channels,
                 const std::function<std::vector<T>(std::int64_t, const std::vector<T>&)>& fn) {
  Dims shape(in.shape());
  shape[shape.size() - 3] = channels;
  Tensor out = empty(shape, in.dtype(), Device::cpu());
  const ImageIndex ii(in);
  std::vector<T> px(static_cast<std::size_t>(ii.c));
  for (std::int64_t n = 0; n < ii.images; ++n) {
    for (std::int64_t y = 0; y < ii.h; ++y) {
      for (std::int64_t x = 0; x < ii.w; ++x) {
        for (std::int64_t c = 0; c < ii.c; ++c) px[static_cast<std::size_t>(c)] = at<T>(in, n, c, y, x);
        const std::vector<T> res = fn(n, px);
        for (std::int64_t c = 0; c < channels; ++c) set<T>(out, n, c, y, x, res[static_cast<std::size_t>(c)]);
      }
    }
  }
  return out;
}

// Elementwise reference over any tensor.
template <class T>
Tensor per_element(const Tensor& in, const std::function<T(T)>& fn) {
  Tensor out = empty(Dims(in.shape()), in.dtype(), Device::cpu());
  for_each_index(in.shape(), [&](const std::int64_t* idx) { store<T>(out, idx, fn(load<T>(in, idx))); });
  return out;
}

// Element values as doubles (logical order).
inline std::vector<double> values_of(const Tensor& t_in) {
  const Tensor t = to_cpu(t_in);
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(t.numel()));
  for_each_index(t.shape(), [&](const std::int64_t* idx) { v.push_back(value_at(t, idx)); });
  return v;
}

// A contiguous CPU tensor of `dtype` holding `values` (converted like torch.tensor(values, dtype)).
inline Tensor tensor_of(const Dims& shape, DType dtype, const std::vector<double>& values) {
  Tensor t = empty(shape, dtype, Device::cpu());
  std::size_t i = 0;
  for_each_index(t.shape(), [&](const std::int64_t* idx) {
    const double v = values.at(i++);
    switch (dtype) {
      case DType::UInt8: store<std::uint8_t>(t, idx, static_cast<std::uint8_t>(v)); break;
      case DType::UInt16: store<std::uint16_t>(t, idx, static_cast<std::uint16_t>(v)); break;
      case DType::Float16: store<Half>(t, idx, Half(static_cast<float>(v))); break;
      case DType::BFloat16: store<BFloat16>(t, idx, BFloat16(static_cast<float>(v))); break;
      case DType::Float32: store<float>(t, idx, static_cast<float>(v)); break;
      case DType::Float64: store<double>(t, idx, v); break;
      default: ADD_FAILURE() << "tensor_of: dtype"; break;
    }
  });
  return t;
}

// Largest absolute difference and the share of identical elements.
struct Closeness {
  double max_abs = 0;
  double identical = 1;
};
inline Closeness closeness(const Tensor& expected, const Tensor& actual) {
  const std::vector<double> a = values_of(expected), b = values_of(actual);
  Closeness c;
  if (a.size() != b.size()) return {1e300, 0};
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))) ++same;
    else c.max_abs = std::max(c.max_abs, std::isnan(d) ? 1e300 : d);
  }
  c.identical = a.empty() ? 1.0 : static_cast<double>(same) / static_cast<double>(a.size());
  return c;
}

// Shapes of colour tests: test_shapes() with 3 or 1 channels (the others are skipped), plus a
// 1-channel and a 3-channel image whose rows are long enough for vector paths.
inline std::vector<Dims> color_shapes() {
  std::vector<Dims> shapes;
  for (const Dims& s : test_shapes()) {
    const std::int64_t c = s[s.size() - 3];
    if (c == 1 || c == 3) shapes.push_back(s);
  }
  shapes.push_back({2, 1, 6, 40});
  shapes.push_back({1, 3, 3, 67});
  return shapes;
}

// ---- CUDA == CPU ------------------------------------------------------------------------------

using UnaryOp = std::function<Tensor(const Tensor&)>;

// color_shapes() plus sizes that take the CUDA engines' other paths.
inline std::vector<Dims> cuda_shapes() {
  std::vector<Dims> shapes = color_shapes();
  shapes.push_back({2, 3, 67, 259});   // several blocks per image, unaligned rows
  shapes.push_back({1, 3, 130, 256});  // aligned rows: vector paths
  return shapes;
}

// op on the CPU and on the GPU, same input in every layout, equal bit for bit.
inline void expect_cuda_equals_cpu(const std::string& what, const UnaryOp& op, std::uint64_t seed,
                                   const std::vector<Dims>& shapes, const std::vector<DType>& dtypes,
                                   double lo = -0.25, double hi = 1.25) {
  for (const Dims& shape : shapes) {
    for (DType dtype : dtypes) {
      const Tensor src = random_cpu(shape, dtype, seed++, lo, hi);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(what + " " + describe(shape, dtype, layout));
        const Tensor expected = op(with_layout(src, layout, Device::cpu()));
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        const Tensor actual = op(gpu_in);
        EXPECT_TRUE(actual.device() == kGpu);
        EXPECT_TRUE(bitwise_equal(expected, actual));
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
}

}  // namespace svt
