// OptionalList (Size, Fill, sigma, center): the call-site spellings the README promises compile
// and mean what they say.
#include <type_traits>

#include "test_utils.hpp"

namespace svt {
namespace {

static_assert(std::is_convertible_v<std::nullopt_t, Size>);
static_assert(std::is_convertible_v<std::vector<std::int64_t>, Size>);
static_assert(std::is_convertible_v<std::optional<std::vector<std::int64_t>>, Size>);
static_assert(std::is_base_of_v<std::optional<std::vector<double>>, Fill>);

std::optional<std::vector<std::int64_t>> as_optional(const Size& s) { return s; }

TEST(OptionalList, BracedListsNulloptAndVectors) {
  EXPECT_EQ(as_optional({224, 224}), (std::vector<std::int64_t>{224, 224}));
  EXPECT_EQ(as_optional({256}), (std::vector<std::int64_t>{256}));
  EXPECT_EQ(as_optional(std::nullopt), std::nullopt);
  EXPECT_EQ(as_optional({}), std::nullopt);
  const std::vector<std::int64_t> v{3, 4};
  EXPECT_EQ(as_optional(v), v);
  EXPECT_EQ(as_optional(std::optional<std::vector<std::int64_t>>(v)), v);
  const Fill fill = {0.5};
  ASSERT_TRUE(fill.has_value());
  EXPECT_EQ(*fill, std::vector<double>{0.5});
}

TEST(OptionalList, OpsTakeBracedLists) {
  std::vector<float> pixels(2 * 3, 1.0f);
  const Tensor img = from_blob(pixels.data(), {1, 2, 3}, {6, 3, 1}, DType::Float32, Device::cpu(), nullptr);
  const Tensor exact = functional::resize(img, {4, 6});
  EXPECT_EQ(Dims(exact.shape()), (Dims{1, 4, 6}));
  EXPECT_EQ(Dims(functional::resize(img, {4}).shape()), (Dims{1, 4, 6}));  // the shorter edge
  EXPECT_EQ(Dims(functional::resize(img, std::nullopt, InterpolationMode::Bilinear, 6).shape()), (Dims{1, 4, 6}));
  EXPECT_EQ(functional::resized_output_size(2, 3, {8}), (std::vector<std::int64_t>{8, 12}));
  EXPECT_EQ(Dims(functional::pad(img, {1}, {0.5}).shape()), (Dims{1, 4, 5}));
  EXPECT_EQ(Dims(functional::gaussian_blur(img, {3, 3}, {1.0}).shape()), Dims(img.shape()));
  EXPECT_EQ(Dims(functional::rotate(img, 90.0, InterpolationMode::Nearest, false, {1.0, 1.0}, {0.0}).shape()), Dims(img.shape()));
}

}  // namespace
}  // namespace svt
