#include "png.hpp"

#include <zlib.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace svtool {

namespace {

constexpr std::uint8_t kSignature[8] = {137, 80, 78, 71, 13, 10, 26, 10};

std::uint32_t read_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": " + why);
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

void write_chunk(std::vector<std::uint8_t>& out, const char* type, const std::vector<std::uint8_t>& data) {
  put_be32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  const uLong crc = crc32(0L, out.data() + start, static_cast<uInt>(out.size() - start));
  put_be32(out, static_cast<std::uint32_t>(crc));
}

}  // namespace

Image read_png(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail(path, "cannot open");
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kSignature, 8) != 0) fail(path, "not a PNG file");

  int width = 0, height = 0, bit_depth = 0, color_type = -1, interlace = 0;
  std::vector<std::uint8_t> compressed;
  for (std::size_t pos = 8; pos + 12 <= bytes.size();) {
    const std::uint32_t length = read_be32(&bytes[pos]);
    if (pos + 12 + length > bytes.size()) fail(path, "truncated chunk");
    const std::string type(reinterpret_cast<const char*>(&bytes[pos + 4]), 4);
    const std::uint8_t* data = &bytes[pos + 8];
    if (type == "IHDR") {
      if (length < 13) fail(path, "bad IHDR");
      width = static_cast<int>(read_be32(data));
      height = static_cast<int>(read_be32(data + 4));
      bit_depth = data[8];
      color_type = data[9];
      interlace = data[12];
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + length;
  }
  int in_channels = 0;
  switch (color_type) {
    case 0: in_channels = 1; break;
    case 2: in_channels = 3; break;
    case 4: in_channels = 2; break;
    case 6: in_channels = 4; break;
    default: fail(path, "unsupported PNG colour type " + std::to_string(color_type) + " (palette PNGs are not supported)");
  }
  if (bit_depth != 8) fail(path, "unsupported bit depth " + std::to_string(bit_depth) + " (8 bits per sample expected)");
  if (interlace != 0) fail(path, "interlaced PNGs are not supported");
  if (width <= 0 || height <= 0 || static_cast<long long>(width) * height > (1ll << 30)) fail(path, "bad image size");

  const std::size_t stride = static_cast<std::size_t>(width) * in_channels;
  std::vector<std::uint8_t> raw((stride + 1) * height);
  uLongf raw_size = static_cast<uLongf>(raw.size());
  if (uncompress(raw.data(), &raw_size, compressed.data(), static_cast<uLong>(compressed.size())) != Z_OK ||
      raw_size != raw.size()) {
    fail(path, "corrupt image data");
  }
  // Undo the per-row filters in place; bpp = bytes per pixel.
  const int bpp = in_channels;
  std::vector<std::uint8_t> pixels(stride * height);
  for (int y = 0; y < height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* src = &raw[y * (stride + 1) + 1];
    std::uint8_t* row = &pixels[y * stride];
    const std::uint8_t* up = y > 0 ? &pixels[(y - 1) * stride] : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= static_cast<std::size_t>(bpp) ? row[x - bpp] : 0;
      const int b = up ? up[x] : 0;
      const int c = (up && x >= static_cast<std::size_t>(bpp)) ? up[x - bpp] : 0;
      int v = src[x];
      switch (filter) {
        case 0: break;
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) / 2; break;
        case 4: v += paeth(a, b, c); break;
        default: fail(path, "bad filter type");
      }
      row[x] = static_cast<std::uint8_t>(v);
    }
  }
  Image image;
  image.width = width;
  image.height = height;
  image.channels = in_channels >= 3 ? 3 : 1;
  image.hwc.resize(static_cast<std::size_t>(width) * height * image.channels);
  for (std::size_t p = 0; p < static_cast<std::size_t>(width) * height; ++p) {
    for (int c = 0; c < image.channels; ++c) image.hwc[p * image.channels + c] = pixels[p * in_channels + c];
  }
  return image;
}

void write_png(const std::string& path, const Image& image) {
  if (image.channels != 1 && image.channels != 3) fail(path, "can only write 1- or 3-channel images");
  const std::size_t stride = static_cast<std::size_t>(image.width) * image.channels;
  std::vector<std::uint8_t> raw;
  raw.reserve((stride + 1) * image.height);
  for (int y = 0; y < image.height; ++y) {
    raw.push_back(0);  // filter: none
    raw.insert(raw.end(), image.hwc.begin() + y * stride, image.hwc.begin() + (y + 1) * stride);
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<std::uint8_t> compressed(size);
  if (compress2(compressed.data(), &size, raw.data(), static_cast<uLong>(raw.size()), 6) != Z_OK) fail(path, "compression failed");
  compressed.resize(size);

  std::vector<std::uint8_t> out(kSignature, kSignature + 8);
  std::vector<std::uint8_t> ihdr;
  put_be32(ihdr, static_cast<std::uint32_t>(image.width));
  put_be32(ihdr, static_cast<std::uint32_t>(image.height));
  ihdr.insert(ihdr.end(), {8, static_cast<std::uint8_t>(image.channels == 3 ? 2 : 0), 0, 0, 0});
  write_chunk(out, "IHDR", ihdr);
  write_chunk(out, "IDAT", compressed);
  write_chunk(out, "IEND", {});
  std::ofstream file(path, std::ios::binary);
  if (!file) fail(path, "cannot write");
  file.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
}

}  // namespace svtool
