// to_dtype on the CPU against a reference written from torchvision's source, for every dtype
// pair, with and without scaling, plus hand-computed values and the errors torchvision raises;
// on CUDA, equal to the CPU bit for bit for every pair (skipped without a GPU).
#include <cmath>
#include <type_traits>

#include "test_utils.hpp"

namespace svt {
namespace {

template <class T> constexpr bool kHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class T> constexpr bool kFloat = kHalfLike<T> || std::is_floating_point_v<T>;

template <class T>
double as_double(T x) {
  if constexpr (kHalfLike<T>) return static_cast<float>(x);
  else return static_cast<double>(x);
}

// PyTorch's Tensor.to(dtype) as x86 CPUs compute it: truncate through int64 (uint8, int64) or
// int32 (the other integers); NaN and out-of-range values give the intermediate's minimum.
template <class Out, class In>
Out ref_cast(In x) {
  if constexpr (std::is_same_v<Out, In>) return x;
  else if constexpr (std::is_same_v<Out, bool>) return as_double(x) != 0.0;
  else if constexpr (kHalfLike<Out> && std::is_same_v<In, bool>) return Out(x ? 1.0f : 0.0f);
  else if constexpr (kHalfLike<Out>) return Out(static_cast<float>(as_double(x)));
  else if constexpr (std::is_floating_point_v<Out>) {
    if constexpr (kHalfLike<In>) return static_cast<Out>(static_cast<float>(x));
    else return static_cast<Out>(x);
  } else if constexpr (kFloat<In>) {
    const double d = std::trunc(as_double(x));
    std::int64_t i;
    if (std::is_same_v<Out, std::uint8_t> || std::is_same_v<Out, std::int64_t>) {
      i = (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) ? INT64_MIN : static_cast<std::int64_t>(d);
    } else {
      i = (std::isnan(d) || d >= 2147483648.0 || d < -2147483648.0) ? INT32_MIN : static_cast<std::int64_t>(d);
    }
    return static_cast<Out>(static_cast<std::uint64_t>(i));  // modular
  } else {
    return static_cast<Out>(x);
  }
}

template <class In, class Out>
Out ref_to_dtype(In x, bool scale) {
  constexpr DType from = dtype_of<In>, to = dtype_of<Out>;
  if (!scale) return ref_cast<Out>(x);
  if constexpr (kFloat<In> && kFloat<Out>) {
    return ref_cast<Out>(x);
  } else if constexpr (kFloat<In> && !kFloat<Out>) {
    // image.mul(max + 1 - eps): in the image dtype (via float for 16-bit), then .to(dtype).
    const double factor = max_value(to) + 1.0 - 1e-3;
    if constexpr (std::is_same_v<In, double>) return ref_cast<Out>(x * factor);
    else if constexpr (std::is_same_v<In, float>) return ref_cast<Out>(x * static_cast<float>(factor));
    else return ref_cast<Out>(In(static_cast<float>(x) * static_cast<float>(factor)));
  } else if constexpr (!kFloat<In> && kFloat<Out>) {
    // image.to(dtype).mul_(1.0 / max)
    const double factor = 1.0 / max_value(from);
    const Out y = ref_cast<Out>(x);
    if constexpr (std::is_same_v<Out, double>) return y * factor;
    else if constexpr (std::is_same_v<Out, float>) return y * static_cast<float>(factor);
    else return Out(static_cast<float>(y) * static_cast<float>(factor));
  } else if constexpr (!std::is_same_v<In, bool> && !std::is_same_v<Out, bool>) {
    const int in_bits = value_bits(from), out_bits = value_bits(to);
    if (in_bits > out_bits) return static_cast<Out>(static_cast<std::int64_t>(x) >> (in_bits - out_bits));
    using U = std::make_unsigned_t<Out>;
    return static_cast<Out>(static_cast<U>(static_cast<U>(static_cast<Out>(x)) << (out_bits - in_bits)));
  } else {
    return ref_cast<Out>(x);
  }
}

template <class F>
void visit(DType d, F&& f) {
  switch (d) {
    case DType::Bool: f(bool{}); break;
    case DType::UInt8: f(std::uint8_t{}); break;
    case DType::Int8: f(std::int8_t{}); break;
    case DType::UInt16: f(std::uint16_t{}); break;
    case DType::Int16: f(std::int16_t{}); break;
    case DType::Int32: f(std::int32_t{}); break;
    case DType::Int64: f(std::int64_t{}); break;
    case DType::Float16: f(Half{}); break;
    case DType::BFloat16: f(BFloat16{}); break;
    case DType::Float32: f(float{}); break;
    case DType::Float64: f(double{}); break;
  }
}

bool torchvision_rejects(DType from, DType to, bool scale) {
  if (!scale || from == to) return false;
  if ((from == DType::Float32 && (to == DType::Int32 || to == DType::Int64)) || (from == DType::Float64 && to == DType::Int64)) return true;
  const bool fi = is_floating_point(from), fo = is_floating_point(to);
  return !fi && !fo && (from == DType::Bool || to == DType::Bool);
}

Tensor reference(const Tensor& in, DType to, bool scale) {
  Tensor out = empty(Dims(in.shape()), to, Device::cpu());
  visit(in.dtype(), [&](auto in_v) {
    using In = decltype(in_v);
    visit(to, [&](auto out_v) {
      using Out = decltype(out_v);
      for_each_index(in.shape(), [&](const std::int64_t* idx) { store<Out>(out, idx, ref_to_dtype<In, Out>(load<In>(in, idx), scale)); });
    });
  });
  return out;
}

TEST(ToDtype, MatchesReferenceForEveryPair) {
  std::uint64_t seed = 100;
  const std::vector<Dims> shapes = {{3, 5, 7}, {2, 1, 3, 4, 9}, {0, 3, 2, 2}};
  for (const Dims& shape : shapes) {
    for (int a = 0; a < kNumDTypes; ++a) {
      const DType from = static_cast<DType>(a);
      const Tensor src = random_cpu(shape, from, seed++);
      for (int b = 0; b < kNumDTypes; ++b) {
        const DType to = static_cast<DType>(b);
        for (bool scale : {false, true}) {
          if (torchvision_rejects(from, to, scale)) continue;
          const Tensor expected = reference(src, to, scale);
          for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast, Layout::Sliced}) {
            SCOPED_TRACE(describe(shape, from, layout) + " -> " + dtype_name(to) + (scale ? " scale" : ""));
            const Tensor out = functional::to_dtype(with_layout(src, layout, Device::cpu()), to, scale);
            ASSERT_TRUE(bitwise_equal(expected, out));
          }
        }
      }
    }
  }
}

