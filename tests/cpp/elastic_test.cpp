// elastic on the CPU: the identity and a one-pixel shift, float16 sampled in float32, a
// double-precision reference of torchvision's grid_sample pipeline over dtypes, shapes, layouts,
// modes and fills, and bad input; on CUDA, equal to the CPU bit for bit.
#include <algorithm>

#include "geometry_test_utils.hpp"

namespace svt {
namespace {

// ---- hand-computed ------------------------------------------------------------------------

TEST(Elastic, IdentityAndOnePixelShift) {
  // A zero displacement is the identity.
  const Tensor f = random_cpu({2, 3, 7, 9}, DType::Float32, 8);
  const Tensor zero_disp = empty({1, 7, 9, 2}, DType::Float32, Device::cpu());
  std::fill(zero_disp.data_as<float>(), zero_disp.data_as<float>() + zero_disp.numel(), 0.0f);
  const Tensor el = functional::elastic(f, zero_disp);
  const Tensor fc = contiguous_copy(f), ec = contiguous_copy(el);
  for (std::int64_t i = 0; i < f.numel(); ++i) EXPECT_NEAR(ec.data_as<float>()[i], fc.data_as<float>()[i], 1e-6);
  // A displacement of 2 / W in x reads one pixel to the right.
  const Tensor img = u8_image(3, 4);  // 1..12
  Tensor shift = empty({1, 3, 4, 2}, DType::Float64, Device::cpu());
  for (std::int64_t i = 0; i < shift.numel(); ++i) shift.data_as<double>()[i] = i % 2 == 0 ? 0.5 : 0.0;
  EXPECT_EQ(u8_values(functional::elastic(img, shift, InterpolationMode::Nearest)), (std::vector<int>{2, 3, 4, 0, 6, 7, 8, 0, 10, 11, 12, 0}));
}

// ---- float16 elastic ------------------------------------------------------------------------

// torchvision samples a float16 image in float32 (grid, taps and fill blend) and rounds only the
// result: elastic on float16 is the float32 elastic of the same values, rounded.
TEST(Elastic, Float16SamplesInFloat32) {
  const Tensor half = random_cpu({2, 3, 11, 14}, DType::Float16, 21, 0.0, 1.0);
  const Tensor disp = random_cpu({1, 11, 14, 2}, DType::Float32, 22, -0.2, 0.2);
  const Tensor as_float = functional::to_dtype(half, DType::Float32);
  for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::Bilinear}) {
    for (const Fill& fill : {Fill{}, Fill{std::vector<double>{0.3, 0.6, 0.9}}}) {
      const Tensor expected = functional::to_dtype(functional::elastic(as_float, disp, mode, fill), DType::Float16);
      EXPECT_TRUE(bitwise_equal(expected, functional::elastic(half, disp, mode, fill))) << interpolation_mode_name(mode);
    }
  }
}

// ---- reference over dtypes, shapes, layouts ---------------------------------------------------

TEST(Elastic, MatchesReferenceForEveryDtypeShapeLayoutAndMode) {
  for_each_warp_reference_case([](const WarpReferenceCase& c) {
    SCOPED_TRACE(c.what + " elastic");
    const Tensor out = functional::elastic(c.in, c.disp, c.mode, c.fill);
    const SourceFn s = [&](double x, double y, double& sx, double& sy) {
      const std::int64_t i0[4] = {0, static_cast<std::int64_t>(y), static_cast<std::int64_t>(x), 0};
      const std::int64_t i1[4] = {0, static_cast<std::int64_t>(y), static_cast<std::int64_t>(x), 1};
      sx = x + static_cast<double>(load<float>(c.disp, i0)) * static_cast<double>(c.w) / 2;
      sy = y + static_cast<double>(load<float>(c.disp, i1)) * static_cast<double>(c.h) / 2;
    };
    expect_warp_close(out, reference_warp(c.src, c.h, c.w, s, c.nearest(), c.fill), c.nearest());
  });
}

TEST(Elastic, BadInput) {
  const Tensor img = random_cpu({3, 8, 6}, DType::UInt8, 2);
  expect_error(ErrorKind::Value, "displacement shape should be", [&] { functional::elastic(img, empty({1, 8, 6, 3}, DType::Float32, Device::cpu())); });
  expect_error(ErrorKind::Type, "displacement should be a Tensor", [&] { functional::elastic(img, Tensor()); });
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Elastic, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  for_each_warp_cuda_case([](const WarpCudaCase& c) {
    ASSERT_TRUE(bitwise_equal(functional::elastic(c.cpu_in, c.disp, c.mode, c.fill), functional::elastic(c.gpu_in, c.gdisp, c.mode, c.fill)));
  });
}

}  // namespace
}  // namespace svt
