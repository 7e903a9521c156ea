// Regression cases for what the fuzzer (tests/fuzz) found: each input that once crashed or tripped
// a sanitizer now ends as a result or a streamvision::Error. The crashing byte strings are in
// tests/fuzz/corpus/crash-*, so scripts/fuzz replays them too.
#include <gtest/gtest.h>

#include <cstdint>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "streamvision/streamvision.hpp"
#include "test_utils.hpp"

namespace sv = streamvision;
namespace F = streamvision::functional;

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

sv::Tensor small_image(sv::DType dtype = sv::DType::UInt8) {
  return sv::empty({1, 3, 5, 7}, dtype, sv::Device::cpu());
}

}  // namespace

// crash-pad-int64-min-padding: negating INT64_MIN (UBSan), and h + top + bottom overflowing.
TEST(FuzzRegression, PadWithInt64LimitsIsAnError) {
  const sv::Tensor x = small_image(sv::DType::UInt16);
  for (const sv::PaddingMode mode : {sv::PaddingMode::Constant, sv::PaddingMode::Edge, sv::PaddingMode::Reflect,
                                     sv::PaddingMode::Symmetric}) {
    EXPECT_THROW(F::pad(x, {kMin}, std::nullopt, mode), sv::Error);
    EXPECT_THROW(F::pad(x, {1, kMin, 2, 3}, std::nullopt, mode), sv::Error);
    EXPECT_THROW(F::pad(x, {kMax, kMax}, std::nullopt, mode), sv::Error);
    EXPECT_THROW(F::pad(x, {std::int64_t{1} << 62, std::int64_t{1} << 62}, std::nullopt, mode), sv::Error);
  }
  try {
    F::pad(x, {kMin});
  } catch (const sv::Error& e) {
    EXPECT_EQ(e.argument(), "padding");
    EXPECT_NE(std::string(e.what()).find("2^31"), std::string::npos) << e.what();
  }
  EXPECT_EQ(F::pad(x, {-2, 1}).size(-1), 7 - 2 - 2);  // ordinary negative paddings still crop
}

// crash-resized-output-size-overflow, crash-resized-crop-size-overflow*: torchvision's
// int(a * b / c) overflowed int64 for huge requested sizes.
TEST(FuzzRegression, ResizedOutputSizeOverflowIsAnError) {
  constexpr std::int64_t kHuge = std::int64_t{1} << 62;
  EXPECT_THROW(F::resized_output_size(4201, 5000, sv::Size{kHuge}), sv::Error);
  EXPECT_THROW(F::resized_output_size(4201, 5000, std::nullopt, kHuge), sv::Error);
  EXPECT_THROW(F::resize(small_image(), sv::Size{kHuge}), sv::Error);
  EXPECT_THROW(F::resized_crop(sv::empty({3, 1, 0}, sv::DType::UInt16, sv::Device::cpu()), 0, 0, 15, 30, {kHuge}), sv::Error);
  EXPECT_EQ(F::resized_output_size(4201, 5000, sv::Size{100}), (std::vector<std::int64_t>{100, 119}));  // unchanged
}

// crash-resized-crop-window-end-overflow: top + height overflowed in the inside-the-image test;
// crash-resized-crop-far-outside-window: the crop's margins (-top, -left) overflowed in the pad plan.
TEST(FuzzRegression, CropWindowsFarOutsideTheImageAreZeros) {
  const sv::Tensor x = svt::random_cpu({1, 3, 5, 7}, sv::DType::Float32, 15);
  for (const auto [top, left] : {std::pair{kMin, std::int64_t{0}}, std::pair{kMin + 1, kMin + 1}, std::pair{kMax, std::int64_t{2}},
                                 std::pair{std::int64_t{1}, kMax}, std::pair{-(std::int64_t{1} << 40), std::int64_t{0}}}) {
    for (const sv::Tensor& out : {F::crop(x, top, left, 2, 3), F::resized_crop(x, top, left, 2, 3, {4, 6})}) {
      const sv::Tensor c = sv::contiguous(out);
      const auto* p = c.data_as<float>();
      for (std::int64_t i = 0; i < c.numel(); ++i) ASSERT_EQ(p[i], 0.0f) << "top " << top << " left " << left;
    }
  }
  // A window partly inside is unchanged by the clamping.
  const sv::Tensor part = sv::contiguous(F::crop(x, -1, 5, 3, 4));
  const sv::Tensor xc = sv::contiguous(x);
  EXPECT_EQ(part.data_as<float>()[0 * 4 + 0], 0.0f);                          // image row -1
  EXPECT_EQ(part.data_as<float>()[1 * 4 + 0], xc.data_as<float>()[0 * 7 + 5]);  // image (0, 5)
  EXPECT_EQ(part.data_as<float>()[1 * 4 + 2], 0.0f);                          // image column 7
}

