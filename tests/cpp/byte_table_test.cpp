// The CPU engine's byte-table lookups (cpu/byte_table.hpp) give table[in[i]] for every byte
// value, every length and alignment of input and output, plain and streamed, in place too, and
// write nothing outside the output; where the CPU has the AVX-512 VBMI loop this checks it, and
// the ops that use it (uint8 adjust_gamma and adjust_brightness) equal their arithmetic value by
// value.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cpu/byte_table.hpp"
#include "cpu/stream_store.hpp"
#include "kernels/color.hpp"
#include "test_utils.hpp"

namespace {

using streamvision::cpu::byte_table_run;
using streamvision::cpu::byte_table_vectorised;

constexpr std::uint8_t kCanary = 0xA5;

TEST(ByteTable, EveryValueLengthAndAlignment) {
  std::mt19937 rng(7);
  std::uint8_t table[256];
  for (auto& v : table) v = static_cast<std::uint8_t>(rng());
  std::vector<std::uint8_t> src(4096 + 64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 37 + i / 256);  // every value, in many orders
  for (std::int64_t n : {0, 1, 2, 31, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 4096}) {
    for (int out_off : {0, 1, 15, 16, 33, 63}) {
      for (int in_off : {0, 5, 64}) {
        for (bool streaming : {false, true}) {
          std::vector<std::uint8_t> out(static_cast<std::size_t>(n) + 200, kCanary);
          byte_table_run(src.data() + in_off, out.data() + 64 + out_off, n, table, streaming);
          streamvision::cpu::stream_fence();
          for (std::int64_t i = 0; i < n; ++i) {
            ASSERT_EQ(out[static_cast<std::size_t>(64 + out_off + i)], table[src[static_cast<std::size_t>(in_off + i)]])
                << "n " << n << ", offsets " << in_off << "/" << out_off << ", streaming " << streaming << ", at " << i;
          }
          for (std::size_t i = 0; i < out.size(); ++i) {
            if (i < static_cast<std::size_t>(64 + out_off) || i >= static_cast<std::size_t>(64 + out_off + n)) {
              ASSERT_EQ(out[i], kCanary) << "wrote outside the output: n " << n << ", byte " << i;
            }
          }
        }
      }
    }
  }
  // In place.
  std::vector<std::uint8_t> inplace(src.begin(), src.begin() + 777), expected(777);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = table[inplace[i]];
  byte_table_run(inplace.data(), inplace.data(), 777, table, false);
  EXPECT_EQ(inplace, expected);
  if (!byte_table_vectorised()) GTEST_LOG_(INFO) << "this CPU has no AVX-512 VBMI: the scalar loop was tested";
}

// uint8 brightness takes a table where the vector loop exists (cpu/color.cpp): every value, at
// factors that clamp, truncate and keep, equals BrightnessOp's arithmetic; gamma likewise.
TEST(ByteTable, Uint8BrightnessAndGammaEqualTheirArithmetic) {
  using namespace streamvision;
  Tensor img = empty({1, 3, 256}, DType::UInt8, Device::cpu());
  auto* v = static_cast<std::uint8_t*>(img.data());
  for (int i = 0; i < 3 * 256; ++i) v[i] = static_cast<std::uint8_t>(i % 3 == 0 ? i / 3 : 255 - i / 3);
  for (double factor : {0.0, 0.3, 1.0, 1.3, 2.7}) {
    const kernels::BrightnessOp<std::uint8_t> op{static_cast<float>(factor)};
    const Tensor out = functional::adjust_brightness(img, factor);
    const auto* o = static_cast<const std::uint8_t*>(out.data());
    for (int i = 0; i < 3 * 256; ++i) ASSERT_EQ(o[i], op(v[i], 0u)) << "brightness " << factor << ", value " << +v[i];
  }
  for (double gamma : {0.4, 1.0, 2.2}) {
    const auto op = kernels::make_gamma_op<std::uint8_t>(gamma, 1.0);
    const Tensor out = functional::adjust_gamma(img, gamma, 1.0);
    const auto* o = static_cast<const std::uint8_t*>(out.data());
    for (int i = 0; i < 3 * 256; ++i) ASSERT_EQ(o[i], op(v[i], 0u)) << "gamma " << gamma << ", value " << +v[i];
  }
}

}  // namespace
