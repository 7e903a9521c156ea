// affine and rotate on the CPU: hand-computed cases (right-angle rotations, integer shifts, the
// identity, the fill blend, rotate's expand size), a double-precision reference of torchvision's
// grid_sample pipeline over dtypes, shapes, layouts, modes and fills, and bad input; on CUDA,
// equal to the CPU bit for bit.
#include <cmath>
#include <limits>

#include "geometry_test_utils.hpp"

namespace svt {
namespace {

// ---- hand-computed ------------------------------------------------------------------------

// torch.rot90's layout: 90 and 270 flip into a buffer of the input's shape and return its
// transposed view; 180 is a dense flip.
TEST(Affine, RightAnglesAreTransposedViews) {
  const Tensor img = random_cpu({2, 3, 5, 7}, DType::UInt8, 4);
  for (double angle : {90.0, 270.0}) {
    const Tensor out = functional::rotate(img, angle, InterpolationMode::Nearest, true);
    EXPECT_EQ(Dims(out.shape()), (Dims{2, 3, 7, 5}));
    EXPECT_EQ(Dims(out.strides()), (Dims{105, 35, 1, 7}));
    const Tensor cl = functional::rotate(to_channels_last(img), angle, InterpolationMode::Nearest, true);
    EXPECT_EQ(Dims(cl.strides()), (Dims{105, 1, 3, 21}));
    EXPECT_TRUE(bitwise_equal(cl, out));
  }
  EXPECT_EQ(Dims(functional::rotate(img, 180).strides()), (Dims{105, 35, 7, 1}));
}

TEST(Affine, RightAngleRotations) {
  const Tensor img = u8_image(2, 3);  // [[1,2,3],[4,5,6]]
  EXPECT_EQ(u8_values(functional::rotate(img, 90, InterpolationMode::Nearest, true)), (std::vector<int>{3, 6, 2, 5, 1, 4}));
  EXPECT_EQ(u8_values(functional::rotate(img, 180)), (std::vector<int>{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(u8_values(functional::rotate(img, -90, InterpolationMode::Nearest, true)), (std::vector<int>{4, 1, 5, 2, 6, 3}));
  EXPECT_EQ(u8_values(functional::rotate(img, 720)), (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(functional::rotate(img, 90, InterpolationMode::Nearest, true).size(-1), 2);
  // The general warp gives the same right-angle rotation (nearest and bilinear) on a square image.
  const Tensor sq = random_cpu({2, 3, 5, 5}, DType::UInt8, 3);
  for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast}) {
    const Tensor in = with_layout(sq, layout, Device::cpu());
    const Tensor fast = functional::rotate(in, 90);
    EXPECT_TRUE(bitwise_equal(fast, functional::rotate(in, 90, InterpolationMode::Nearest, false, std::vector<double>{2.5, 2.5})));
    EXPECT_TRUE(bitwise_equal(fast, functional::rotate(in, 90, InterpolationMode::Bilinear, false, std::vector<double>{2.5, 2.5})));
    // Fast paths work for any dtype.
    const Tensor i64 = random_cpu({3, 4, 4}, DType::Int64, 4);
    EXPECT_TRUE(bitwise_equal(functional::rotate(functional::rotate(i64, 90), 270), i64));
  }
}

TEST(Affine, IntegerShiftsAndIdentity) {
  const Tensor img = u8_image(3, 4);  // 1..12
  // translate (2, 1): out[y][x] = in[y - 1][x - 2].
  EXPECT_EQ(u8_values(functional::affine(img, 0, {2, 1}, 1, {0})), (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6}));
  EXPECT_EQ(u8_values(functional::affine(img, 0, {2, 1}, 1, {0}, InterpolationMode::Nearest, std::vector<double>{7})),
            (std::vector<int>{7, 7, 7, 7, 7, 7, 1, 2, 7, 7, 5, 6}));
  EXPECT_EQ(u8_values(functional::affine(img, 0, {2, 1}, 1, {0}, InterpolationMode::Bilinear)),
            (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6}));
  // The identity.
  const Tensor f = random_cpu({2, 3, 7, 9}, DType::Float32, 8);
  const Tensor same = functional::affine(f, 0, {0, 0}, 1, {0, 0}, InterpolationMode::Bilinear);
  const Tensor fc = contiguous_copy(f), sc = contiguous_copy(same);
  for (std::int64_t i = 0; i < f.numel(); ++i) EXPECT_NEAR(sc.data_as<float>()[i], fc.data_as<float>()[i], 1e-6);
  EXPECT_TRUE(bitwise_equal(img, functional::affine(img, 0, {0, 0}, 1, {0}, InterpolationMode::Bilinear)));
}

TEST(Affine, FillBlendsByTheCoverageMask) {
  Tensor ones = empty({1, 9, 12}, DType::Float32, Device::cpu());
  std::fill(ones.data_as<float>(), ones.data_as<float>() + ones.numel(), 1.0f);
  const Tensor plain = contiguous_copy(functional::rotate(ones, 30, InterpolationMode::Bilinear));
  const Tensor filled = contiguous_copy(functional::rotate(ones, 30, InterpolationMode::Bilinear, false, std::nullopt, std::vector<double>{0.25}));
  int partial = 0;
  for (std::int64_t i = 0; i < plain.numel(); ++i) {
    // grid_sample of ones with zero padding is the mask itself; torchvision then blends that
    // (already zero-padded) sample: (sampled - fill) * mask + fill.
    const float mask = plain.data_as<float>()[i];
    EXPECT_NEAR(filled.data_as<float>()[i], (mask - 0.25f) * mask + 0.25f, 1e-6);
    partial += mask > 0.01f && mask < 0.99f;
  }
  EXPECT_GT(partial, 0);
}

TEST(Affine, RotateExpandSize) {
  const Tensor img = random_cpu({3, 20, 40}, DType::UInt8, 2);
  const Tensor out = functional::rotate(img, 30, InterpolationMode::Nearest, true);
  EXPECT_EQ(out.size(-2), 38);
  EXPECT_EQ(out.size(-1), 46);
  EXPECT_EQ(functional::rotate(img, 90, InterpolationMode::Nearest, true).size(-1), 20);
  // 90 degrees without expand on a non-square image is a general warp of the same size.
  EXPECT_EQ(functional::rotate(img, 90).size(-1), 40);
}

// ---- reference over dtypes, shapes, layouts ---------------------------------------------------

TEST(Affine, MatchesReferenceForEveryDtypeShapeLayoutAndMode) {
  for_each_warp_reference_case([](const WarpReferenceCase& c) {
    {
      SCOPED_TRACE(c.what + " affine");
      const auto m = functional::inverse_affine_matrix({0.7, -1.2}, 33.0, {1.5, -0.5}, 1.2, {5.0, -8.0});
      const Tensor out = functional::affine(c.in, 33.0, {1.5, -0.5}, 1.2, {5.0, -8.0}, c.mode, c.fill,
                                            std::vector<double>{0.7 + c.w * 0.5, -1.2 + c.h * 0.5});
      expect_warp_close(out, reference_warp(c.src, c.h, c.w, affine_source(m, c.w, c.h, c.w, c.h), c.nearest(), c.fill), c.nearest());
    }
    {
      SCOPED_TRACE(c.what + " rotate expand");
      const auto m = functional::inverse_affine_matrix({0, 0}, -47.0, {0, 0}, 1.0, {0, 0});
      const Tensor out = functional::rotate(c.in, 47.0, c.mode, true, std::nullopt, c.fill);
      expect_warp_close(out, reference_warp(c.src, out.size(-2), out.size(-1),
                                            affine_source(m, c.w, c.h, out.size(-1), out.size(-2)), c.nearest(), c.fill),
                        c.nearest());
    }
  });
}

TEST(Affine, BadInput) {
  const Tensor img = random_cpu({3, 8, 6}, DType::UInt8, 2);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  expect_error(ErrorKind::Value, "bicubic", [&] { functional::affine(img, 10, {0, 0}, 1, {0}, InterpolationMode::Bicubic); });
  expect_error(ErrorKind::Value, "nearest-exact", [&] { functional::rotate(img, 10, InterpolationMode::NearestExact); });
  expect_error(ErrorKind::Value, "fill", [&] { functional::affine(img, 10, {0, 0}, 1, {0}, InterpolationMode::Nearest, std::vector<double>{1, 2}); });
  expect_error(ErrorKind::Value, "fill", [&] { functional::rotate(img, 10, InterpolationMode::Nearest, false, std::nullopt, std::vector<double>{}); });
  expect_error(ErrorKind::Value, "angle", [&] { functional::affine(img, inf, {0, 0}, 1, {0}); });
  expect_error(ErrorKind::Value, "angle", [&] { functional::rotate(img, nan); });
  expect_error(ErrorKind::Value, "translate", [&] { functional::affine(img, 1, {0, inf}, 1, {0}); });
  expect_error(ErrorKind::Value, "translate", [&] { functional::affine(img, 1, {0}, 1, {0}); });
  expect_error(ErrorKind::Value, "scale", [&] { functional::affine(img, 1, {0, 0}, 0, {0}); });
  expect_error(ErrorKind::Value, "shear", [&] { functional::affine(img, 1, {0, 0}, 1, {0, 1, 2}); });
  expect_error(ErrorKind::Value, "center", [&] { functional::rotate(img, 10, InterpolationMode::Nearest, false, std::vector<double>{1}); });
  expect_error(ErrorKind::UnsupportedDType, "int32", [&] { functional::affine(random_cpu({3, 8, 6}, DType::Int32, 1), 1, {0, 0}, 1, {0}); });
  expect_error(ErrorKind::Value, "at least 3 dims", [&] { functional::rotate(random_cpu({8, 6}, DType::UInt8, 1), 10); });
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Affine, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  for_each_warp_cuda_case([](const WarpCudaCase& c) {
    ASSERT_TRUE(bitwise_equal(functional::affine(c.cpu_in, 27.0, {1.5, -2.0}, 0.9, {10.0, -4.0}, c.mode, c.fill),
                              functional::affine(c.gpu_in, 27.0, {1.5, -2.0}, 0.9, {10.0, -4.0}, c.mode, c.fill)));
    for (double angle : {-33.0, 90.0, 180.0}) {
      for (bool expand : {false, true}) {
        ASSERT_TRUE(bitwise_equal(functional::rotate(c.cpu_in, angle, c.mode, expand, std::nullopt, c.fill),
                                  functional::rotate(c.gpu_in, angle, c.mode, expand, std::nullopt, c.fill)));
      }
    }
    ASSERT_TRUE(bitwise_equal(functional::rotate(c.cpu_in, 61.0, c.mode, false, std::vector<double>{1.0, 2.5}, c.fill),
                              functional::rotate(c.gpu_in, 61.0, c.mode, false, std::vector<double>{1.0, 2.5}, c.fill)));
    // A strong zoom out (each 32 x 32 tile reads a source box too large for the staged kernel's
    // buffer: those blocks gather from global memory) and a zoom in (small boxes).
    for (double scale : {0.12, 3.5}) {
      ASSERT_TRUE(bitwise_equal(functional::affine(c.cpu_in, 12.0, {-3.0, 2.0}, scale, {4.0, 0.0}, c.mode, c.fill),
                                functional::affine(c.gpu_in, 12.0, {-3.0, 2.0}, scale, {4.0, 0.0}, c.mode, c.fill)));
    }
  });
}

// The staged uint8 kernel walks planes by steps: one step where the planes are a dense [N, C]
// (the contiguous cases above), the next-channel and next-image steps where they are not. Views
// with word-aligned rows whose planes are not one step apart: channels sliced out of a wider
// batch, every other image, one channel of two.
TEST(Affine, CudaStagedPlaneStepsEqualCpu) {
  SV_REQUIRE_GPU();
  const Tensor wide = random_cpu({3, 5, 24, 40}, DType::UInt8, 3100);
  const Tensor gpu_wide = with_layout(wide, Layout::Contiguous, kGpu);
  auto views = [](const Tensor& t) {
    return std::vector<Tensor>{t.slice(1, 1, 4), t.slice(0, 0, 3, 2).slice(1, 0, 3), t.slice(1, 2, 3)};
  };
  const std::vector<Tensor> cpu_views = views(wide), gpu_views = views(gpu_wide);
  for (std::size_t v = 0; v < cpu_views.size(); ++v) {
    const std::int64_t c = cpu_views[v].size(1);
    std::vector<double> per_channel;
    for (std::int64_t k = 0; k < c; ++k) per_channel.push_back(10.0 + 60.0 * static_cast<double>(k));
    const std::vector<Fill> fills{std::nullopt, std::vector<double>{7.0}, per_channel};
    for (const Fill& fill : fills) {
      for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::Bilinear}) {
        SCOPED_TRACE("view " + std::to_string(v) + " " + interpolation_mode_name(mode) + (fill ? " fill" : ""));
        ASSERT_TRUE(bitwise_equal(functional::rotate(cpu_views[v], -33.0, mode, false, std::nullopt, fill),
                                  functional::rotate(gpu_views[v], -33.0, mode, false, std::nullopt, fill)));
        ASSERT_TRUE(bitwise_equal(functional::affine(cpu_views[v], 21.0, {2.0, -1.5}, 1.1, {8.0, 3.0}, mode, fill),
                                  functional::affine(gpu_views[v], 21.0, {2.0, -1.5}, 1.1, {8.0, 3.0}, mode, fill)));
      }
    }
  }
  EXPECT_TRUE(bitwise_equal(wide, gpu_wide)) << "the input must not change";
}

// 90 and 270 are transposed views of a flipped buffer (torch.rot90's strides), and contiguous()
// of them is a transposing copy: both equal the CPU's for 1-, 2-, 4- and 8-byte values, sides
// that are and are not whole 4-byte words, sizes around 32-, 64- and 128-value tiles, and
// contiguous, channels_last, sliced (unaligned) and strided inputs.
TEST(Rotate, CudaQuarterTurnsEqualCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 3000;
  for (const Dims& shape : {Dims{1, 1, 130, 260}, Dims{2, 3, 67, 200}, Dims{3, 129, 131}, Dims{2, 1, 257, 40},
                            Dims{1, 2, 16, 300}, Dims{1, 64, 64}}) {
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (double angle : {90.0, 270.0, -90.0, 180.0}) {
          SCOPED_TRACE(angle);
          const Tensor cpu_out = functional::rotate(cpu_in, angle, InterpolationMode::Nearest, true);
          const Tensor gpu_out = functional::rotate(gpu_in, angle, InterpolationMode::Nearest, true);
          ASSERT_TRUE(bitwise_equal(cpu_out, gpu_out));
          ASSERT_EQ(Dims(cpu_out.strides()), Dims(gpu_out.strides()));
          ASSERT_TRUE(bitwise_equal(contiguous(cpu_out), contiguous(gpu_out)));
        }
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
}

}  // namespace
}  // namespace svt
