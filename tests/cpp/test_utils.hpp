// Test helpers: random images of any dtype, the same logical content in several layouts on
// either device, and element access written independently of the library's kernels.
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

// Shapes the op tests run over: 3-D, 4-D and 5-D, odd sizes, 1xN, a larger image, degenerate.
std::vector<Dims> test_shapes();

}  // namespace svt
