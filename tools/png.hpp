// Minimal PNG reading and writing for the command-line program: 8-bit greyscale, grey+alpha,
// RGB and RGBA, non-interlaced (what cameras, datasets and our own writer produce). Pixels come
// and go as interleaved HWC bytes; alpha is dropped on reading.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svtool {

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;               // 1 or 3
  std::vector<std::uint8_t> hwc;  // height * width * channels bytes, row-major
};

// Throws std::runtime_error naming the file and the problem.
Image read_png(const std::string& path);
void write_png(const std::string& path, const Image& image);

}  // namespace svtool
