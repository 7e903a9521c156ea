// crop / center_crop / five_crop / ten_crop on the CPU: hand-computed windows, a reference loop
// over dtypes, shapes, layouts and windows (inside, overlapping, outside), windows inside the image
// are views of it, and bad input. On CUDA: equal to the CPU bit for bit, views launch nothing
// (skipped without a GPU).
#include "geometry_test_utils.hpp"

namespace svt {
namespace {

// out[..., y, x] = in[..., top + y, left + x] inside the image, else 0.
Tensor reference_crop(const Tensor& in, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width) {
  const int rank = in.dim();
  Dims shape(in.shape());
  shape[rank - 2] = height;
  shape[rank - 1] = width;
  Tensor out = empty(shape, in.dtype(), Device::cpu());
  for_each_index(out.shape(), [&](const std::int64_t* idx) {
    const std::int64_t y = top + idx[rank - 2], x = left + idx[rank - 1];
    if (y < 0 || y >= in.size(-2) || x < 0 || x >= in.size(-1)) {
      store_bits(out, idx, 0);
      return;
    }
    std::int64_t src[kMaxRank];
    std::copy(idx, idx + rank, src);
    src[rank - 2] = y;
    src[rank - 1] = x;
    store_bits(out, idx, load_bits(in, src));
  });
  return out;
}

Tensor iota_image(std::int64_t c, std::int64_t h, std::int64_t w) {
  Tensor t = empty({c, h, w}, DType::Int32, Device::cpu());
  auto* p = t.data_as<std::int32_t>();
  for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<std::int32_t>(i + 1);
  return t;
}

std::vector<int> values(const Tensor& t) {
  const Tensor c = contiguous_copy(t);
  const auto* p = c.data_as<std::int32_t>();
  return std::vector<int>(p, p + c.numel());
}

TEST(Crop, KnownValues) {
  const Tensor img = iota_image(1, 3, 4);  // rows 1..4, 5..8, 9..12
  EXPECT_EQ(values(functional::crop(img, 1, 1, 2, 2)), (std::vector<int>{6, 7, 10, 11}));
  EXPECT_EQ(values(functional::crop(img, -1, 2, 3, 3)), (std::vector<int>{0, 0, 0, 3, 4, 0, 7, 8, 0}));
  EXPECT_EQ(values(functional::crop(img, 5, 5, 1, 2)), (std::vector<int>{0, 0}));
  EXPECT_EQ(functional::crop(img, 0, 0, 0, 3).numel(), 0);
}

TEST(Crop, CenterCropAnchorsAndPadding) {
  const Tensor img = iota_image(1, 5, 7);
  auto at = [&](std::int64_t y, std::int64_t x) { return y < 0 || y >= 5 || x < 0 || x >= 7 ? 0 : static_cast<int>(y * 7 + x + 1); };
  auto window = [&](std::int64_t top, std::int64_t left, std::int64_t h, std::int64_t w) {
    std::vector<int> v;
    for (std::int64_t y = 0; y < h; ++y)
      for (std::int64_t x = 0; x < w; ++x) v.push_back(at(top + y, left + x));
    return v;
  };
  // round((5 - 2) / 2) = round(1.5) = 2 (half to even), round((7 - 3) / 2) = 2.
  EXPECT_EQ(values(functional::center_crop(img, {2, 3})), window(2, 2, 2, 3));
  // round((5 - 4) / 2) = round(0.5) = 0, round((7 - 4) / 2) = round(1.5) = 2.
  EXPECT_EQ(values(functional::center_crop(img, {4})), window(0, 2, 4, 4));
  // Larger than the image: padded by [1, 1, 1, 2] (ltrb) and returned whole.
  EXPECT_EQ(values(functional::center_crop(img, {8, 9})), window(-1, -1, 8, 9));
  // Taller only: bottom padding 1, nothing on top.
  EXPECT_EQ(values(functional::center_crop(img, {6, 7})), window(0, 0, 6, 7));
  // Wider but shorter: pad columns 1 + 1, then crop rows at round((5 - 3) / 2) = 1.
  EXPECT_EQ(values(functional::center_crop(img, {3, 9})), window(1, -1, 3, 9));
}

TEST(Crop, MatchesReferenceForEveryDtypeShapeAndLayout) {
  std::uint64_t seed = 11;
  std::vector<Dims> shapes = test_shapes();
  shapes.push_back({2, 4, 6, 9});  // 4 channels
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1];
    const std::vector<std::array<std::int64_t, 4>> windows{
        {0, 0, h, w}, {1, 2, h / 2, w / 2 + 1}, {-2, -3, h + 3, w + 5}, {h - 1, w - 1, 3, 2}, {h + 2, 1, 2, 2}, {0, 0, 0, 1}};
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor in = with_layout(src, layout, Device::cpu());
        for (const auto& win : windows) {
          SCOPED_TRACE(describe(shape, dtype, layout) + " window " + std::to_string(win[0]) + "," + std::to_string(win[1]) +
                       "," + std::to_string(win[2]) + "," + std::to_string(win[3]));
          ASSERT_TRUE(bitwise_equal(reference_crop(src, win[0], win[1], win[2], win[3]),
                                    functional::crop(in, win[0], win[1], win[2], win[3])));
        }
        if (shape.size() >= 3) {
          for (const std::vector<std::int64_t>& size : {std::vector<std::int64_t>{h / 2 + 1, w / 2}, std::vector<std::int64_t>{h + 3}}) {
            const Tensor cc = functional::center_crop(in, size);
            EXPECT_EQ(cc.size(-2), size[0]);
            EXPECT_EQ(cc.size(-1), size.size() == 1 ? size[0] : size[1]);
          }
        }
      }
    }
  }
}