// crash-rotate-expand-*: an expanded rotation of planes without pixels sampled a null image.
TEST(FuzzRegression, ExpandedRotationOfAnEmptyImageIsAnError) {
  for (const sv::Dims shape : {sv::Dims{7, 3, 2, 0}, sv::Dims{1, 3, 0, 28}}) {
    const sv::Tensor x = sv::empty(shape, sv::DType::BFloat16, sv::Device::cpu());
    try {
      F::rotate(x, 30.0, sv::InterpolationMode::Nearest, /*expand=*/true);
      FAIL() << "expected an Error for " << shape.str();
    } catch (const sv::Error& e) {
      EXPECT_EQ(e.kind(), sv::ErrorKind::Runtime);
      EXPECT_EQ(e.op(), "rotate");
    }
    EXPECT_EQ(F::rotate(x, 30.0).numel(), 0);  // without expand the output is as empty as the input
  }
  EXPECT_EQ(F::rotate(sv::empty({0, 3, 4, 4}, sv::DType::Float32, sv::Device::cpu()), 30.0, sv::InterpolationMode::Nearest,
                      true).numel(), 0);  // no planes: an empty result
}

// crash-adjust-hue-nan-pixels: NaN hue converted to int (UBSan). NaN pixels stay their own
// business: every other pixel is what it is without them (the op is per pixel).
TEST(FuzzRegression, AdjustHueWithNanPixels) {
  sv::Tensor x = svt::random_cpu({1, 3, 4, 5}, sv::DType::Float32, 16, 0.0, 1.0);
  const sv::Tensor clean = F::adjust_hue(x, 0.2);
  auto* p = x.data_as<float>();
  p[0 * 20 + 3] = NAN;  // pixel (0, 3): red NaN
  p[1 * 20 + 7] = INFINITY;  // pixel (1, 2): green inf
  const sv::Tensor dirty = sv::contiguous(F::adjust_hue(x, 0.2));
  const sv::Tensor ref = sv::contiguous(clean);
  for (std::int64_t c = 0; c < 3; ++c) {
    for (std::int64_t i = 0; i < 20; ++i) {
      if (i == 3 || i == 7) continue;
      EXPECT_EQ(dirty.data_as<float>()[c * 20 + i], ref.data_as<float>()[c * 20 + i]) << c << " " << i;
    }
  }
}

