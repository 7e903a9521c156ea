// The generated <streamvision/version.hpp> and the library agree with the version the build
// read from the file VERSION (passed in as SV_EXPECTED_VERSION).
#include <string>

#include <gtest/gtest.h>

#include <streamvision/version.hpp>

#ifndef SV_EXPECTED_VERSION
#error "the build passes SV_EXPECTED_VERSION (tests/CMakeLists.txt)"
#endif

TEST(Version, HeaderLibraryAndBuildAgree) {
  EXPECT_STREQ(STREAMVISION_VERSION, SV_EXPECTED_VERSION);
  EXPECT_EQ(std::to_string(STREAMVISION_VERSION_MAJOR) + "." + std::to_string(STREAMVISION_VERSION_MINOR) + "." +
                std::to_string(STREAMVISION_VERSION_PATCH),
            SV_EXPECTED_VERSION);
  EXPECT_STREQ(streamvision::version(), SV_EXPECTED_VERSION);
}
