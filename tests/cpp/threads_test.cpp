// streamvision::set_num_threads / get_num_threads: the setting applies to the next CPU op, is
// capped at the pool's size, refuses counts below 1, and never changes a result. A
// ThreadLimitScope caps it further on its own thread only, nests, and restores on exit.
#include <thread>

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

TEST(Threads, LimitScopeCapsOnlyItsThreadAndNests) {
  const int initial = get_num_threads();
  const Tensor img = random_cpu({4, 3, 90, 130}, DType::Float32, 6);
  const Tensor reference = functional::gaussian_blur(img, {5, 5}, {1.5, 1.5});
  {
    ThreadLimitScope one(1);
    EXPECT_EQ(get_num_threads(), 1);
    int other_thread = 0;
    std::thread([&] { other_thread = get_num_threads(); }).join();
    EXPECT_EQ(other_thread, initial);  // the limit is this thread's
    {
      ThreadLimitScope more(initial + 5);  // a limit never raises the count above the setting
      EXPECT_EQ(get_num_threads(), initial);
      EXPECT_TRUE(bitwise_equal(reference, functional::gaussian_blur(img, {5, 5}, {1.5, 1.5})));
    }
    EXPECT_EQ(get_num_threads(), 1);
    EXPECT_TRUE(bitwise_equal(reference, functional::gaussian_blur(img, {5, 5}, {1.5, 1.5})));
  }
  EXPECT_EQ(get_num_threads(), initial);
  expect_error(ErrorKind::Value, "at least 1", [] { ThreadLimitScope bad(0); });
  EXPECT_EQ(get_num_threads(), initial);
}

}  // namespace
}  // namespace svt
