// Test helpers: random images of any dtype, the same logical content in several layouts on
// either device, element access written independently of the library's kernels, error checks,
// and what the CUDA == CPU tests share (the GPU, the skip without one).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "streamvision/streamvision.hpp"

namespace svt {

using namespace streamvision;

// Skips the calling test with a visible reason when no CUDA device can be used.
#define SV_REQUIRE_GPU()                                                                      \
  do {                                                                                        \
    if (!::streamvision::built_with_cuda()) GTEST_SKIP() << "streamvision built without CUDA"; \
    if (!::streamvision::cuda_is_available()) GTEST_SKIP() << "no CUDA device on this machine"; \
  } while (0)

// Skips the calling test, naming the device count, on machines with fewer than two CUDA devices.
#define SV_REQUIRE_TWO_GPUS()                                                                            \
  do {                                                                                                   \
    if (!::streamvision::built_with_cuda()) GTEST_SKIP() << "streamvision built without CUDA";            \
    if (const int n = ::streamvision::cuda_device_count(); n < 2)                                        \
      GTEST_SKIP() << "needs 2 CUDA devices (found " << n << ")";                                         \
  } while (0)

// The GPU the CUDA == CPU tests run on (they skip with SV_REQUIRE_GPU() when there is none).
inline const Device kGpu = Device::cuda(0);

// Fails the calling test when a CUDA runtime call does not succeed (needs <cuda_runtime_api.h>
// at the point of use).
#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

// The dtypes torchvision's colour, filter and geometry ops take on tensors (and ours support):
// uint8, uint16, float16, bfloat16, float32, float64.
inline const std::vector<DType> kImageDTypes{DType::UInt8,    DType::UInt16,  DType::Float16,
                                             DType::BFloat16, DType::Float32, DType::Float64};

// Calls f(idx) for every logical multi-index of `shape`, last dim fastest.
template <class F>
void for_each_index(std::span<const std::int64_t> shape, F&& f) {
  std::int64_t numel = 1;
  for (auto s : shape) numel *= s;
  if (numel == 0) return;
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::int64_t n = 0; n < numel; ++n) {
    f(idx.data());
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

inline char* element_ptr(const Tensor& t, const std::int64_t* idx) {
  std::int64_t off = 0;
  for (int d = 0; d < t.dim(); ++d) off += idx[d] * t.strides()[d];
  return static_cast<char*>(t.data()) + off * static_cast<std::int64_t>(t.itemsize());
}

inline std::uint64_t load_bits(const Tensor& t, const std::int64_t* idx) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, element_ptr(t, idx), t.itemsize());
  return bits;
}

inline void store_bits(const Tensor& t, const std::int64_t* idx, std::uint64_t bits) {
  std::memcpy(element_ptr(t, idx), &bits, t.itemsize());
}

template <class T>
T load(const Tensor& t, const std::int64_t* idx) {
  T v;
  std::memcpy(&v, element_ptr(t, idx), sizeof(T));
  return v;
}

template <class T>
void store(const Tensor& t, const std::int64_t* idx, T v) {
  std::memcpy(element_ptr(t, idx), &v, sizeof(T));
}

// An element of a uint8, uint16, int16 or float tensor as a double.
inline double value_at(const Tensor& t, const std::int64_t* idx) {
  switch (t.dtype()) {
    case DType::UInt8: return load<std::uint8_t>(t, idx);
    case DType::UInt16: return load<std::uint16_t>(t, idx);
    case DType::Int16: return load<std::int16_t>(t, idx);
    case DType::Float16: return static_cast<float>(load<Half>(t, idx));
    case DType::BFloat16: return static_cast<float>(load<BFloat16>(t, idx));
    case DType::Float32: return load<float>(t, idx);
    case DType::Float64: return load<double>(t, idx);
    default: ADD_FAILURE() << "value_at: unexpected dtype " << dtype_name(t.dtype()); return 0;
  }
}

// A contiguous CPU tensor of random content. Integers cover their whole range; floats lie in
// [lo, hi] (default [-0.25, 1.25]: images in [0, 1] plus out-of-range values); bool is 0/1.
Tensor random_cpu(const Dims& shape, DType dtype, std::uint64_t seed, double lo = -0.25, double hi = 1.25);

enum class Layout { Contiguous, ChannelsLast, Sliced, Strided };
const char* layout_name(Layout layout);
inline constexpr Layout kAllLayouts[] = {Layout::Contiguous, Layout::ChannelsLast, Layout::Sliced, Layout::Strided};

// A tensor on `device` with the logical content of `src` (a CPU tensor) in `layout`:
// channels_last strides, a window sliced out of a larger buffer, or every other element of
// the last dim. The parts of the buffer outside the view hold random garbage.
Tensor with_layout(const Tensor& src, Layout layout, Device device, std::uint64_t seed = 99);

// Copies to the CPU (for CUDA tensors) and compares logical contents bit for bit.
::testing::AssertionResult bitwise_equal(const Tensor& expected, const Tensor& actual);

// Copies a CPU tensor's logical content into a fresh contiguous CPU tensor (a test-side loop).
Tensor contiguous_copy(const Tensor& src);

inline Tensor to_cpu(const Tensor& t) { return t.device().is_cpu() ? t : to_device(t, Device::cpu()); }

std::string describe(const Dims& shape, DType dtype, Layout layout);

// Runs fn, expects an Error of `kind` whose message contains `needle`, and that `untouched`
// still equals `keep` (nothing was written).
template <class Fn>
void expect_error(ErrorKind kind, const std::string& needle, Fn&& fn, const Tensor& untouched = Tensor(),
                  const Tensor& keep = Tensor()) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
  if (untouched.defined()) EXPECT_TRUE(bitwise_equal(keep, untouched)) << "the input changed";
}

// Shapes the op tests run over: 3-D, 4-D and 5-D, odd sizes, 1xN, a larger image, degenerate.
std::vector<Dims> test_shapes();

}  // namespace svt
