// perspective on the CPU: an integer shift from points and from coefficients, the coefficients as
// torchvision 0.26 computes them, a double-precision reference of torchvision's grid_sample
// pipeline over dtypes, shapes, layouts, modes and fills, and bad input; on CUDA, equal to the CPU
// bit for bit.
#include <cmath>

#include "geometry_test_utils.hpp"

namespace svt {
namespace {

// ---- hand-computed ------------------------------------------------------------------------

// The shift of Affine.IntegerShiftsAndIdentity, out[y][x] = in[y - 1][x - 2], as a perspective map.
TEST(Perspective, IntegerShift) {
  const Tensor img = u8_image(3, 4);  // 1..12
  // From points and from coefficients.
  const functional::Points start{{0, 0}, {3, 0}, {3, 2}, {0, 2}}, end{{2, 1}, {5, 1}, {5, 3}, {2, 3}};
  const auto coeffs = functional::perspective_coefficients(start, end);
  const std::array<double, 8> expected{1, 0, -2, 0, 1, -1, 0, 0};
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(coeffs[k], expected[k], 1e-6) << k;
  EXPECT_EQ(u8_values(functional::perspective(img, start, end, InterpolationMode::Nearest)),
            (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6}));
  EXPECT_EQ(u8_values(functional::perspective(img, std::nullopt, std::nullopt, InterpolationMode::Bilinear, std::nullopt,
                                              std::vector<double>(expected.begin(), expected.end()))),
            (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 5, 6}));
}

// ---- perspective coefficients -------------------------------------------------------------