TEST(Crop, FiveAndTenCrop) {
  for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast, Layout::Sliced}) {
    const Tensor src = random_cpu({2, 3, 9, 11}, DType::Float32, 21);
    const Tensor in = with_layout(src, layout, Device::cpu());
    const auto five = functional::five_crop(in, {4, 5});
    // tl, tr, bl, br, center (round((9-4)/2) = round(2.5) = 2, round((11-5)/2) = 3).
    const std::array<std::array<std::int64_t, 2>, 5> anchors{{{0, 0}, {0, 6}, {5, 0}, {5, 6}, {2, 3}}};
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(bitwise_equal(reference_crop(src, anchors[i][0], anchors[i][1], 4, 5), five[i])) << i;
    for (bool vflip : {false, true}) {
      const auto ten = functional::ten_crop(in, {4, 5}, vflip);
      const Tensor flipped = vflip ? functional::vertical_flip(src) : functional::horizontal_flip(src);
      const auto flipped_five = functional::five_crop(flipped, {4, 5});
      for (int i = 0; i < 5; ++i) {
        EXPECT_TRUE(bitwise_equal(five[i], ten[i])) << i;
        EXPECT_TRUE(bitwise_equal(flipped_five[i], ten[5 + i])) << i << (vflip ? " vertical" : " horizontal");
      }
    }
  }
  // A square crop from one size value; the full image is allowed.
  const Tensor img = random_cpu({3, 6, 6}, DType::UInt8, 5);
  const auto whole = functional::five_crop(img, {6});
  for (const Tensor& t : whole) EXPECT_TRUE(bitwise_equal(img, t));
}

// The element offset of a view's first element in its base tensor.
std::int64_t offset_in(const Tensor& view, const Tensor& base) {
  return (static_cast<const char*>(view.data()) - static_cast<const char*>(base.data())) / static_cast<std::int64_t>(base.itemsize());
}

void expect_view(const Tensor& view, const Tensor& base, std::int64_t top, std::int64_t left) {
  EXPECT_EQ(view.owner(), base.owner()) << "a crop inside the image shares the input's memory";
  EXPECT_EQ(offset_in(view, base), top * base.stride(-2) + left * base.stride(-1));
  for (int d = 0; d < base.dim(); ++d) EXPECT_EQ(view.stride(d), base.stride(d)) << d;
}

TEST(Crop, InsideTheImageIsAView) {
  for (Layout layout : kAllLayouts) {
    const Tensor src = random_cpu({2, 3, 10, 12}, DType::Float32, 31);
    const Tensor in = with_layout(src, layout, Device::cpu());
    SCOPED_TRACE(describe(Dims(src.shape()), DType::Float32, layout));
    const Tensor c = functional::crop(in, 2, 3, 5, 7);
    expect_view(c, in, 2, 3);
    EXPECT_TRUE(bitwise_equal(reference_crop(src, 2, 3, 5, 7), c));
    expect_view(functional::crop(in, 0, 0, 10, 12), in, 0, 0);
    expect_view(functional::center_crop(in, {4, 6}), in, 3, 3);
    const auto five = functional::five_crop(in, {4, 5});
    expect_view(five[1], in, 0, 7);
    expect_view(five[3], in, 6, 7);
    const auto ten = functional::ten_crop(in, {4, 5});
    expect_view(ten[0], in, 0, 0);
    EXPECT_NE(ten[5].owner(), in.owner()) << "flipped crops are new tensors";
    // Ops on the view read the window (strided, offset input) ...
    EXPECT_TRUE(bitwise_equal(functional::horizontal_flip(reference_crop(src, 2, 3, 5, 7)), functional::horizontal_flip(c)));
    EXPECT_TRUE(bitwise_equal(functional::to_dtype(reference_crop(src, 2, 3, 5, 7), DType::Float64),
                              functional::to_dtype(c, DType::Float64)));
    // ... and in-place ops on it write the input's window and nothing else.
    const Tensor before = contiguous_copy(in);
    functional::normalize(c, {1.0, 2.0, 3.0}, {2.0, 2.0, 2.0}, /*inplace=*/true);
    EXPECT_TRUE(bitwise_equal(functional::normalize(reference_crop(before, 2, 3, 5, 7), {1.0, 2.0, 3.0}, {2.0, 2.0, 2.0}),
                              functional::crop(in, 2, 3, 5, 7)));
    EXPECT_TRUE(bitwise_equal(reference_crop(before, 0, 0, 2, 12), functional::crop(in, 0, 0, 2, 12)));
    EXPECT_TRUE(bitwise_equal(reference_crop(before, 7, 0, 3, 12), functional::crop(in, 7, 0, 3, 12)));
    EXPECT_TRUE(bitwise_equal(reference_crop(before, 0, 0, 10, 3), functional::crop(in, 0, 0, 10, 3)));
    EXPECT_TRUE(bitwise_equal(reference_crop(before, 0, 10, 10, 2), functional::crop(in, 0, 10, 10, 2)));
  }
}

