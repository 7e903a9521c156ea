// The CPU engine's streaming stores (cpu/stream_store.hpp) write exactly the bytes the plain
// copies write, for every alignment of source and destination, and nothing outside them:
// stream_bytes against memcpy, stream_line, the streamed reversed rows and RGB pixels
// (cpu/layout.cpp) against their plain twins, and the whole-row copies, plain and streamed,
// against memcpy.
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
using streamvision::cpu::copy_rows;
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

// Rows of every length around the 32-byte moves and the 256-byte limit of the short-row loop,
// packed or with gaps, written in either direction (a vertical flip walks the output up), plain
// and streamed: each row equals memcpy's and no byte outside the rows changes.
TEST(StreamStore, RowCopiesEqualMemcpy) {
  for (std::int64_t bytes : {1, 31, 32, 33, 63, 100, 224, 255, 256, 257, 1920}) {
    for (std::int64_t gap : {0, 5, 64}) {
      for (bool upwards : {false, true}) {
        for (bool streamed : {false, true}) {
          const std::int64_t rows = 7, src_row = bytes + gap, dst_row = bytes + (gap == 5 ? 0 : gap);
          const auto src = random_bytes(static_cast<std::size_t>(rows * src_row + 64), 9);
          std::vector<unsigned char> dst(static_cast<std::size_t>(rows * dst_row + 256), kCanary);
          unsigned char* first = dst.data() + 128 + (upwards ? (rows - 1) * dst_row : 0);
          copy_rows(src.data() + 3, src_row, first, upwards ? -dst_row : dst_row, bytes, rows, streamed);
          stream_fence();
          SCOPED_TRACE("bytes " + std::to_string(bytes) + " gap " + std::to_string(gap) + (upwards ? " upwards" : "") +
                       (streamed ? " streamed" : ""));
          std::vector<unsigned char> expected(dst.size(), kCanary);
          for (std::int64_t r = 0; r < rows; ++r) {
            std::memcpy(expected.data() + (first - dst.data()) + (upwards ? -r : r) * dst_row, src.data() + 3 + r * src_row,
                        static_cast<std::size_t>(bytes));
          }
          ASSERT_EQ(dst, expected);
        }
      }
    }
  }
}

TEST(StreamStore, RowCopyOntoItselfIsLeftAlone) {
  auto data = random_bytes(2000, 10);
  const auto before = data;
  copy_rows(data.data() + 8, 300, data.data() + 8, 300, 224, 6, false);
  copy_rows(data.data() + 8, 300, data.data() + 8, 300, 224, 6, true);
  stream_fence();
  EXPECT_EQ(data, before);
}

}  // namespace