// torchvision 0.26's _get_perspective_coeffs (torch 2.11, x86 MKL) for point sets a
// RandomPerspective on small images or a user can give: ordinary ones, the identity and small
// sets whose exact solution has zeros (torch's rounding noise included), a nearly singular set
// that it solves, and float points (float32 rows).
TEST(Perspective, CoefficientsMatchTorchvision) {
  struct Case {
    functional::Points start, end;
    std::array<double, 8> expected;
  };
  const std::vector<Case> cases{
      {{{0, 0}, {33, 0}, {33, 25}, {0, 25}}, {{3, 2}, {32, 3}, {30, 24}, {2, 25}},
       {0x1.05bdcp+0, 0x1.6c2964p-5, -0x1.93fdecp+1, -0x1.22542ap-5, 0x1.071c46p+0, -0x1.f300aap+0, -0x1.83149ap-9, -0x1.ee1e48p-10}},
      {{{3, 2}, {32, 3}, {30, 24}, {2, 25}}, {{5, 5}, {30, 3}, {33, 19}, {4, 25}},
       {0x1.1d6d6ap+0, 0x1.ce3c12p-6, -0x1.484df0p+1, 0x1.3c12d6p-3, 0x1.87202ap+0, -0x1.93da80p+2, -0x1.2f0fdcp-9, 0x1.957eb2p-7}},
      {{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, {{0, 0}, {1, 0}, {1, 1}, {0, 1}},
       {1.0, 0x1.a8f6d2p-53, -0x1.1f42a8p-52, 0x1.6a09e6p-54, 1.0, -0x1.1a1fa8p-53, 0x1.4214c8p-52, 0x1.f7675ep-55}},
      {{{0, 0}, {2, 0}, {2, 1}, {0, 1}}, {{0, 0}, {1, 0}, {2, 1}, {1, 1}},
       {2.0, -2.0, 0x1.0f912ap-50, 0x1.3988e2p-52, 1.0, -0x1.155070p-54, 0x1.670674p-54, -0x1.99da1cp-52}},
      {{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, {{0, 0}, {1, 0}, {1, 1}, {1, 1}},
       {-0x1.f8a060p-53, 0x1.3988e2p-53, -0x1p-103, 0x1.e9c58ap-55, -0x1.3988e2p-52, -0x1p-103, -1.0, 0.0}},
      {{{3, 2}, {3, 3}, {2, 0}, {1, 3}}, {{3, 3}, {1, 2}, {1, 2}, {1, 1}},
       {-3.0, -0x1.2971f4p-49, 3.0, -2.0, 0x1.5b04f2p-50, 2.0, -1.0, 0.0}},
      {{{0.5, 1.25}, {40.1, 2.7}, {38.9, 30.3}, {1.1, 29.9}}, {{2.2, 0.3}, {39.5, 1.5}, {41.7, 31.1}, {0.25, 28.4}},
       {0x1.27743ap+0, 0x1.ba4bb0p-4, -0x1.08beb6p+1, 0x1.aa547ap-8, 0x1.3356fcp+0, 0x1.c44744p-1, 0x1.0aa934p-9, 0x1.86eceep-8}},
  };
  for (const Case& c : cases) {
    const auto coeffs = functional::perspective_coefficients(c.start, c.end);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(coeffs[k], c.expected[k]) << "coefficient " << k << " of case " << (&c - cases.data());
  }
  // Sets whose R has an exactly zero diagonal element: torch.linalg.lstsq raises (a RuntimeError).
  const std::vector<std::pair<functional::Points, functional::Points>> singular{
      {functional::Points(4, {0, 0}), functional::Points(4, {0, 0})},
      {{{0, 0}, {1, 0}, {2, 0}, {3, 0}}, {{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
      {{{0, 0}, {1, 1}, {2, 2}, {3, 3}}, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}},
      {{{3, 0}, {3, 3}, {0, 3}, {0, 0}}, {{1, 1}, {3, 3}, {2, 1}, {2, 1}}},
      {{{0, 0}, {0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}, {0, 0}}},
  };
  for (const auto& [start, end] : singular) {
    expect_error(ErrorKind::Runtime, "full rank", [&] { functional::perspective_coefficients(start, end); });
  }
}

// ---- reference over dtypes, shapes, layouts ---------------------------------------------------

TEST(Perspective, MatchesReferenceForEveryDtypeShapeLayoutAndMode) {
  for_each_warp_reference_case([](const WarpReferenceCase& c) {
    SCOPED_TRACE(c.what + " perspective");
    const std::vector<double> k{1.1, 0.05, -0.7, -0.08, 0.93, 0.4, 0.004, -0.006};
    const Tensor out = functional::perspective(c.in, std::nullopt, std::nullopt, c.mode, c.fill, k);
    const SourceFn s = [&](double x, double y, double& sx, double& sy) {
      const double px = x + 0.5, py = y + 0.5, d = k[6] * px + k[7] * py + 1;
      sx = (k[0] * px + k[1] * py + k[2]) / d - 0.5;
      sy = (k[3] * px + k[4] * py + k[5]) / d - 0.5;
    };
    expect_warp_close(out, reference_warp(c.src, c.h, c.w, s, c.nearest(), c.fill), c.nearest());
  });
}

TEST(Perspective, BadInput) {
  const Tensor img = random_cpu({3, 8, 6}, DType::UInt8, 2);
  const double nan = std::nan("");
  expect_error(ErrorKind::Value, "box", [&] { functional::perspective(img, std::nullopt, std::nullopt, interpolation_mode_from_int(4), std::nullopt, std::vector<double>(8, 0.1)); });
  // The messages hold what torchvision 0.26's tests match.
  expect_error(ErrorKind::Value, "coefficients should have 8 float values", [&] { functional::perspective(img, std::nullopt, std::nullopt, InterpolationMode::Bilinear, std::nullopt, std::vector<double>(7, 0.0)); });
  expect_error(ErrorKind::Value, "startpoints/endpoints and the coefficients shouldn't be defined concurrently", [&] {
    functional::perspective(img, functional::Points(4, {0, 0}), functional::Points(4, {0, 0}), InterpolationMode::Bilinear,
                            std::nullopt, std::vector<double>(8, 0.0));
  });
  expect_error(ErrorKind::Value, "coefficients", [&] { functional::perspective(img, std::nullopt, std::nullopt, InterpolationMode::Bilinear, std::nullopt, std::vector<double>{1, 0, 0, 0, 1, 0, nan, 0}); });
  expect_error(ErrorKind::Value, "four corners", [&] { functional::perspective(img, functional::Points(3, {0, 0}), functional::Points(4, {0, 0})); });
  expect_error(ErrorKind::Runtime, "full rank", [&] { functional::perspective(img, functional::Points(4, {1, 1}), functional::Points(4, {1, 1})); });
  expect_error(ErrorKind::Runtime, "finite", [&] { functional::perspective(img, functional::Points(4, {1, nan}), functional::Points(4, {1, 1})); });
  expect_error(ErrorKind::Value, "Overflow", [&] {
    functional::perspective(img, functional::Points{{0, 0}, {1, 0}, {1, 1}, {4294967296.0, 1}},
                            functional::Points{{0, 0}, {1, 0}, {1, 1}, {4294967296.0, 1}});
  });
  expect_error(ErrorKind::Value, "startpoints/endpoints or the coefficients must have non `None` values", [&] { functional::perspective(img, std::nullopt, std::nullopt); });
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Perspective, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  for_each_warp_cuda_case([](const WarpCudaCase& c) {
    if (c.h > 2 && c.w > 3) {  // corner points of thinner images are degenerate
      const functional::Points start{{0, 0}, {c.w - 1.0, 0}, {c.w - 1.0, c.h - 1.0}, {0, c.h - 1.0}};
      const functional::Points end{{1, 2}, {c.w - 3.0, 1}, {c.w - 1.0, c.h - 2.0}, {2, c.h - 1.0}};
      ASSERT_TRUE(bitwise_equal(functional::perspective(c.cpu_in, start, end, c.mode, c.fill),
                                functional::perspective(c.gpu_in, start, end, c.mode, c.fill)));
    }
    const std::vector<double> k{0.97, 0.04, 0.6, -0.05, 1.03, -0.4, 0.003, -0.002};
    ASSERT_TRUE(bitwise_equal(functional::perspective(c.cpu_in, std::nullopt, std::nullopt, c.mode, c.fill, k),
                              functional::perspective(c.gpu_in, std::nullopt, std::nullopt, c.mode, c.fill, k)));
  });
}

}  // namespace
}  // namespace svt