TEST(ToDtype, KnownValues) {
  auto one = [](auto value, DType from, DType to, bool scale) {
    using T = decltype(value);
    T v = value;
    const Tensor t = from_blob(&v, {1}, {1}, from, Device::cpu(), nullptr);
    const Tensor out = functional::to_dtype(t, to, scale);
    double r = 0;
    visit(to, [&](auto o) {
      using O = decltype(o);
      r = as_double(*out.data_as<O>());
    });
    return r;
  };
  EXPECT_EQ(one(std::uint8_t{255}, DType::UInt8, DType::Float32, true), 1.0);
  EXPECT_FLOAT_EQ(one(std::uint8_t{51}, DType::UInt8, DType::Float32, true), 0.2f);
  EXPECT_EQ(one(0.5f, DType::Float32, DType::UInt8, true), 127.0);   // 0.5 * 255.999 = 127.9995
  EXPECT_EQ(one(1.0f, DType::Float32, DType::UInt8, true), 255.0);
  EXPECT_EQ(one(0.99999f, DType::Float32, DType::UInt8, true), 255.0);
  EXPECT_EQ(one(std::uint8_t{200}, DType::UInt8, DType::Int16, true), 25600.0);   // << 7
  EXPECT_EQ(one(std::uint8_t{200}, DType::UInt8, DType::UInt16, true), 51200.0);  // << 8
  EXPECT_EQ(one(std::uint16_t{51200}, DType::UInt16, DType::UInt8, true), 200.0);  // >> 8
  EXPECT_EQ(one(std::int16_t{-32768}, DType::Int16, DType::Int8, true), -128.0);   // >> 8
  EXPECT_EQ(one(std::int8_t{-1}, DType::Int8, DType::UInt8, true), 254.0);  // wraps to 255, << 1 wraps
  EXPECT_EQ(one(2.7f, DType::Float32, DType::UInt8, false), 2.0);
  EXPECT_EQ(one(-2.7f, DType::Float32, DType::Int8, false), -2.0);
  EXPECT_EQ(one(300.0f, DType::Float32, DType::UInt8, false), 44.0);  // wraps like PyTorch's uint8
  EXPECT_EQ(one(3e9f, DType::Float32, DType::Int16, false), 0.0);      // int32 indefinite, truncated
  EXPECT_EQ(one(3e9f, DType::Float32, DType::Int64, false), 3e9);
  EXPECT_EQ(one(Half(0.5f), DType::Float16, DType::Int32, true), -2147483648.0);  // inf in float16
  EXPECT_EQ(one(std::int32_t{7}, DType::Int32, DType::Bool, false), 1.0);
  EXPECT_EQ(one(true, DType::Bool, DType::Float32, true), 1.0);
  EXPECT_EQ(one(0.25f, DType::Float32, DType::Bool, true), 1.0);
  // float16 -> uint8 multiplies in float16: 0.5 * 255.999 = 127.9995 rounds to 128 in half.
  EXPECT_EQ(one(Half(0.5f), DType::Float16, DType::UInt8, true), 128.0);
}

