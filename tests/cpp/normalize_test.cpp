// normalize on the CPU against PyTorch's image.sub(mean).div_(std), written out per dtype.
#include <random>
#include <type_traits>

#include "test_utils.hpp"

namespace svt {
namespace {

template <class T>
T ref_normalize(T x, double mean, double std) {
  if constexpr (std::is_same_v<T, double>) {
    return (x - mean) / std;
  } else if constexpr (std::is_same_v<T, float>) {
    return (x - static_cast<float>(mean)) / static_cast<float>(std);
  } else {
    // mean/std become tensors of the image dtype; each op computes in float and rounds.
    const float m = static_cast<float>(T(static_cast<float>(mean)));
    const float s = static_cast<float>(T(static_cast<float>(std)));
    const T centered(static_cast<float>(x) - m);
    return T(static_cast<float>(centered) / s);
  }
}

template <class T>
Tensor reference(const Tensor& in, const std::vector<double>& mean, const std::vector<double>& std) {
  Tensor out = empty(Dims(in.shape()), in.dtype(), Device::cpu());
  const int cdim = in.dim() - 3;
  for_each_index(in.shape(), [&](const std::int64_t* idx) {
    const std::size_t c = mean.size() == 1 ? 0 : static_cast<std::size_t>(idx[cdim]);
    const std::size_t cs = std.size() == 1 ? 0 : static_cast<std::size_t>(idx[cdim]);
    store<T>(out, idx, ref_normalize<T>(load<T>(in, idx), mean[c], std[cs]));
  });
  return out;
}

Tensor reference_any(const Tensor& in, const std::vector<double>& mean, const std::vector<double>& std) {
  switch (in.dtype()) {
    case DType::Float16: return reference<Half>(in, mean, std);
    case DType::BFloat16: return reference<BFloat16>(in, mean, std);
    case DType::Float32: return reference<float>(in, mean, std);
    default: return reference<double>(in, mean, std);
  }
}

std::vector<double> random_values(std::size_t n, std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(Normalize, MatchesReferenceForEveryFloatDtypeShapeAndLayout) {
  std::mt19937 rng(7);
  std::uint64_t seed = 300;
  for (const Dims& shape : test_shapes()) {
    const std::size_t channels = static_cast<std::size_t>(shape[shape.size() - 3]);
    for (DType dtype : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      const std::vector<double> mean = random_values(channels, rng, -0.5, 0.9);
      const std::vector<double> std = random_values(channels, rng, 0.05, 1.5);
      const Tensor expected = reference_any(src, mean, std);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor in = with_layout(src, layout, Device::cpu());
        EXPECT_TRUE(bitwise_equal(expected, functional::normalize(in, mean, std)));
        EXPECT_TRUE(bitwise_equal(src, in)) << "not inplace: the input must not change";
        // In place writes through the view (sliced and strided inputs included).
        const Tensor out = functional::normalize(in, mean, std, /*inplace=*/true);
        EXPECT_EQ(out.data(), in.data());
        EXPECT_TRUE(bitwise_equal(expected, in));
      }
    }
  }
}

TEST(Normalize, BroadcastsOneValueAndHandlesManyChannels) {
  const Tensor src = random_cpu({2, 40, 3, 5}, DType::Float32, 11);
  EXPECT_TRUE(bitwise_equal(reference_any(src, {0.25}, {0.5}), functional::normalize(src, {0.25}, {0.5})));
  std::mt19937 rng(3);
  const auto mean = random_values(40, rng, 0, 1), std = random_values(40, rng, 0.1, 1);
  EXPECT_TRUE(bitwise_equal(reference_any(src, mean, std), functional::normalize(src, mean, std)));
}

TEST(Normalize, KnownValues) {
  float data[] = {0.5f, 1.0f, 0.0f, 0.25f};  // [C=2, H=1, W=2]
  const Tensor img = from_blob(data, {2, 1, 2}, {2, 2, 1}, DType::Float32, Device::cpu(), nullptr);
  const Tensor out = functional::normalize(img, {0.5, 0.0}, {0.5, 0.25});
  const float* p = out.data_as<float>();
  EXPECT_EQ(std::vector<float>(p, p + 4), (std::vector<float>{0.0f, 1.0f, 0.0f, 1.0f}));
}

TEST(Normalize, BadInputChangesNothing) {
  const Tensor src = random_cpu({3, 4, 5}, DType::Float32, 1);
  const Tensor keep = contiguous_copy(src);
  auto expect = [&](ErrorKind kind, const char* needle, auto&& fn) {
    try {
      fn();
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
    EXPECT_TRUE(bitwise_equal(keep, src));
  };
  expect(ErrorKind::Value, "std", [&] { functional::normalize(src, {0.1, 0.2, 0.3}, {1.0, 0.0, 1.0}, true); });
  expect(ErrorKind::Value, "mean", [&] { functional::normalize(src, {0.1, 0.2}, {1.0}, true); });
  expect(ErrorKind::Type, "float tensor", [&] { functional::normalize(random_cpu({3, 4, 5}, DType::UInt8, 1), {0.5}, {0.5}); });
  expect(ErrorKind::Value, "at least 3 dims", [&] { functional::normalize(random_cpu({4, 5}, DType::Float32, 1), {0.5}, {0.5}); });
  expect(ErrorKind::Value, "at most 1024 channels",
         [&] { functional::normalize(random_cpu({1025, 1, 1}, DType::Float32, 1), {0.5}, {0.5}); });
}

}  // namespace
}  // namespace svt
