// get_dimensions / get_num_channels / get_size: [..., C, H, W] and 2-D images, and fewer dims.
#include "test_utils.hpp"

namespace svt {
namespace {

TEST(Meta, DimensionsChannelsSize) {
  const Tensor img = random_cpu({2, 4, 3, 5, 7}, DType::UInt8, 1);
  EXPECT_EQ(functional::get_dimensions(img), (std::vector<std::int64_t>{3, 5, 7}));
  EXPECT_EQ(functional::get_num_channels(img), 3);
  EXPECT_EQ(functional::get_size(img), (std::vector<std::int64_t>{5, 7}));
  const Tensor plane = random_cpu({5, 7}, DType::Float32, 1);
  EXPECT_EQ(functional::get_dimensions(plane), (std::vector<std::int64_t>{1, 5, 7}));
  EXPECT_EQ(functional::get_num_channels(plane), 1);
  EXPECT_EQ(functional::get_size(plane), (std::vector<std::int64_t>{5, 7}));
  expect_error(ErrorKind::Type, "two dimensions", [] { functional::get_dimensions(random_cpu({5}, DType::UInt8, 1)); });
  expect_error(ErrorKind::Type, "two dimensions", [] { functional::get_num_channels(random_cpu({5}, DType::UInt8, 1)); });
  expect_error(ErrorKind::Type, "two dimensions", [] { functional::get_size(random_cpu({5}, DType::UInt8, 1)); });
}

}  // namespace
}  // namespace svt
