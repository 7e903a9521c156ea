// The kernel registry: user kernels replace ours, and may add dtypes ours lack; unsupported
// (op, device, dtype) errors name the op, the dtype, the device and what is supported.
#include <algorithm>
#include <array>

#include "test_utils.hpp"

namespace svt {
namespace {

int g_calls = 0;

void fill_sevens(const Tensor&, const Tensor& output, const Stream&) {
  ++g_calls;
  for_each_index(output.shape(), [&](const std::int64_t* idx) { store<std::uint8_t>(output, idx, 7); });
}

TEST(Registry, UserKernelReplacesAndRestores) {
  g_calls = 0;  // counted from here (--gtest_repeat)
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

// Puts an op's CPU kernel and dtypes back as they were when the guard was made (also when the
// test fails half-way). The built-in kernel is read back through get() with a dtype it takes.
template <class Op>
class CpuKernelRestorer {
 public:
  explicit CpuKernelRestorer(DType supported)
      : kernel_(kernel_table<Op>().get(Device::cpu(), supported)), dtypes_(kernel_table<Op>().dtypes(DeviceType::CPU)) {}
  ~CpuKernelRestorer() { register_kernel<Op>(DeviceType::CPU, kernel_, dtypes_); }
  CpuKernelRestorer(const CpuKernelRestorer&) = delete;
  CpuKernelRestorer& operator=(const CpuKernelRestorer&) = delete;
  typename Op::Kernel kernel() const { return kernel_; }
  DTypeSet dtypes() const { return dtypes_; }

 private:
  typename Op::Kernel kernel_;
  DTypeSet dtypes_;
};

// affine extended to int32: the built-in kernel for its own dtypes, 4242 everywhere for int32.
ops::Affine::Kernel g_builtin_affine = nullptr;
int g_int32_affine_calls = 0;
std::array<double, 6> g_int32_affine_matrix{};

void affine_with_int32(const Tensor& input, const Tensor& output, const std::array<double, 6>& inverse_matrix,
                       InterpolationMode mode, const Fill& fill, const Stream& stream) {
  if (input.dtype() != DType::Int32) return g_builtin_affine(input, output, inverse_matrix, mode, fill, stream);
  ++g_int32_affine_calls;
  g_int32_affine_matrix = inverse_matrix;
  for_each_index(output.shape(), [&](const std::int64_t* idx) { store<std::int32_t>(output, idx, 4242); });
}

TEST(Registry, UserKernelForADtypeTheBuiltInLacksIsCalled) {
  g_int32_affine_calls = 0;  // counted from here (--gtest_repeat)
  const Tensor i32 = random_cpu({2, 3, 5, 6}, DType::Int32, 1);
  const Tensor f32 = random_cpu({2, 3, 5, 6}, DType::Float32, 2);
  auto run = [](const Tensor& image) { return functional::affine(image, 90.0, {1.0, 0.0}, 1.0, {0.0}); };
  ASSERT_FALSE(kernel_table<ops::Affine>().dtypes(DeviceType::CPU).contains(DType::Int32));
  expect_error(ErrorKind::UnsupportedDType, "int32", [&] { run(i32); });
  const Tensor f32_builtin = run(f32);
  {
    const CpuKernelRestorer<ops::Affine> restore(DType::Float32);
    g_builtin_affine = restore.kernel();
    register_kernel<ops::Affine>(DeviceType::CPU, &affine_with_int32, restore.dtypes() | DTypeSet{DType::Int32});
    const Tensor out = run(i32);
    EXPECT_EQ(g_int32_affine_calls, 1);
    EXPECT_EQ(out.dtype(), DType::Int32);
    EXPECT_EQ(Dims(out.shape()), Dims(i32.shape()));
    for_each_index(out.shape(), [&](const std::int64_t* idx) { ASSERT_EQ(load<std::int32_t>(out, idx), 4242); });
    // The front end computed the matrix as for any dtype.
    const auto expected = functional::inverse_affine_matrix({0.0, 0.0}, 90.0, {1.0, 0.0}, 1.0, {0.0, 0.0});
    for (int k = 0; k < 6; ++k) EXPECT_EQ(g_int32_affine_matrix[k], expected[k]) << k;
    // The dtypes the built-in kernel takes still reach it.
    EXPECT_TRUE(bitwise_equal(f32_builtin, run(f32)));
    EXPECT_EQ(g_int32_affine_calls, 1);
  }
  // Restored: int32 is refused again, float32 runs the built-in kernel.
  EXPECT_FALSE(kernel_table<ops::Affine>().dtypes(DeviceType::CPU).contains(DType::Int32));
  expect_error(ErrorKind::UnsupportedDType, "int32", [&] { run(i32); });
  EXPECT_EQ(g_int32_affine_calls, 1);
  EXPECT_TRUE(bitwise_equal(f32_builtin, run(f32)));
}

// adjust_brightness extended to int16 (a kernel of int16 only: other dtypes are refused while it
// is registered).
int g_int16_brightness_calls = 0;

void int16_brightness(const Tensor& input, const Tensor& output, double factor, const Stream&) {
  ++g_int16_brightness_calls;
  for_each_index(output.shape(), [&](const std::int64_t* idx) {
    store<std::int16_t>(output, idx, static_cast<std::int16_t>(load<std::int16_t>(input, idx) * factor));
  });
}

TEST(Registry, UserKernelForInt16BrightnessIsCalled) {
  g_int16_brightness_calls = 0;  // counted from here (--gtest_repeat)
  Tensor img = empty({1, 2, 3}, DType::Int16, Device::cpu());
  const std::vector<std::int16_t> values{-300, -7, 0, 5, 1000, 32000};
  std::copy(values.begin(), values.end(), img.data_as<std::int16_t>());
  ASSERT_FALSE(kernel_table<ops::AdjustBrightness>().dtypes(DeviceType::CPU).contains(DType::Int16));
  expect_error(ErrorKind::UnsupportedDType, "int16", [&] { functional::adjust_brightness(img, 0.5); });
  const Tensor u8 = random_cpu({3, 2, 2}, DType::UInt8, 1);
  const Tensor u8_builtin = functional::adjust_brightness(u8, 1.3);
  {
    const CpuKernelRestorer<ops::AdjustBrightness> restore(DType::UInt8);
    register_kernel<ops::AdjustBrightness>(DeviceType::CPU, &int16_brightness, DTypeSet{DType::Int16});
    const Tensor out = functional::adjust_brightness(img, 0.5);
    EXPECT_EQ(g_int16_brightness_calls, 1);
    EXPECT_EQ(out.dtype(), DType::Int16);
    EXPECT_EQ(std::vector<std::int16_t>(out.data_as<std::int16_t>(), out.data_as<std::int16_t>() + out.numel()),
              (std::vector<std::int16_t>{-150, -3, 0, 2, 500, 16000}));
    EXPECT_EQ(values, std::vector<std::int16_t>(img.data_as<std::int16_t>(), img.data_as<std::int16_t>() + img.numel()));
    expect_error(ErrorKind::UnsupportedDType, "{int16}", [&] { functional::adjust_brightness(u8, 0.5); });
  }
  expect_error(ErrorKind::UnsupportedDType, "int16", [&] { functional::adjust_brightness(img, 0.5); });
  EXPECT_EQ(g_int16_brightness_calls, 1);
  EXPECT_TRUE(bitwise_equal(u8_builtin, functional::adjust_brightness(u8, 1.3)));
}

}  // namespace
}  // namespace svt