TEST(ToDtype, SameDtypeReturnsTheInput) {
  const Tensor t = random_cpu({3, 4, 4}, DType::UInt8, 1);
  const Tensor out = functional::to_dtype(t, DType::UInt8, true);
  EXPECT_EQ(out.data(), t.data());
}

TEST(ToDtype, RejectsWhatTorchvisionRejects) {
  const Tensor f32 = random_cpu({3, 4, 4}, DType::Float32, 1);
  const Tensor f64 = random_cpu({3, 4, 4}, DType::Float64, 1);
  const Tensor b = random_cpu({3, 4, 4}, DType::Bool, 1);
  const Tensor i16 = random_cpu({3, 4, 4}, DType::Int16, 1);
  auto kind_of = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return static_cast<int>(e.kind());
    }
    return -1;
  };
  EXPECT_EQ(kind_of([&] { functional::to_dtype(f32, DType::Int32, true); }), static_cast<int>(ErrorKind::Runtime));
  EXPECT_EQ(kind_of([&] { functional::to_dtype(f32, DType::Int64, true); }), static_cast<int>(ErrorKind::Runtime));
  EXPECT_EQ(kind_of([&] { functional::to_dtype(f64, DType::Int64, true); }), static_cast<int>(ErrorKind::Runtime));
  EXPECT_EQ(kind_of([&] { functional::to_dtype(b, DType::Int16, true); }), static_cast<int>(ErrorKind::Type));
  EXPECT_EQ(kind_of([&] { functional::to_dtype(i16, DType::Bool, true); }), static_cast<int>(ErrorKind::Type));
  // Allowed: float64 -> int32, float16 -> int64, and every cast without scaling.
  EXPECT_EQ(kind_of([&] { functional::to_dtype(f64, DType::Int32, true); }), -1);
  EXPECT_EQ(kind_of([&] { functional::to_dtype(f32, DType::Int64, false); }), -1);
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(ToDtype, CudaEqualsCpuForEveryPair) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 2000;
  for (const Dims& shape : {Dims{2, 3, 17, 35}, Dims{3, 64, 128}}) {
    for (int a = 0; a < kNumDTypes; ++a) {
      const DType from = static_cast<DType>(a);
      const Tensor src = random_cpu(shape, from, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (int b = 0; b < kNumDTypes; ++b) {
          const DType to = static_cast<DType>(b);
          for (bool scale : {false, true}) {
            SCOPED_TRACE(describe(shape, from, layout) + " -> " + dtype_name(to) + (scale ? " scale" : ""));
            Tensor expected;
            try {
              expected = functional::to_dtype(cpu_in, to, scale);
            } catch (const Error&) {
              EXPECT_THROW(functional::to_dtype(gpu_in, to, scale), Error);
              continue;
            }
            ASSERT_TRUE(bitwise_equal(expected, functional::to_dtype(gpu_in, to, scale)));
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace svt
