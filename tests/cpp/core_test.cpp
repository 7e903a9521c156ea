// Core types: dtypes, 16-bit floats, tensors as strided views, validation, allocation.
#include <cmath>
#include <limits>
#include <random>

#include "test_utils.hpp"

namespace svt {
namespace {

TEST(DType, PropertiesFollowTorchvision) {
  EXPECT_STREQ(dtype_name(DType::BFloat16), "bfloat16");
  EXPECT_EQ(itemsize(DType::Float64), 8u);
  EXPECT_EQ(itemsize(DType::Bool), 1u);
  EXPECT_TRUE(is_floating_point(DType::Float16));
  EXPECT_FALSE(is_floating_point(DType::Bool));
  EXPECT_FALSE(is_integral(DType::Bool));
  EXPECT_TRUE(is_integral(DType::UInt16));
  EXPECT_EQ(max_value(DType::UInt8), 255.0);
  EXPECT_EQ(max_value(DType::Int16), 32767.0);
  EXPECT_EQ(max_value(DType::Float32), 1.0);
  EXPECT_EQ(value_bits(DType::Int8), 7);
  EXPECT_EQ(value_bits(DType::UInt16), 16);
  EXPECT_THROW(value_bits(DType::Float32), Error);
  EXPECT_EQ((DTypeSet{DType::UInt8, DType::Float32}.to_string()), "uint8, float32");
}

// Every half value converts to float exactly and back to itself; float -> half rounds to the
// nearest half (ties to even), checked against a search over neighbours in double.
TEST(Half, ExhaustiveRoundTripAndNearestRounding) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const Half h = Half::from_bits(static_cast<std::uint16_t>(b));
    const float f = static_cast<float>(h);
    if (std::isnan(f)) continue;
    ASSERT_EQ(Half(f).bits, b) << "half bits " << b;
  }
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-70000.f, 70000.f);
  std::uniform_real_distribution<float> small(-1e-4f, 1e-4f);
  for (int i = 0; i < 200000; ++i) {
    const float f = i % 2 ? dist(rng) : small(rng);
    const Half h(f);
    const double got = static_cast<float>(h);
    if (std::isinf(got)) {
      EXPECT_GE(std::fabs(f), 65520.f);
      continue;
    }
    // No other finite half is strictly closer.
    for (int delta : {-1, 1}) {
      const Half n = Half::from_bits(static_cast<std::uint16_t>(h.bits + delta));
      const double other = static_cast<float>(n);
      if (std::isnan(other) || std::isinf(other)) continue;
      ASSERT_LE(std::fabs(got - f), std::fabs(other - f)) << f;
      if (std::fabs(got - f) == std::fabs(other - f)) ASSERT_EQ(h.bits & 1u, 0u) << "tie must round to even: " << f;
    }
  }
  EXPECT_EQ(Half(65504.f).bits, 0x7bffu);
  EXPECT_EQ(Half(65520.f).bits, 0x7c00u);
  EXPECT_EQ(Half(-0.0f).bits, 0x8000u);
  EXPECT_EQ(Half(std::numeric_limits<float>::quiet_NaN()).bits, 0x7fffu);
  EXPECT_EQ(Half(5.960464477539063e-08f).bits, 0x0001u);  // smallest subnormal
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80u);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(BFloat16(1.00390625f).bits, 0x3f80u);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: rounds up to even.
  EXPECT_EQ(BFloat16(1.01171875f).bits, 0x3f82u);
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::quiet_NaN()).bits, 0x7fffu);
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const BFloat16 h = BFloat16::from_bits(static_cast<std::uint16_t>(b));
    const float f = static_cast<float>(h);
    if (!std::isnan(f)) ASSERT_EQ(BFloat16(f).bits, b);
  }
}

