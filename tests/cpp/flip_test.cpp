// horizontal_flip / vertical_flip on the CPU against a reference loop; on CUDA, equal to the CPU
// bit for bit for every dtype, shape and layout (skipped without a GPU).
#include "test_utils.hpp"

namespace svt {
namespace {

// out[..., i, j] == in[..., i, W-1-j] (horizontal) or in[..., H-1-i, j] (vertical).
Tensor reference_flip(const Tensor& in, int dim_from_end) {
  Tensor out = empty(Dims(in.shape()), in.dtype(), Device::cpu());
  const int d = in.dim() - dim_from_end;
  for_each_index(in.shape(), [&](const std::int64_t* idx) {
    std::int64_t src[kMaxRank];
    std::copy(idx, idx + in.dim(), src);
    src[d] = in.shape()[d] - 1 - idx[d];
    store_bits(out, idx, load_bits(in, src));
  });
  return out;
}

TEST(Flip, MatchesReferenceForEveryDtypeShapeAndLayout) {
  std::uint64_t seed = 1;
  for (const Dims& shape : test_shapes()) {
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      const Tensor h_ref = reference_flip(src, 1), v_ref = reference_flip(src, 2);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor in = with_layout(src, layout, Device::cpu());
        const Tensor h = functional::horizontal_flip(in);
        const Tensor v = functional::vertical_flip(in);
        EXPECT_TRUE(bitwise_equal(h_ref, h));
        EXPECT_TRUE(bitwise_equal(v_ref, v));
        EXPECT_TRUE(bitwise_equal(src, in)) << "the input must not change";
        if (layout == Layout::ChannelsLast && shape.size() >= 3) EXPECT_TRUE(h.is_channels_last() || h.numel() == 0);
      }
    }
  }
}

TEST(Flip, KnownValues) {
  std::uint8_t data[] = {1, 2, 3, 4, 5, 6};
  const Tensor img = from_blob(data, {1, 2, 3}, {6, 3, 1}, DType::UInt8, Device::cpu(), nullptr);
  const Tensor h = functional::horizontal_flip(img);
  const Tensor v = functional::vertical_flip(img);
  const std::uint8_t* hp = h.data_as<std::uint8_t>();
  const std::uint8_t* vp = v.data_as<std::uint8_t>();
  EXPECT_EQ(std::vector<int>(hp, hp + 6), (std::vector<int>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(std::vector<int>(vp, vp + 6), (std::vector<int>{4, 5, 6, 1, 2, 3}));
  // Flipping twice is the identity, and 1-D tensors can be flipped horizontally.
  EXPECT_TRUE(bitwise_equal(img, functional::horizontal_flip(h)));
  const Tensor line = random_cpu({9}, DType::Int64, 5);
  EXPECT_TRUE(bitwise_equal(line, functional::horizontal_flip(functional::horizontal_flip(line))));
}

TEST(Flip, BadInput) {
  EXPECT_THROW(functional::horizontal_flip(Tensor()), Error);
  const Tensor line = random_cpu({9}, DType::UInt8, 5);
  try {
    functional::vertical_flip(line);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(std::string(e.what()).find("at least 2 dims"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[9]"), std::string::npos) << e.what();
  }
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Flip, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 1000;
  for (const Dims& shape : test_shapes()) {
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        EXPECT_TRUE(bitwise_equal(functional::horizontal_flip(cpu_in), functional::horizontal_flip(gpu_in)));
        EXPECT_TRUE(bitwise_equal(functional::vertical_flip(cpu_in), functional::vertical_flip(gpu_in)));
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
}

// Channels-last rows of whole pixels, which CUDA flips through shared memory for 1- and 2-byte
// values: rows a multiple of 16 bytes (16-byte loads and stores), rows that are not, 2 to 4
// channels, a row too long for the shared buffer (the generic path), more rows than a wave of
// blocks (each block walks several, loading the next while writing one), and rows of more
// 16-byte vectors than a block's threads hold (uint8 2752 x 3: 516).
TEST(Flip, CudaPixelRowsEqualCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 2000;
  for (const Dims& shape : {Dims{2, 3, 8, 16}, Dims{1, 4, 5, 8}, Dims{3, 2, 7, 11}, Dims{2, 3, 6, 40}, Dims{1, 3, 2, 12000},
                            Dims{3, 3, 1500, 64}, Dims{2, 4, 1100, 24}, Dims{1, 3, 5, 2752}}) {
    for (DType dtype : {DType::UInt8, DType::Int16, DType::Float16, DType::Bool, DType::Float32}) {
      SCOPED_TRACE(describe(shape, dtype, Layout::ChannelsLast));
      const Tensor src = random_cpu(shape, dtype, seed++);
      const Tensor cpu_in = with_layout(src, Layout::ChannelsLast, Device::cpu());
      const Tensor gpu_in = with_layout(src, Layout::ChannelsLast, kGpu);
      const Tensor h = functional::horizontal_flip(gpu_in);
      EXPECT_TRUE(h.is_channels_last());
      EXPECT_TRUE(bitwise_equal(reference_flip(src, 1), h));
      EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
    }
  }
}

}  // namespace
}  // namespace svt
