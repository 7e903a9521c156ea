// The CPU engine's streaming stores (cpu/stream_store.hpp) write exactly the bytes the plain
// copies write, for every alignment of source and destination, and nothing outside them:
// stream_bytes against memcpy, stream_line, and the streamed reversed rows and RGB pixels
// (cpu/layout.cpp) against their plain twins.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/elementwise.hpp"
#include "cpu/stream_store.hpp"

namespace {

using streamvision::cpu::copy_rgb_pixels;
using streamvision::cpu::copy_rgb_pixels_streamed;
using streamvision::cpu::reverse_rows;
using streamvision::cpu::reverse_rows_streamed;
using streamvision::cpu::stream_bytes;
using streamvision::cpu::stream_fence;

constexpr unsigned char kCanary = 0xA5;

std::vector<unsigned char> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

TEST(StreamStore, BytesEqualMemcpyForEveryAlignment) {
  const auto src = random_bytes(20000, 1);
  for (std::size_t n : {0, 1, 15, 16, 17, 63, 64, 65, 127, 200, 4096, 9999}) {
    for (std::size_t dst_off = 0; dst_off < 64; dst_off += (n > 300 ? 7 : 1)) {
      for (std::size_t src_off : {0, 1, 16, 33}) {
        std::vector<unsigned char> dst(n + 256, kCanary);
        stream_bytes(dst.data() + 64 + dst_off, src.data() + src_off, n);
        stream_fence();
        SCOPED_TRACE("n " + std::to_string(n) + " dst offset " + std::to_string(dst_off) + " src offset " +
                     std::to_string(src_off));
        ASSERT_EQ(std::memcmp(dst.data() + 64 + dst_off, src.data() + src_off, n), 0);
        for (std::size_t i = 0; i < 64 + dst_off; ++i) ASSERT_EQ(dst[i], kCanary) << "before, at " << i;
        for (std::size_t i = 64 + dst_off + n; i < dst.size(); ++i) ASSERT_EQ(dst[i], kCanary) << "after, at " << i;
      }
    }
  }
}

TEST(StreamStore, LineCopiesSixtyFourBytes) {
  const auto src = random_bytes(64, 5);
  alignas(64) unsigned char line[64];
  std::memcpy(line, src.data(), 64);
  alignas(64) unsigned char dst[192];
  std::memset(dst, kCanary, sizeof dst);
  streamvision::cpu::stream_line(dst + 64, line);
  stream_fence();
  EXPECT_EQ(std::memcmp(dst + 64, src.data(), 64), 0);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(dst[i], kCanary);
  for (int i = 128; i < 192; ++i) ASSERT_EQ(dst[i], kCanary);
}

TEST(StreamStore, SameRangeIsLeftAlone) {
  auto data = random_bytes(1000, 2);
  const auto before = data;
  stream_bytes(data.data() + 3, data.data() + 3, 900);
  stream_fence();
  EXPECT_EQ(data, before);
}

// Rows of `count` items reversed, plain and streamed, rows `row` items apart in both buffers.
TEST(StreamStore, ReversedRowsEqualThePlainCopy) {
  for (std::size_t itemsize : {1, 2, 4}) {
    for (std::int64_t count : {1, 7, 32, 224, 1000, 5000}) {  // 5000 items: rows longer than a chunk
      for (std::int64_t pad : {0, 3, 16}) {
        const std::int64_t rows = 5, row = count + pad;
        const auto src = random_bytes(static_cast<std::size_t>(rows * row) * itemsize, 3);
        std::vector<unsigned char> plain(src.size() + 64, kCanary), streamed(src.size() + 64, kCanary);
        // Each row's last item first: reverse_rows reads src[-j].
        const unsigned char* first = src.data() + (count - 1) * itemsize;
        reverse_rows(first, row, plain.data() + 32, row, count, rows, itemsize);
        reverse_rows_streamed(first, row, streamed.data() + 32, row, count, rows, itemsize);
        stream_fence();
        SCOPED_TRACE("itemsize " + std::to_string(itemsize) + " count " + std::to_string(count) + " pad " +
                     std::to_string(pad));
        ASSERT_EQ(plain, streamed);
        // And the plain copy is the reversal.
        for (std::int64_t r = 0; r < rows; ++r) {
          for (std::int64_t j = 0; j < count; ++j) {
            ASSERT_EQ(std::memcmp(plain.data() + 32 + (r * row + j) * itemsize,
                                  src.data() + (r * row + count - 1 - j) * itemsize, itemsize),
                      0);
          }
        }
      }
    }
  }
}

// Packed 3-item pixels from a step of +-3 or more, to every alignment of the output.
TEST(StreamStore, RgbPixelsEqualThePlainCopy) {
  for (std::size_t itemsize : {1, 2, 4}) {
    for (std::int64_t count : {1, 2, 5, 64, 700, 3000}) {
      for (std::int64_t step : {3, -3, 4, -6}) {
        for (std::size_t dst_off : {0, 1, 5, 24, 63}) {
          const std::int64_t span = (count - 1) * (step < 0 ? -step : step) + 3;
          const auto src = random_bytes(static_cast<std::size_t>(span) * itemsize, 4);
          const unsigned char* start = src.data() + (step < 0 ? (span - 3) * static_cast<std::int64_t>(itemsize) : 0);
          const std::size_t out_bytes = static_cast<std::size_t>(3 * count) * itemsize;
          std::vector<unsigned char> plain(out_bytes + 192, kCanary), streamed(out_bytes + 192, kCanary);
          const std::size_t at = 64 + dst_off / itemsize * itemsize;  // items stay aligned to their size
          copy_rgb_pixels(start, step, plain.data() + at, count, itemsize);
          copy_rgb_pixels_streamed(start, step, streamed.data() + at, count, itemsize);
          stream_fence();
          SCOPED_TRACE("itemsize " + std::to_string(itemsize) + " count " + std::to_string(count) + " step " +
                       std::to_string(step) + " dst offset " + std::to_string(at));
          ASSERT_EQ(plain, streamed);
          for (std::int64_t i = 0; i < count; ++i) {
            ASSERT_EQ(std::memcmp(plain.data() + at + 3 * i * itemsize, start + i * step * static_cast<std::int64_t>(itemsize),
                                  3 * itemsize),
                      0);
          }
        }
      }
    }
  }
}

}  // namespace
