// streamvision::set_num_threads / get_num_threads: the setting applies to the next CPU op, is
// capped at the pool's size, refuses counts below 1, and never changes a result.
#include "test_utils.hpp"

namespace svt {
namespace {

TEST(Threads, SettingTheCountKeepsEveryResult) {
  const int initial = get_num_threads();
  ASSERT_GE(initial, 1);
  const Tensor img = random_cpu({6, 3, 120, 170}, DType::UInt8, 5, 0, 255);
  const Tensor reference = functional::resize(img, {61, 90});
  for (int n : {1, 2, 3, initial, initial + 7}) {
    set_num_threads(n);
    EXPECT_EQ(get_num_threads(), std::min(n, initial)) << n;  // the pool has `initial` threads
    EXPECT_TRUE(bitwise_equal(reference, functional::resize(img, {61, 90}))) << n;
  }
  expect_error(ErrorKind::Value, "at least 1", [] { set_num_threads(0); });
  expect_error(ErrorKind::Value, "got -2", [] { set_num_threads(-2); });
  EXPECT_EQ(get_num_threads(), std::min(initial + 7, initial));
  set_num_threads(initial);
}

}  // namespace
}  // namespace svt
