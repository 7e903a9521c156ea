// Layout conversion and copies: contents preserved bit for bit, layouts as asked, on the CPU and
// between the CPU and CUDA (skipped without a GPU).
#include "test_utils.hpp"

namespace svt {
namespace {

TEST(Layout, ConvertsBetweenContiguousAndChannelsLast) {
  std::uint64_t seed = 500;
  for (const Dims& shape : test_shapes()) {
    for (DType dtype : {DType::UInt8, DType::Int16, DType::Float32, DType::Float64, DType::Bool}) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor in = with_layout(src, layout, Device::cpu());
        const Tensor cl = to_channels_last(in);
        EXPECT_TRUE(cl.is_channels_last() || cl.numel() == 0);
        EXPECT_TRUE(bitwise_equal(src, cl));
        const Tensor c = contiguous(cl);
        EXPECT_TRUE(c.is_contiguous());
        EXPECT_TRUE(bitwise_equal(src, c));
      }
    }
  }
}

TEST(Layout, AlreadyInLayoutReturnsTheSameTensor) {
  const Tensor t = random_cpu({2, 3, 4, 5}, DType::UInt8, 1);
  EXPECT_EQ(contiguous(t).data(), t.data());
  const Tensor cl = to_channels_last(t);
  EXPECT_NE(cl.data(), t.data());
  EXPECT_EQ(to_channels_last(cl).data(), cl.data());
}

TEST(Layout, CopyIntoAStridedDestination) {
  const Tensor src = random_cpu({3, 6, 7}, DType::Int32, 2);
  const Tensor dst = with_layout(random_cpu({3, 6, 7}, DType::Int32, 3), Layout::Sliced, Device::cpu());
  copy_(dst, src);
  EXPECT_TRUE(bitwise_equal(src, dst));
  EXPECT_THROW(copy_(dst, random_cpu({3, 6, 8}, DType::Int32, 3)), Error);
  EXPECT_THROW(copy_(dst, random_cpu({3, 6, 7}, DType::Int16, 3)), Error);
  EXPECT_THROW(functional::convert_layout(random_cpu({6, 7}, DType::Int32, 3), MemoryFormat::ChannelsLast), Error);
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Layout, CudaConversionAndCopiesEqualCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 4000;
  for (const Dims& shape : test_shapes()) {
    for (DType dtype : {DType::UInt8, DType::Float16, DType::Float32, DType::Int64}) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        const Tensor cl = to_channels_last(gpu_in);
        EXPECT_TRUE(cl.is_channels_last() || cl.numel() == 0 || shape.size() < 3);
        EXPECT_TRUE(bitwise_equal(src, cl));
        EXPECT_TRUE(bitwise_equal(src, contiguous(cl)));
        // Host -> strided device destination, device -> strided host destination.
        const Tensor dst = with_layout(random_cpu(shape, dtype, seed++), Layout::Sliced, kGpu);
        copy_(dst, with_layout(src, layout, Device::cpu()));
        EXPECT_TRUE(bitwise_equal(src, dst));
        const Tensor host_dst = with_layout(random_cpu(shape, dtype, seed++), Layout::Strided, Device::cpu());
        copy_(host_dst, gpu_in);
        EXPECT_TRUE(bitwise_equal(src, host_dst));
      }
    }
  }
}

}  // namespace
}  // namespace svt
