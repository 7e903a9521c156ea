// JPEG on the CPU with libjpeg-turbo, with torchvision.io's settings so that results are its
// results bit for bit: libjpeg's default decompression parameters (islow DCT, fancy upsampling),
// libjpeg's own colour conversion to RGB or gray, CMYK/YCCK converted line by line with Pillow's
// integer formulas (torchvision's), the EXIF orientation read from the first APP1 marker.
//
// libjpeg reports errors through error_exit, which must not return: we longjmp back to the
// decode function. Everything the decoder touches after setjmp lives in a heap State reached
// through a pointer, so no C++ object's lifetime is skipped and no local needs `volatile`.
#include <algorithm>
#include <csetjmp>
#include <cstddef>
#include <cstdio>  // jpeglib.h needs size_t and FILE declared first
#include <cstdlib>
#include <memory>
#include <vector>

#include <jpeglib.h>

#include "io/codecs.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::io::detail {

namespace {

constexpr int kApp1 = JPEG_APP0 + 1;
constexpr JOCTET kEndOfImage[2] = {0xFF, JPEG_EOI};

struct ErrorManager {
  jpeg_error_mgr base;  // first: libjpeg sees &base
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void error_exit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  cinfo->err->format_message(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings ("Corrupt JPEG data: N extraneous bytes") are not printed: a library must not write
// to stderr (the command-line program draws a progress bar there).
void output_message(j_common_ptr) {}

// The whole encoded image is in memory: running out of data means it is truncated.
boolean fill_input_buffer(j_decompress_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  std::snprintf(err->message, sizeof(err->message), "%s", "Image is incomplete or truncated");
  std::longjmp(err->jump, 1);
}

void skip_input_data(j_decompress_ptr cinfo, long count) {
  jpeg_source_mgr* src = cinfo->src;
  if (count <= 0) return;
  if (src->bytes_in_buffer < static_cast<std::size_t>(count)) {
    // Skipping past the end: feed an EOI marker, as libjpeg's own memory source does.
    src->next_input_byte = kEndOfImage;
    src->bytes_in_buffer = 2;
  } else {
    src->next_input_byte += count;
    src->bytes_in_buffer -= static_cast<std::size_t>(count);
  }
}

void no_op(j_decompress_ptr) {}

// Pillow's CMYK -> RGB: 255 - c scaled by (255 - k), with its rounding (what torchvision uses).
inline std::uint8_t cmyk_channel(int k, int cmy) {
  int v = k * cmy + 128;
  v = ((v >> 8) + v) >> 8;
  return static_cast<std::uint8_t>(std::clamp(k - v, 0, 255));
}

// Pillow's RGB -> L (ITU-R 601-2 luma, 16-bit fixed point).
inline std::uint8_t luma(int r, int g, int b) {
  return static_cast<std::uint8_t>((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16);
}

void convert_cmyk_line(const std::uint8_t* cmyk, std::uint8_t* out, int width, int channels) {
  for (int i = 0; i < width; ++i) {
    const int k = cmyk[4 * i + 3];
    const std::uint8_t r = cmyk_channel(k, 255 - cmyk[4 * i]);
    const std::uint8_t g = cmyk_channel(k, 255 - cmyk[4 * i + 1]);
    const std::uint8_t b = cmyk_channel(k, 255 - cmyk[4 * i + 2]);
    if (channels == 3) {
      out[3 * i] = r;
      out[3 * i + 1] = g;
      out[3 * i + 2] = b;
    } else {
      out[i] = luma(r, g, b);
    }
  }
}

int jpeg_exif_orientation(j_decompress_ptr cinfo) {
  for (jpeg_saved_marker_ptr m = cinfo->marker_list; m != nullptr; m = m->next) {
    if (m->marker != kApp1) continue;
    // "Exif\0\0", then the TIFF block. Only the first APP1 counts (torchvision's rule).
    constexpr std::size_t kHeader = 6;
    if (m->data_length <= kHeader) return -1;
    return exif_orientation_from_tiff(m->data + kHeader, m->data_length - kHeader);
  }
  return -1;
}

struct DecodeState {
  jpeg_decompress_struct cinfo{};
  ErrorManager err{};
  jpeg_source_mgr src{};
  bool created = false;
  Tensor hwc;
  std::vector<std::uint8_t> cmyk_line;
  ~DecodeState() {
    if (created) jpeg_destroy_decompress(&cinfo);
  }
};

}  // namespace

Tensor decode_jpeg_cpu(const Tensor& data, ImageReadMode mode, bool apply_exif) {
  if (mode != ImageReadMode::Unchanged && mode != ImageReadMode::Gray && mode != ImageReadMode::RGB) {
    throw Error(ErrorKind::Runtime, "decode_jpeg",
                std::string("The provided mode is not supported for JPEG files (mode=") + image_read_mode_name(mode) +
                    "; JPEG supports UNCHANGED, GRAY and RGB)");
  }
  const auto state = std::make_unique<DecodeState>();
  DecodeState* const s = state.get();
  s->cinfo.err = jpeg_std_error(&s->err.base);
  s->err.base.error_exit = error_exit;
  s->err.base.output_message = output_message;
  if (setjmp(s->err.jump) != 0) {
    throw Error(ErrorKind::Runtime, "decode_jpeg", s->err.message);
  }
  jpeg_create_decompress(&s->cinfo);
  s->created = true;
  s->src.next_input_byte = static_cast<const JOCTET*>(data.data());
  s->src.bytes_in_buffer = data.nbytes();
  s->src.init_source = no_op;
  s->src.fill_input_buffer = fill_input_buffer;
  s->src.skip_input_data = skip_input_data;
  s->src.resync_to_restart = jpeg_resync_to_restart;
  s->src.term_source = no_op;
  s->cinfo.src = &s->src;
  jpeg_save_markers(&s->cinfo, kApp1, 0xFFFF);
  jpeg_read_header(&s->cinfo, TRUE);

  int channels = s->cinfo.num_components;
  bool convert_cmyk = false;
  if (mode != ImageReadMode::Unchanged) {
    // libjpeg cannot convert CMYK/YCCK to RGB or gray: decode to CMYK and convert each line.
    convert_cmyk = s->cinfo.jpeg_color_space == JCS_CMYK || s->cinfo.jpeg_color_space == JCS_YCCK;
    channels = mode == ImageReadMode::Gray ? 1 : 3;
    s->cinfo.out_color_space = convert_cmyk ? JCS_CMYK : (channels == 1 ? JCS_GRAYSCALE : JCS_RGB);
  }
  jpeg_start_decompress(&s->cinfo);
  const int height = static_cast<int>(s->cinfo.output_height), width = static_cast<int>(s->cinfo.output_width);
  s->hwc = empty({height, width, channels}, DType::UInt8, Device::cpu());
  if (convert_cmyk) s->cmyk_line.resize(static_cast<std::size_t>(width) * 4);
  auto* out = static_cast<std::uint8_t*>(s->hwc.data());
  const std::size_t stride = static_cast<std::size_t>(width) * channels;
  while (s->cinfo.output_scanline < s->cinfo.output_height) {
    std::uint8_t* row = out + stride * s->cinfo.output_scanline;
    JSAMPROW target = convert_cmyk ? s->cmyk_line.data() : row;
    jpeg_read_scanlines(&s->cinfo, &target, 1);
    if (convert_cmyk) convert_cmyk_line(s->cmyk_line.data(), row, width, channels);
  }
  const int orientation = apply_exif ? jpeg_exif_orientation(&s->cinfo) : -1;
  jpeg_finish_decompress(&s->cinfo);
  const Tensor image = s->hwc.permute({2, 0, 1});
  return apply_exif ? apply_exif_orientation(image, orientation) : image;
}

namespace {

struct EncodeState {
  jpeg_compress_struct cinfo{};
  ErrorManager err{};
  bool created = false;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  ~EncodeState() {
    if (created) jpeg_destroy_compress(&cinfo);
    std::free(buffer);  // allocated by jpeg_mem_dest with malloc
  }
};

}  // namespace

Tensor encode_jpeg_cpu(const Tensor& image, int quality) {
  // HWC rows, as libjpeg reads them.
  const Tensor hwc = contiguous(image.permute({1, 2, 0}));
  const int height = static_cast<int>(image.size(1)), width = static_cast<int>(image.size(2));
  const int channels = static_cast<int>(image.size(0));
  const auto state = std::make_unique<EncodeState>();
  EncodeState* const s = state.get();
  s->cinfo.err = jpeg_std_error(&s->err.base);
  s->err.base.error_exit = error_exit;
  s->err.base.output_message = output_message;
  if (setjmp(s->err.jump) != 0) {
    throw Error(ErrorKind::Runtime, "encode_jpeg", s->err.message);
  }
  jpeg_create_compress(&s->cinfo);
  s->created = true;
  jpeg_mem_dest(&s->cinfo, &s->buffer, &s->size);
  s->cinfo.image_width = static_cast<JDIMENSION>(width);
  s->cinfo.image_height = static_cast<JDIMENSION>(height);
  s->cinfo.input_components = channels;
  s->cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&s->cinfo);
  jpeg_set_quality(&s->cinfo, quality, TRUE);
  jpeg_start_compress(&s->cinfo, TRUE);
  const auto* rows = static_cast<const std::uint8_t*>(hwc.data());
  const std::size_t stride = static_cast<std::size_t>(width) * channels;
  while (s->cinfo.next_scanline < s->cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(rows + stride * s->cinfo.next_scanline);
    jpeg_write_scanlines(&s->cinfo, &row, 1);
  }
  jpeg_finish_compress(&s->cinfo);
  return bytes_tensor(s->buffer, s->size);
}

}  // namespace streamvision::io::detail
