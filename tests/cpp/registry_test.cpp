// The kernel registry: user kernels replace ours; unsupported (op, device, dtype) errors name
// the op, the dtype, the device and what is supported.
#include "test_utils.hpp"

namespace svt {
namespace {

int g_calls = 0;

void fill_sevens(const Tensor&, const Tensor& output, const Stream&) {
  ++g_calls;
  for_each_index(output.shape(), [&](const std::int64_t* idx) { store<std::uint8_t>(output, idx, 7); });
}

TEST(Registry, UserKernelReplacesAndRestores) {
  auto& table = kernel_table<ops::HorizontalFlip>();
  const auto original = table.get(Device::cpu(), DType::UInt8);
  const DTypeSet original_dtypes = table.dtypes(DeviceType::CPU);
  register_kernel<ops::HorizontalFlip>(DeviceType::CPU, &fill_sevens, DTypeSet{DType::UInt8});
  const Tensor out = functional::horizontal_flip(random_cpu({1, 2, 3}, DType::UInt8, 1));
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(out.data_as<std::uint8_t>()[5], 7);
  // Only uint8 is registered now: other dtypes name what is supported.
  try {
    functional::horizontal_flip(random_cpu({1, 2, 3}, DType::Float32, 1));
    ADD_FAILURE();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::UnsupportedDType);
    EXPECT_NE(what.find("horizontal_flip"), std::string::npos) << what;
    EXPECT_NE(what.find("float32"), std::string::npos) << what;
    EXPECT_NE(what.find("{uint8}"), std::string::npos) << what;
    EXPECT_NE(what.find("cpu"), std::string::npos) << what;
  }
  register_kernel<ops::HorizontalFlip>(DeviceType::CPU, original, original_dtypes);
  EXPECT_EQ(functional::horizontal_flip(random_cpu({1, 2, 3}, DType::Float32, 1)).numel(), 6);
}

TEST(Registry, UnsupportedDtypeErrorNamesEverything) {
  try {
    functional::normalize(random_cpu({3, 2, 2}, DType::Int32, 1), {0.5}, {0.5});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace svt
