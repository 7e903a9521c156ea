// The nvJPEG loader (src/io/nvjpeg_library.cpp): built when CMake found nvJPEG (SV_IO_NVJPEG), it
// must open libnvjpeg.so.13 and resolve every function without a GPU (CI has none: this is what
// shows there that the decoder will find its library on a GPU machine).
#include <gtest/gtest.h>

#include <string>

#include "io/jpeg_gpu.hpp"
#include "io/nvjpeg_library.hpp"

namespace sv = streamvision;

TEST(NvjpegLibrary, LoadsAndResolvesEveryFunction) {
  std::string why;
  const sv::io::detail::NvjpegApi* api = sv::io::detail::nvjpeg_api(&why);
  ASSERT_NE(api, nullptr) << why;
  EXPECT_FALSE(api->path.empty());
  int major = 0, minor = -1;
  ASSERT_EQ(api->nvjpegGetProperty(MAJOR_VERSION, &major), NVJPEG_STATUS_SUCCESS);
  ASSERT_EQ(api->nvjpegGetProperty(MINOR_VERSION, &minor), NVJPEG_STATUS_SUCCESS);
  EXPECT_EQ(major, 13) << "the header is CUDA 13's nvJPEG; loaded " << api->path;
  EXPECT_GE(minor, 0);
  EXPECT_TRUE(sv::io::detail::gpu_jpeg_decoder_available());
}

TEST(NvjpegLibrary, StatusNames) {
  EXPECT_STREQ(sv::io::detail::nvjpeg_status_name(NVJPEG_STATUS_BAD_JPEG), "NVJPEG_STATUS_BAD_JPEG");
  EXPECT_STREQ(sv::io::detail::nvjpeg_status_name(static_cast<nvjpegStatus_t>(999)), "NVJPEG_STATUS_UNKNOWN");
}
