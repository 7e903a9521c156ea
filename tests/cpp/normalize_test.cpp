// normalize on the CPU against PyTorch's image.sub(mean).div_(std), written out per dtype; on
// CUDA, equal to the CPU bit for bit, also when a large tensor launches in pieces (skipped without
// a GPU).
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

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Normalize, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> mean_d(-0.5, 0.9), std_d(0.05, 1.5);
  std::uint64_t seed = 3000;
  std::vector<Dims> shapes = test_shapes();
  shapes.push_back({2, 40, 9, 11});  // more channels than the small parameter block
  shapes.push_back({2, 3, 13, 68});   // 1 and 3 channels: the pixel engine's vector groups
  shapes.push_back({3, 1, 5, 64});
  for (const Dims& shape : shapes) {
    const std::size_t channels = static_cast<std::size_t>(shape[shape.size() - 3]);
    std::vector<double> mean(channels), std(channels);
    for (auto& m : mean) m = mean_d(rng);
    for (auto& s : std) s = std_d(rng);
    for (DType dtype : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor expected = functional::normalize(with_layout(src, layout, Device::cpu()), mean, std);
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        EXPECT_TRUE(bitwise_equal(expected, functional::normalize(gpu_in, mean, std)));
        functional::normalize(gpu_in, mean, std, /*inplace=*/true);
        EXPECT_TRUE(bitwise_equal(expected, gpu_in));
      }
    }
  }
}

// Above 2^30 elements the CUDA engine launches in pieces; the channel bookkeeping of
// normalize must continue across them.
TEST(Normalize, LargeTensorsSplitIntoPiecesCuda) {
  SV_REQUIRE_GPU();
  const Dims shape{5, 3, 8192, 9000};  // 1.1e9 elements
  Tensor x = empty(shape, DType::UInt8, kGpu);
  // Content: a ramp per row, written by a cheap CPU->GPU copy of one channel plane pattern.
  const Tensor plane = random_cpu({1, 1, 8192, 9000}, DType::UInt8, 1);
  for (int n = 0; n < 5; ++n)
    for (int c = 0; c < 3; ++c) copy_(x.slice(0, n, n + 1).slice(1, c, c + 1), plane);
  const Tensor flipped = functional::horizontal_flip(x);
  const Tensor normalized = functional::normalize(functional::to_dtype(x, DType::Float16, true), {0.1, 0.2, 0.3}, {1.0, 2.0, 4.0});
  // Spot checks against the CPU on the last image, where the pieces end.
  const Tensor last_cpu = to_cpu(flipped.slice(0, 4, 5));
  EXPECT_TRUE(bitwise_equal(functional::horizontal_flip(plane), last_cpu.slice(1, 2, 3)));
  const Tensor expected_norm = functional::normalize(functional::to_dtype(to_cpu(x.slice(0, 4, 5)), DType::Float16, true),
                                                     {0.1, 0.2, 0.3}, {1.0, 2.0, 4.0});
  EXPECT_TRUE(bitwise_equal(expected_norm, normalized.slice(0, 4, 5)));
}

}  // namespace
}  // namespace svt
