// erase on the CPU: Python slice rules for the window, broadcasting and casting of v, in place or
// not, every layout; bad input writes nothing. On CUDA: equal to the CPU bit for bit, v on either
// device (skipped without a GPU).
#include "color_test_utils.hpp"

namespace svt {
namespace {

// image[..., rows, cols] = v (broadcast by the test: v indexed from the right, size-1 dims repeat).
template <class T>
Tensor ref_erase(const Tensor& img, std::int64_t top, std::int64_t bottom, std::int64_t left, std::int64_t right,
                 const std::function<T(const std::int64_t* idx)>& value) {
  Tensor out = contiguous_copy(img);
  const int r = img.dim();
  for_each_index(img.shape(), [&](const std::int64_t* idx) {
    if (idx[r - 2] >= top && idx[r - 2] < bottom && idx[r - 1] >= left && idx[r - 1] < right) store<T>(out, idx, value(idx));
  });
  return out;
}

TEST(Erase, WindowAndValues) {
  const Tensor img = random_cpu({3, 5, 6}, DType::UInt8, 1);
  const Tensor v = tensor_of({3, 1, 1}, DType::UInt8, {7, 8, 9});
  const Tensor out = functional::erase(img, 1, 2, 2, 3, v);
  EXPECT_TRUE(bitwise_equal(ref_erase<std::uint8_t>(img, 1, 3, 2, 5, [](const std::int64_t* i) { return std::uint8_t(7 + i[0]); }), out));
  // Negative starts count from the end; windows are clipped; slice(-1, 0) is empty.
  EXPECT_TRUE(bitwise_equal(ref_erase<std::uint8_t>(img, 3, 5, 0, 6, [](const std::int64_t* i) { return std::uint8_t(7 + i[0]); }),
                            functional::erase(img, -2, -7, 9, 20, v)));  // rows [-2:7], cols [-7:13]
  EXPECT_TRUE(bitwise_equal(img, functional::erase(img, -1, 0, 1, 3, v)));
  EXPECT_TRUE(bitwise_equal(img, functional::erase(img, 0, 0, 0, 3, v)));
  // v of the window's shape; float v into an integer image is cast (truncated) like torch.
  const Tensor patch = random_cpu({3, 2, 3}, DType::Float32, 2, 0.0, 200.0);
  const Tensor p = functional::erase(img, 1, 2, 2, 3, patch);
  EXPECT_TRUE(bitwise_equal(ref_erase<std::uint8_t>(img, 1, 3, 2, 5, [&](const std::int64_t* i) {
                              const std::int64_t pi[3] = {i[0], i[1] - 1, i[2] - 2};
                              return static_cast<std::uint8_t>(load<float>(patch, pi));
                            }),
                            p));
  // A scalar (one element, leading unit dims stripped) broadcasts everywhere.
  const Tensor scalar = tensor_of({1, 1, 1, 1, 1}, DType::UInt8, {42});
  EXPECT_TRUE(bitwise_equal(ref_erase<std::uint8_t>(img, 0, 5, 0, 6, [](const std::int64_t*) { return std::uint8_t(42); }),
                            functional::erase(img, 0, 0, 5, 6, scalar)));
}

TEST(Erase, LayoutsBatchesAndInPlace) {
  std::uint64_t seed = 30;
  for (const Dims& shape : {Dims{2, 3, 7, 9}, Dims{2, 2, 3, 5, 6}, Dims{1, 8, 5}}) {
    for (DType dtype : {DType::UInt8, DType::Float16, DType::Float32, DType::Int64, DType::Bool}) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      const std::int64_t c = shape[shape.size() - 3];
      const Tensor v = random_cpu({c, 2, 3}, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor in = with_layout(src, layout, Device::cpu());
        const Tensor vin = with_layout(v, layout, Device::cpu());
        const Tensor out = functional::erase(in, 1, 2, 2, 3, vin);
        EXPECT_TRUE(bitwise_equal(src, in)) << "not in place";
        // The window holds v, the rest the image.
        for_each_index(src.shape(), [&](const std::int64_t* idx) {
          const int r = src.dim();
          const bool inside = idx[r - 2] >= 1 && idx[r - 2] < 3 && idx[r - 1] >= 2 && idx[r - 1] < 5;
          std::uint64_t want = load_bits(src, idx);
          if (inside) {
            const std::int64_t vi[3] = {idx[r - 3], idx[r - 2] - 1, idx[r - 1] - 2};
            want = load_bits(v, vi);
          }
          ASSERT_EQ(want, load_bits(out, idx));
        });
        const Tensor same = functional::erase(in, 1, 2, 2, 3, vin, /*inplace=*/true);
        EXPECT_EQ(same.data(), in.data());
        EXPECT_TRUE(bitwise_equal(out, in));
      }
    }
  }
}

TEST(Erase, BadInputWritesNothing) {
  const Tensor img = random_cpu({3, 5, 6}, DType::Float32, 3);
  const Tensor keep = contiguous_copy(img);
  expect_error(ErrorKind::Runtime, "broadcast", [&] {
    functional::erase(img, 0, 0, 2, 2, random_cpu({3, 3, 2}, DType::Float32, 1), true);
  }, img, keep);
  expect_error(ErrorKind::Runtime, "broadcast", [&] {
    functional::erase(img, 0, 0, 2, 2, random_cpu({2, 1, 1}, DType::Float32, 1), true);
  }, img, keep);
  expect_error(ErrorKind::Runtime, "broadcast", [&] {
    functional::erase(img, 0, 0, 2, 2, random_cpu({2, 3, 2, 2}, DType::Float32, 1), true);
  }, img, keep);
  expect_error(ErrorKind::Type, "v", [&] { functional::erase(img, 0, 0, 2, 2, Tensor(), true); }, img, keep);
  expect_error(ErrorKind::Value, "at least 2 dims", [&] {
    functional::erase(random_cpu({5}, DType::Float32, 1), 0, 0, 1, 1, random_cpu({1}, DType::Float32, 1));
  });
}

// A strided `v` of another dtype is converted first; the window must read the converted copy
// with its own strides (found on the GPU, where v's layout differed from the converted one).
TEST(Erase, StridedValueOfAnotherDtype) {
  const Tensor src = random_cpu({2, 3, 17, 40}, DType::UInt8, 50);
  const Tensor v = random_cpu({3, 5, 7}, DType::Float32, 51, 0.0, 100.0);
  const Tensor expected = functional::erase(src, 3, -9, 5, 7, v);
  for (Layout layout : kAllLayouts) {
    SCOPED_TRACE(layout_name(layout));
    EXPECT_TRUE(bitwise_equal(expected, functional::erase(src, 3, -9, 5, 7, with_layout(v, layout, Device::cpu()))));
  }
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Erase, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  for (DType dtype : {DType::UInt8, DType::Float32, DType::Int64}) {
    const Tensor src = random_cpu({2, 3, 17, 40}, dtype, 50);
    const Tensor v = random_cpu({3, 5, 7}, DType::Float32, 51, 0.0, 100.0);  // cast to the image dtype
    for (Layout layout : kAllLayouts) {
      SCOPED_TRACE(describe(Dims(src.shape()), dtype, layout));
      const Tensor expected = functional::erase(with_layout(src, layout, Device::cpu()), 3, -9, 5, 7, v);
      const Tensor gpu_in = with_layout(src, layout, kGpu);
      EXPECT_TRUE(bitwise_equal(expected, functional::erase(gpu_in, 3, -9, 5, 7, with_layout(v, layout, kGpu))));
      EXPECT_TRUE(bitwise_equal(expected, functional::erase(gpu_in, 3, -9, 5, 7, v))) << "v on the CPU";
      EXPECT_TRUE(bitwise_equal(src, gpu_in));
      functional::erase(gpu_in, 3, -9, 5, 7, v, /*inplace=*/true);
      EXPECT_TRUE(bitwise_equal(expected, gpu_in));
    }
  }
}

// Values constant along the window's rows ([C, 1, 1], [C, h, 1], [1]): the engine fills each row
// with its one value. Windows from 1 to 300 bytes wide, every layout, batches.
TEST(Erase, BroadcastValuesFillWholeRows) {
  std::uint64_t seed = 80;
  for (DType dtype : {DType::UInt8, DType::Float16, DType::Float32, DType::Int64}) {
    const Tensor src = random_cpu({2, 3, 9, 80}, dtype, seed++);
    for (std::int64_t w : {1, 7, 33, 75}) {
      for (const Dims& vshape : {Dims{3, 1, 1}, Dims{3, 4, 1}, Dims{1}}) {
        const Tensor v = random_cpu(vshape, dtype, seed++);
        for (Layout layout : kAllLayouts) {
          SCOPED_TRACE(describe(Dims(src.shape()), dtype, layout) + " width " + std::to_string(w) + " v " + vshape.str());
          const Tensor in = with_layout(src, layout, Device::cpu());
          const Tensor out = functional::erase(in, 3, 2, 4, w, v);
          for_each_index(src.shape(), [&](const std::int64_t* idx) {
            const bool inside = idx[2] >= 3 && idx[2] < 7 && idx[3] >= 2 && idx[3] < 2 + w;
            std::uint64_t want = load_bits(src, idx);
            if (inside) {
              const std::int64_t vi[3] = {vshape.size() == 1 ? 0 : idx[1], vshape.size() == 1 || vshape[1] == 1 ? 0 : idx[2] - 3,
                                          0};
              want = load_bits(v, vi);
            }
            ASSERT_EQ(want, load_bits(out, idx));
          });
          EXPECT_TRUE(bitwise_equal(src, in)) << "not in place";
        }
      }
    }
  }
}

// Windows at every offset of a 16-byte row (the engine stores their rows in 16-, 8-, 4-, 2- or
// 1-byte pieces, whichever the row's alignment allows) and wide enough for whole chunks, filled
// with a broadcast value (one load per row chunk) and with a full window of values.
TEST(Erase, CudaWindowsAtEveryAlignmentEqualCpu) {
  SV_REQUIRE_GPU();
  for (DType dtype : {DType::UInt8, DType::Float16, DType::Float32, DType::Float64}) {
    const Tensor src = random_cpu({2, 3, 9, 112}, dtype, 60);
    const Tensor gpu_in = to_device(src, kGpu);
    const Tensor broadcast = random_cpu({3, 1, 1}, dtype, 61);
    const Tensor full = random_cpu({3, 4, 70}, dtype, 62);
    for (std::int64_t left = 0; left < 18; ++left) {
      for (const Tensor& v : {broadcast, full}) {
        SCOPED_TRACE(std::string(dtype_name(dtype)) + " left " + std::to_string(left) + " v " + Dims(v.shape()).str());
        const Tensor expected = functional::erase(src, 2, left, 4, 70, v);
        EXPECT_TRUE(bitwise_equal(expected, functional::erase(gpu_in, 2, left, 4, 70, to_device(v, kGpu))));
      }
    }
    EXPECT_TRUE(bitwise_equal(src, gpu_in));
  }
}

}  // namespace
}  // namespace svt