// crash-erase-slice-stop-overflow*: the slice stop i + h overflowed; Python slices past the end.
TEST(FuzzRegression, EraseWithHugeRegionsSlicesLikePython) {
  const sv::Tensor x = svt::random_cpu({1, 3, 6, 5}, sv::DType::Float64, 17);
  const sv::Tensor v = sv::empty({1}, sv::DType::Float64, sv::Device::cpu());
  *v.data_as<double>() = 7.0;
  // image[..., 4:, 3:] = 7 for any stop past the end, however large.
  for (const auto [h, w] : {std::pair{kMax, kMax}, std::pair{kMax, std::int64_t{100}}}) {
    const sv::Tensor out = sv::contiguous(F::erase(x, 4, 3, h, w, v));
    const sv::Tensor xc = sv::contiguous(x);
    for (std::int64_t c = 0; c < 3; ++c) {
      for (std::int64_t y = 0; y < 6; ++y) {
        for (std::int64_t xx = 0; xx < 5; ++xx) {
          const std::int64_t k = (c * 6 + y) * 5 + xx;
          const double want = (y >= 4 && xx >= 3) ? 7.0 : xc.data_as<double>()[k];
          ASSERT_EQ(out.data_as<double>()[k], want) << c << " " << y << " " << xx;
        }
      }
    }
  }
  // A stop below INT64_MIN is an empty slice: nothing is erased.
  const sv::Tensor none = sv::contiguous(F::erase(x, -3, 0, kMin, 2, v));
  const sv::Tensor xc = sv::contiguous(x);
  for (std::int64_t k = 0; k < x.numel(); ++k) ASSERT_EQ(none.data_as<double>()[k], xc.data_as<double>()[k]);
}

// Found by the differential generator: writes into a destination that repeats elements (stride 0)
// raced between CPU threads and differed between engines. torch refuses them; so do we, before
// writing anything.
TEST(FuzzRegression, WritesIntoRepeatedElementsAreRefused) {
  const sv::Tensor base = svt::random_cpu({1, 3, 1, 5}, sv::DType::Float32, 18);
  const sv::Tensor expanded = sv::from_blob(base.data(), {2, 3, 4, 5}, {0, 5, 0, 1}, sv::DType::Float32,
                                            sv::Device::cpu(), base.owner());
  const sv::Tensor before = sv::contiguous(base);
  const sv::Tensor src = svt::random_cpu({2, 3, 4, 5}, sv::DType::Float32, 19);
  const sv::Tensor value = sv::empty({1}, sv::DType::Float32, sv::Device::cpu());
  *value.data_as<float>() = 1.0f;
  auto expect_refused = [&](auto&& call, const char* op) {
    try {
      call();
      ADD_FAILURE() << op << " accepted a destination with repeated elements";
    } catch (const sv::Error& e) {
      EXPECT_EQ(e.kind(), sv::ErrorKind::Runtime) << e.what();
      EXPECT_EQ(e.op(), op);
      EXPECT_NE(std::string(e.what()).find("single memory location"), std::string::npos) << e.what();
    }
  };
  expect_refused([&] { sv::copy_(expanded, src); }, "copy_");
  expect_refused([&] { F::normalize(expanded, {0.1, 0.2, 0.3}, {0.5, 0.5, 0.5}, /*inplace=*/true); }, "normalize");
  expect_refused([&] { F::erase(expanded, 0, 0, 2, 2, value, /*inplace=*/true); }, "erase");
  for (std::int64_t k = 0; k < base.numel(); ++k) ASSERT_EQ(base.data_as<float>()[k], before.data_as<float>()[k]);
  // Reading an expanded tensor is fine, and so is writing a copy of it.
  EXPECT_EQ(F::normalize(expanded, {0.1, 0.2, 0.3}, {0.5, 0.5, 0.5}).numel(), 2 * 3 * 4 * 5);
}

// The differential run's copy_ case 750 (seed 15): a uint16 [2, 20] destination with strides
// [20, 2] (its rows overlap: row 1 starts at element 20, inside row 0's span) came out different
// on the CPU and on CUDA, each engine writing the shared elements in its own order. No zero
// stride, so only the full distinct-address check catches it; a truly disjoint interleaving
// ([2, 20] with strides [1, 2]) is still written.
TEST(FuzzRegression, WritesIntoOverlappingRowsAreRefused) {
  const sv::Tensor storage = svt::random_cpu({64}, sv::DType::UInt16, 21);
  const sv::Tensor before = sv::contiguous(storage);
  const sv::Tensor rows = sv::from_blob(storage.data(), {2, 20}, {20, 2}, sv::DType::UInt16, sv::Device::cpu(),
                                        storage.owner());
  const sv::Tensor src = svt::random_cpu({2, 20}, sv::DType::UInt16, 22);
  try {
    sv::copy_(rows, src);
    ADD_FAILURE() << "copy_ accepted a destination whose rows overlap";
  } catch (const sv::Error& e) {
    EXPECT_EQ(e.kind(), sv::ErrorKind::Runtime) << e.what();
    EXPECT_NE(std::string(e.what()).find("single memory location"), std::string::npos) << e.what();
  }
  for (std::int64_t k = 0; k < storage.numel(); ++k) ASSERT_EQ(storage.data_as<std::uint16_t>()[k], before.data_as<std::uint16_t>()[k]);
  const sv::Tensor interleaved = sv::from_blob(storage.data(), {2, 20}, {1, 2}, sv::DType::UInt16, sv::Device::cpu(),
                                               storage.owner());
  sv::copy_(interleaved, src);
  EXPECT_TRUE(svt::bitwise_equal(src, interleaved));
}

