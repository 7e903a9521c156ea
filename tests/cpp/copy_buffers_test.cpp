// cuda::copy_buffers (internal: the GPU JPEG decoder's staging -> outputs copies), against the
// bytes it was given: every buffer lands whole and in place and nothing around it is written,
// for empty, tiny and odd sizes, ends that are not 16-byte aligned (the byte path) and more
// buffers than one launch carries.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "streamvision/functional/layout.hpp"
#include "test_utils.hpp"
#if SV_WITH_CUDA
#include "cuda/copy_buffers.hpp"
#endif

namespace svt {
namespace {

TEST(CudaCopyBuffers, EveryBufferLandsWholeAndNothingElseIsWritten) {
  SV_REQUIRE_GPU();
#if SV_WITH_CUDA
  constexpr std::size_t kBuffers = 300;  // two launches
  const std::int64_t sizes[] = {0, 1, 15, 16, 17, 255, 4099, 562500};
  std::vector<std::int64_t> size(kBuffers), src_at(kBuffers), dst_at(kBuffers);
  std::int64_t src_total = 0, dst_total = 0;
  for (std::size_t i = 0; i < kBuffers; ++i) {
    size[i] = sizes[i % 8];
    // Sources packed with 0-4 bytes between them, destinations with 7-9: both ends of a copy are
    // aligned only sometimes, and a byte written past a buffer lands in a gap.
    src_at[i] = src_total + static_cast<std::int64_t>(i % 5);
    src_total = src_at[i] + size[i];
    dst_at[i] = dst_total + 7 + static_cast<std::int64_t>(i % 3) * (i % 7 == 0 ? 8 : 1);
    dst_total = dst_at[i] + size[i];
  }
  dst_total += 16;
  const Tensor src_cpu = random_cpu({src_total}, DType::UInt8, 11);  // every byte value
  std::vector<std::uint8_t> sentinel(static_cast<std::size_t>(dst_total), 0xAB);
  const Tensor dst_cpu = from_blob(sentinel.data(), {dst_total}, {1}, DType::UInt8, Device::cpu(), nullptr);
  const Stream stream = Stream::create(0);
  const Tensor src = to_device(src_cpu, kGpu, stream);
  const Tensor dst = to_device(dst_cpu, kGpu, stream);
  std::vector<cuda::BufferCopy> copies(kBuffers);
  for (std::size_t i = 0; i < kBuffers; ++i) {
    copies[i] = {static_cast<std::uint8_t*>(dst.data()) + dst_at[i], static_cast<const std::uint8_t*>(src.data()) + src_at[i],
                 size[i]};
  }
  cuda::copy_buffers(copies.data(), copies.size(), stream, "copy_buffers_test");
  const Tensor out = to_device(dst, Device::cpu(), stream);
  stream.synchronize();
  const auto* got = static_cast<const std::uint8_t*>(out.data());
  const auto* want = static_cast<const std::uint8_t*>(src_cpu.data());
  std::vector<std::uint8_t> expected = sentinel;
  for (std::size_t i = 0; i < kBuffers; ++i) {
    std::memcpy(expected.data() + dst_at[i], want + src_at[i], static_cast<std::size_t>(size[i]));
  }
  for (std::int64_t k = 0; k < dst_total; ++k) {
    ASSERT_EQ(got[k], expected[static_cast<std::size_t>(k)]) << "byte " << k;
  }
#endif
}

}  // namespace
}  // namespace svt
