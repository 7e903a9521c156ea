// PNG on the CPU with libpng, with torchvision.io's transformations for each read mode (so that
// results are its results bit for bit): gray below 8 bits expanded, 16-bit samples kept (uint16
// output, host byte order), tRNS ignored, rgb_to_gray with torchvision's coefficients, Adam7
// interlacing handled by libpng. One deliberate difference: a palette image in UNCHANGED mode
// decodes to RGB (torchvision returns the packed palette indices).
//
// libpng reports errors through a function that must not return: we longjmp back to the
// decode function, whose state lives in a heap object reached through a pointer.
#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "io/codecs.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::io::detail {

namespace {

constexpr std::size_t kSignatureBytes = 8;

struct Reader {
  const std::uint8_t* next;
  std::size_t left;
  char message[256];
};

[[noreturn]] void on_error(png_structp png, png_const_charp message) {
  auto* reader = static_cast<Reader*>(png_get_error_ptr(png));
  std::snprintf(reader->message, sizeof(reader->message), "%s", message);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // a library does not print

void read_bytes(png_structp png, png_bytep out, png_size_t count) {
  auto* reader = static_cast<Reader*>(png_get_io_ptr(png));
  if (reader->left < count) {
    png_error(png, "Image is incomplete or truncated (the data ends inside a PNG chunk)");
  }
  std::memcpy(out, reader->next, count);
  reader->next += count;
  reader->left -= count;
}

struct DecodeState {
  Reader reader{};
  png_structp png = nullptr;
  png_infop info = nullptr;
  Tensor hwc;
  std::vector<png_bytep> rows;
  ~DecodeState() {
    if (png != nullptr) png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
  }
};

bool little_endian_host() {
  const std::uint16_t one = 1;
  std::uint8_t first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

int png_exif_orientation(png_structp png, png_infop info) {
  png_uint_32 size = 0;
  png_bytep exif = nullptr;
  if (png_get_eXIf_1(png, info, &size, &exif) == 0 || exif == nullptr) return -1;
  // The chunk holds the TIFF block; some writers keep JPEG's "Exif\0\0" in front of it.
  if (size > 6 && std::memcmp(exif, "Exif\0\0", 6) == 0) return exif_orientation_from_tiff(exif + 6, size - 6);
  return exif_orientation_from_tiff(exif, size);
}

}  // namespace

Tensor decode_png_cpu(const Tensor& data, ImageReadMode mode, bool apply_exif) {
  const auto* bytes = static_cast<const std::uint8_t*>(data.data());
  if (data.nbytes() < kSignatureBytes) throw Error(ErrorKind::Runtime, "decode_png", "Content is too small for png!");
  if (png_sig_cmp(bytes, 0, kSignatureBytes) != 0) throw Error(ErrorKind::Runtime, "decode_png", "Content is not png!");

  const auto state = std::make_unique<DecodeState>();
  DecodeState* const s = state.get();
  s->reader.next = bytes + kSignatureBytes;
  s->reader.left = data.nbytes() - kSignatureBytes;
  s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s->reader, on_error, on_warning);
  if (s->png == nullptr) throw Error(ErrorKind::Runtime, "decode_png", "libpng read structure allocation failed");
  s->info = png_create_info_struct(s->png);
  if (s->info == nullptr) throw Error(ErrorKind::Runtime, "decode_png", "libpng info structure allocation failed");
  if (setjmp(png_jmpbuf(s->png)) != 0) {
    throw Error(ErrorKind::Runtime, "decode_png", s->reader.message);
  }
  png_set_sig_bytes(s->png, kSignatureBytes);
  png_set_read_fn(s->png, &s->reader, read_bytes);
  png_read_info(s->png, s->info);

  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(s->png, s->info, &width, &height, &bit_depth, &color_type, &interlace, nullptr, nullptr);
  int channels = png_get_channels(s->png, s->info);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(s->png);
  const int passes = interlace == PNG_INTERLACE_ADAM7 ? png_set_interlace_handling(s->png) : 1;

  const bool palette = (color_type & PNG_COLOR_MASK_PALETTE) != 0;
  const bool color = (color_type & PNG_COLOR_MASK_COLOR) != 0;
  bool alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if (palette) {
    // libpng expands a palette to RGB (RGBA with a tRNS chunk), also below 8 bits per index.
    png_set_palette_to_rgb(s->png);
    alpha = mode == ImageReadMode::Unchanged && png_get_valid(s->png, s->info, PNG_INFO_tRNS) != 0;
    if (mode == ImageReadMode::Unchanged) {
      if (alpha) png_set_tRNS_to_alpha(s->png);
      channels = alpha ? 4 : 3;
    } else {
      alpha = true;  // torchvision's rule: treat the expanded palette as having alpha (stripped or kept below)
    }
  }
  switch (mode) {
    case ImageReadMode::Unchanged: break;
    case ImageReadMode::Gray:
      if (color_type != PNG_COLOR_TYPE_GRAY) {
        if (alpha) png_set_strip_alpha(s->png);
        if (color) png_set_rgb_to_gray(s->png, 1, 0.2989, 0.587);
        channels = 1;
      }
      break;
    case ImageReadMode::GrayAlpha:
      if (color_type != PNG_COLOR_TYPE_GRAY_ALPHA) {
        if (!alpha) png_set_add_alpha(s->png, (1u << bit_depth) - 1, PNG_FILLER_AFTER);
        if (color) png_set_rgb_to_gray(s->png, 1, 0.2989, 0.587);
        channels = 2;
      }
      break;
    case ImageReadMode::RGB:
      if (color_type != PNG_COLOR_TYPE_RGB) {
        if (!color) png_set_gray_to_rgb(s->png);
        if (alpha) png_set_strip_alpha(s->png);
        channels = 3;
      }
      break;
    case ImageReadMode::RGBAlpha:
      if (color_type != PNG_COLOR_TYPE_RGB_ALPHA) {
        if (!color) png_set_gray_to_rgb(s->png);
        if (!alpha) png_set_add_alpha(s->png, (1u << bit_depth) - 1, PNG_FILLER_AFTER);
        channels = 4;
      }
      break;
  }
  const bool sixteen = bit_depth == 16;
  if (sixteen && little_endian_host()) png_set_swap(s->png);
  png_read_update_info(s->png, s->info);
  if (static_cast<int>(png_get_rowbytes(s->png, s->info)) != static_cast<int>(width) * channels * (sixteen ? 2 : 1)) {
    png_error(s->png, "unexpected row size after the colour transformations");
  }

  s->hwc = empty({static_cast<std::int64_t>(height), static_cast<std::int64_t>(width), channels},
                 sixteen ? DType::UInt16 : DType::UInt8, Device::cpu());
  const std::size_t row_bytes = static_cast<std::size_t>(width) * channels * (sixteen ? 2 : 1);
  auto* base = static_cast<std::uint8_t*>(s->hwc.data());
  for (int pass = 0; pass < passes; ++pass) {
    for (png_uint_32 y = 0; y < height; ++y) png_read_row(s->png, base + row_bytes * y, nullptr);
  }
  const int orientation = apply_exif ? png_exif_orientation(s->png, s->info) : -1;
  const Tensor image = s->hwc.permute({2, 0, 1});
  return apply_exif ? apply_exif_orientation(image, orientation) : image;
}

namespace {

struct Writer {
  std::vector<std::uint8_t> bytes;
  char message[256];
};

[[noreturn]] void on_write_error(png_structp png, png_const_charp message) {
  auto* writer = static_cast<Writer*>(png_get_error_ptr(png));
  std::snprintf(writer->message, sizeof(writer->message), "%s", message);
  png_longjmp(png, 1);
}

void write_bytes(png_structp png, png_bytep data, png_size_t count) {
  auto* writer = static_cast<Writer*>(png_get_io_ptr(png));
  writer->bytes.insert(writer->bytes.end(), data, data + count);
}

void flush_bytes(png_structp) {}

struct EncodeState {
  Writer writer;
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~EncodeState() {
    if (png != nullptr) png_destroy_write_struct(&png, info != nullptr ? &info : nullptr);
  }
};

}  // namespace

Tensor encode_png_cpu(const Tensor& image, int compression_level) {
  const Tensor hwc = contiguous(image.permute({1, 2, 0}));
  const int channels = static_cast<int>(image.size(0));
  const auto height = static_cast<png_uint_32>(image.size(1)), width = static_cast<png_uint_32>(image.size(2));
  const bool sixteen = image.dtype() == DType::UInt16;
  static constexpr int kColorTypes[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                        PNG_COLOR_TYPE_RGB_ALPHA};
  const auto state = std::make_unique<EncodeState>();
  EncodeState* const s = state.get();
  s->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s->writer, on_write_error, on_warning);
  if (s->png == nullptr) throw Error(ErrorKind::Runtime, "encode_png", "libpng write structure allocation failed");
  s->info = png_create_info_struct(s->png);
  if (s->info == nullptr) throw Error(ErrorKind::Runtime, "encode_png", "libpng info structure allocation failed");
  if (setjmp(png_jmpbuf(s->png)) != 0) {
    throw Error(ErrorKind::Runtime, "encode_png", s->writer.message);
  }
  png_set_write_fn(s->png, &s->writer, write_bytes, flush_bytes);
  png_set_IHDR(s->png, s->info, width, height, sixteen ? 16 : 8, kColorTypes[channels - 1], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(s->png, compression_level);
  png_write_info(s->png, s->info);
  if (sixteen && little_endian_host()) png_set_swap(s->png);
  const auto* rows = static_cast<const std::uint8_t*>(hwc.data());
  const std::size_t row_bytes = static_cast<std::size_t>(width) * channels * (sixteen ? 2 : 1);
  for (png_uint_32 y = 0; y < height; ++y) png_write_row(s->png, const_cast<png_bytep>(rows + row_bytes * y));
  png_write_end(s->png, nullptr);
  return bytes_tensor(s->writer.bytes.data(), s->writer.bytes.size());
}

}  // namespace streamvision::io::detail