TEST(Crop, OutsideTheImageIsANewTensor) {
  const Tensor in = random_cpu({3, 6, 8}, DType::UInt8, 41);
  for (const auto& win : std::vector<std::array<std::int64_t, 4>>{{-1, 0, 3, 3}, {0, -1, 3, 3}, {4, 0, 3, 3}, {0, 6, 3, 3}}) {
    const Tensor c = functional::crop(in, win[0], win[1], win[2], win[3]);
    EXPECT_NE(c.owner(), in.owner());
    EXPECT_TRUE(c.is_contiguous());
    EXPECT_TRUE(bitwise_equal(reference_crop(in, win[0], win[1], win[2], win[3]), c));
  }
  EXPECT_NE(functional::center_crop(in, {7, 4}).owner(), in.owner());
}

TEST(Crop, BadInput) {
  const Tensor img = random_cpu({3, 6, 8}, DType::UInt8, 9);
  expect_error(ErrorKind::Value, "bigger than input size", [&] { functional::five_crop(img, {7, 4}); });
  expect_error(ErrorKind::Value, "bigger than input size", [&] { functional::ten_crop(img, {4, 9}); });
  expect_error(ErrorKind::Value, "only two dimensions", [&] { functional::five_crop(img, {1, 2, 3}); });
  expect_error(ErrorKind::Value, "output_size", [&] { functional::center_crop(img, {}); });
  expect_error(ErrorKind::Value, "non-negative", [&] { functional::crop(img, 0, 0, -1, 2); });
  expect_error(ErrorKind::Value, "non-negative", [&] { functional::center_crop(img, {-2, 3}); });
  expect_error(ErrorKind::Value, "at least 2 dims", [&] { functional::crop(random_cpu({4}, DType::UInt8, 1), 0, 0, 1, 1); });
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Crop, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 5000;
  for (const Dims& shape : gpu_shapes()) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1];
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        // Crops at odd offsets (misaligned sources) and partly outside.
        for (const auto& win : std::vector<std::array<std::int64_t, 4>>{{1, 3, h / 2 + 1, w / 2 + 5}, {-2, -7, h + 3, w + 9}, {0, 0, h, w}}) {
          SCOPED_TRACE(describe(shape, dtype, layout) + " crop");
          ASSERT_TRUE(bitwise_equal(functional::crop(cpu_in, win[0], win[1], win[2], win[3]),
                                    functional::crop(gpu_in, win[0], win[1], win[2], win[3])));
        }
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
  // center / five / ten crops.
  const Tensor src = random_cpu({2, 3, 37, 53}, DType::UInt8, 77);
  const Tensor gpu = with_layout(src, Layout::ChannelsLast, kGpu);
  EXPECT_TRUE(bitwise_equal(functional::center_crop(src, {20, 31}), functional::center_crop(gpu, {20, 31})));
  EXPECT_TRUE(bitwise_equal(functional::center_crop(src, {40, 61}), functional::center_crop(gpu, {40, 61})));
  const auto cpu_ten = functional::ten_crop(src, {11, 17}), gpu_ten = functional::ten_crop(gpu, {11, 17});
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(bitwise_equal(cpu_ten[i], gpu_ten[i])) << i;
}

TEST(Crop, CudaViewLaunchesNothing) {
  SV_REQUIRE_GPU();
  const Tensor gpu_in = with_layout(random_cpu({2, 3, 16, 20}, DType::UInt8, 77), Layout::Contiguous, kGpu);
  const Stream s = Stream::create(0);
  functional::horizontal_flip(gpu_in, s);  // a launch on s
  ASSERT_EQ(last_launch_stream(), s);
  const Tensor c = functional::crop(gpu_in, 3, 4, 8, 9);  // would run on the default stream: nothing may launch
  expect_view(c, gpu_in, 3, 4);
  expect_view(functional::center_crop(gpu_in, {8, 8}), gpu_in, 4, 6);
  EXPECT_EQ(last_launch_stream(), s);
  s.synchronize();
}

}  // namespace
}  // namespace svt