TEST(Tensor, ContiguousAndChannelsLastStrides) {
  Tensor t = empty({2, 3, 4, 5}, DType::Float32, Device::cpu());
  EXPECT_EQ(Dims(t.strides()), (Dims{60, 20, 5, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_FALSE(t.is_channels_last());
  Tensor cl = empty({2, 3, 4, 5}, DType::UInt8, Device::cpu(), MemoryFormat::ChannelsLast);
  EXPECT_EQ(Dims(cl.strides()), (Dims{60, 1, 15, 3}));
  EXPECT_TRUE(cl.is_channels_last());
  EXPECT_FALSE(cl.is_contiguous());
  EXPECT_TRUE(cl.is_non_overlapping_and_dense());
  // 3-D channels_last is HWC, 5-D keeps leading dims outermost.
  EXPECT_EQ(Dims(empty({3, 4, 5}, DType::UInt8, Device::cpu(), MemoryFormat::ChannelsLast).strides()), (Dims{1, 15, 3}));
  EXPECT_EQ(Dims(empty({2, 2, 3, 4, 5}, DType::UInt8, Device::cpu(), MemoryFormat::ChannelsLast).strides()),
            (Dims{120, 60, 1, 15, 3}));
  // empty_like keeps the stride order.
  EXPECT_EQ(Dims(empty_like(cl, DType::Float64).strides()), Dims(cl.strides()));
  EXPECT_EQ(empty_like(cl, DType::Float64).dtype(), DType::Float64);
}

TEST(Tensor, CpuMemoryIsAligned) {
  for (int n : {1, 3, 63, 65, 1000}) {
    Tensor t = empty({n}, DType::UInt8, Device::cpu());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data()) % kCpuAlignment, 0u);
  }
}

TEST(Tensor, ViewsShareMemory) {
  Tensor t = random_cpu({2, 3, 4, 5}, DType::Int32, 3);
  Tensor s = t.slice(-1, 1, 4, 2);
  EXPECT_EQ(Dims(s.shape()), (Dims{2, 3, 4, 2}));
  EXPECT_EQ(Dims(s.strides()), (Dims{60, 20, 5, 2}));
  EXPECT_FALSE(s.is_contiguous());
  EXPECT_FALSE(s.is_non_overlapping_and_dense());
  const std::int64_t idx[] = {1, 2, 3, 1};
  const std::int64_t src[] = {1, 2, 3, 3};
  EXPECT_EQ(load<std::int32_t>(s, idx), load<std::int32_t>(t, src));
  EXPECT_EQ(s.owner(), t.owner());

  Tensor sel = t.select(1, -1);
  EXPECT_EQ(Dims(sel.shape()), (Dims{2, 4, 5}));
  const std::int64_t i3[] = {1, 2, 3}, i4[] = {1, 2, 2, 3};
  EXPECT_EQ(load<std::int32_t>(sel, i3), load<std::int32_t>(t, i4));

  Tensor p = t.permute({0, 2, 3, 1});
  EXPECT_EQ(Dims(p.shape()), (Dims{2, 4, 5, 3}));
  EXPECT_EQ(Dims(p.strides()), (Dims{60, 5, 1, 20}));
  EXPECT_EQ(Dims(t.unsqueeze(0).shape()), (Dims{1, 2, 3, 4, 5}));
  EXPECT_EQ(Dims(t.unsqueeze(-1).shape()), (Dims{2, 3, 4, 5, 1}));
  EXPECT_EQ(Dims(t.view({6, 20}).shape()), (Dims{6, 20}));
  EXPECT_THROW(s.view({120}), Error);
  EXPECT_THROW(t.view({7}), Error);
  EXPECT_THROW(t.permute({0, 0, 1, 2}), Error);
  EXPECT_THROW(t.select(0, 2), Error);
  EXPECT_THROW(t.size(4), Error);
  EXPECT_EQ(t.size(-1), 5);
}

TEST(Tensor, FromBlobKeepsOwnerAlive) {
  auto flag = std::make_shared<int>(7);
  std::weak_ptr<int> watch = flag;
  std::vector<float> data(6, 1.5f);
  {
    Tensor t = from_blob(data.data(), {2, 3}, {3, 1}, DType::Float32, Device::cpu(), flag);
    flag.reset();
    Tensor view = t.slice(1, 1, 3);
    t = Tensor();
    EXPECT_FALSE(watch.expired()) << "a view must keep the owner alive";
    EXPECT_EQ(load<float>(view, std::array<std::int64_t, 2>{1, 1}.data()), 1.5f);
  }
  EXPECT_TRUE(watch.expired());
}

TEST(Tensor, FromBlobRejectsBadLayouts) {
  float x[8] = {};
  auto expect_error = [](auto&& fn, const char* needle) {
    try {
      fn();
      ADD_FAILURE() << "no error; expected one mentioning " << needle;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error([&] { from_blob(x, {2, 4}, {-4, 1}, DType::Float32, Device::cpu(), nullptr); }, "non-negative strides");
  expect_error([&] { from_blob(x, {2, -4}, {4, 1}, DType::Float32, Device::cpu(), nullptr); }, "non-negative sizes");
  expect_error([&] { from_blob(nullptr, {2, 4}, {4, 1}, DType::Float32, Device::cpu(), nullptr); }, "non-null pointer");
  expect_error([&] { from_blob(x, {2, 4}, {1}, DType::Float32, Device::cpu(), nullptr); }, "one per dim");
  expect_error([&] {
    from_blob(x, {1ll << 40, 1ll << 40}, {1ll << 40, 1}, DType::Float32, Device::cpu(), nullptr);
  }, "fits in int64");
  expect_error([&] { empty({1ll << 62, 1ll << 62}, DType::UInt8, Device::cpu()); }, "fits in int64");
  expect_error([&] { Dims({1, 2, 3, 4, 5, 6, 7, 8, 9}); }, "at most 8 dims");
  // A null pointer is fine without elements.
  Tensor z = from_blob(nullptr, {0, 4}, {4, 1}, DType::Float32, Device::cpu(), nullptr);
  EXPECT_EQ(z.numel(), 0);
}

TEST(Allocator, CustomAllocatorIsUsedAndRestored) {
  struct Counting final : Allocator {
    int allocations = 0, frees = 0;
    void* allocate(std::size_t n, Device d, const Stream& s) override {
      ++allocations;
      return get_allocator_default().allocate(n, d, s);
    }
    void deallocate(void* p, std::size_t n, Device d, const Stream& s) noexcept override {
      ++frees;
      get_allocator_default().deallocate(p, n, d, s);
    }
    Allocator& get_allocator_default() { return *previous; }
    Allocator* previous = nullptr;
  } counting;
  counting.previous = &get_allocator(DeviceType::CPU);
  Allocator* before = set_allocator(DeviceType::CPU, &counting);
  { Tensor t = empty({4, 4}, DType::UInt8, Device::cpu()); }
  set_allocator(DeviceType::CPU, before);
  EXPECT_EQ(counting.allocations, 1);
  EXPECT_EQ(counting.frees, 1);
  EXPECT_EQ(&get_allocator(DeviceType::CPU), counting.previous);
}

// The default CUDA allocator's own pool: statistics follow live memory, and empty cache gives
// back what is free once the host has seen the free complete.
TEST(Allocator, CudaPoolStatisticsAndEmptyCache) {
  SV_REQUIRE_GPU();
  const Stream stream = Stream::create(0);
  const CudaMemoryStats start = cuda_memory_stats(0);
  constexpr std::int64_t kBytes = 64 << 20;
  {
    const Tensor t = empty({kBytes}, DType::UInt8, kGpu, MemoryFormat::Contiguous, stream);
    const CudaMemoryStats live = cuda_memory_stats(0);
    EXPECT_GE(live.allocated, start.allocated + kBytes);
    EXPECT_GE(live.reserved, live.allocated);
    EXPECT_EQ(cuda_memory_stats().allocated, live.allocated);  // -1: the current device, 0 here
  }
  stream.synchronize();
  const CudaMemoryStats freed = cuda_memory_stats(0);
  EXPECT_EQ(freed.allocated, start.allocated);
  EXPECT_GE(freed.reserved, static_cast<std::uint64_t>(kBytes));  // cached, not returned
  cuda_empty_cache();
  EXPECT_LE(cuda_memory_stats(0).reserved, freed.reserved - kBytes);
}

TEST(Stream, CpuOnlyFactsAreConsistent) {
  if (!built_with_cuda()) {
    EXPECT_EQ(cuda_device_count(), 0);
    EXPECT_THROW(Stream::create(), Error);
  }
  EXPECT_FALSE(Stream().is_valid());
}

// On a machine without a usable GPU (CI), the CUDA build still loads, the CPU path works, and
// asking for CUDA memory fails with a clear message.
TEST(NoGpu, CudaRequestsFailClearly) {
  // ctest runs this with CUDA_VISIBLE_DEVICES="" (tests/CMakeLists.txt), so no device is visible.
  ASSERT_FALSE(cuda_is_available()) << "run with CUDA_VISIBLE_DEVICES=\"\"";
  try {
    empty({2, 2}, DType::UInt8, Device::cuda(0));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cuda:0"), std::string::npos) << what;
    EXPECT_TRUE(what.find("no CUDA device") != std::string::npos || what.find("without CUDA") != std::string::npos)
        << what;
  }
  Tensor cpu = random_cpu({3, 4, 5}, DType::UInt8, 1);
  EXPECT_EQ(functional::horizontal_flip(cpu).numel(), 60);
}

}  // namespace
}  // namespace svt