// crash-resized-crop-batch-box-overflow: the CPU path's box check computed top + h (and
// left + w), which overflowed for boxes near the int64 limits.
TEST(FuzzRegression, BatchBoxesNearInt64LimitsAreErrors) {
  const sv::Tensor image = svt::random_cpu({3, 8, 9}, sv::DType::UInt8, 20);
  const sv::Tensor boxes = sv::empty({1, 4}, sv::DType::Int64, sv::Device::cpu());
  auto* b = boxes.data_as<std::int64_t>();
  for (const auto [top, left, h, w] : {std::array<std::int64_t, 4>{kMax - 3, 0, 5, 4}, std::array<std::int64_t, 4>{1, kMax - 1, 2, 3},
                                       std::array<std::int64_t, 4>{kMax, kMax, kMax, kMax}}) {
    b[0] = top, b[1] = left, b[2] = h, b[3] = w;
    try {
      F::resized_crop_batch({image}, boxes, {4, 4});
      ADD_FAILURE() << "a box at (" << top << ", " << left << ") was accepted";
    } catch (const sv::Error& e) {
      EXPECT_EQ(e.argument(), "boxes[0]") << e.what();
    }
  }
  b[0] = 1, b[1] = 2, b[2] = 7, b[3] = 7;  // the largest box that fits still works
  EXPECT_EQ(F::resized_crop_batch({image}, boxes, {4, 4}).size(-1), 4);
}

// crash-center-crop-size-int64-max: the padded size w + (cw - w) / 2 + (cw - w + 1) / 2 overflowed
// for an output size near INT64_MAX; the window is computed as max(w, cw) now, and an absurd output
// ends as an Error while ordinary padded center crops keep torchvision's placement.
TEST(FuzzRegression, CenterCropNearInt64MaxIsAnError) {
  const sv::Tensor empty = sv::empty({1, 0, 0}, sv::DType::UInt8, sv::Device::cpu());
  EXPECT_THROW(F::center_crop(empty, {kMax, kMax}), sv::Error);
  EXPECT_THROW(F::center_crop(small_image(), {kMax}), sv::Error);
  EXPECT_THROW(F::center_crop(small_image(), {kMax - 1, 3}), sv::Error);
  // 5x7 into 8x10: torchvision pads (left 1, top 1, right 2, bottom 2) and returns the padded image.
  const sv::Tensor x = svt::random_cpu({1, 1, 5, 7}, sv::DType::Float32, 3);
  const sv::Tensor c = sv::contiguous(F::center_crop(x, {8, 10}));
  ASSERT_EQ(c.size(-2), 8);
  ASSERT_EQ(c.size(-1), 10);
  const sv::Tensor xc = sv::contiguous(x);
  EXPECT_EQ(c.data_as<float>()[0], 0.0f);
  EXPECT_EQ(c.data_as<float>()[1 * 10 + 1], xc.data_as<float>()[0]);
  EXPECT_EQ(c.data_as<float>()[5 * 10 + 7], xc.data_as<float>()[4 * 7 + 6]);
  EXPECT_EQ(c.data_as<float>()[6 * 10 + 8], 0.0f);
}
