// Internal: the single-image CPU codecs behind the io front end (decode_image.cpp). Each takes
// validated input (a non-empty 1-D uint8 CPU tensor of bytes, or a uint8/uint16 [C, H, W] image)
// and throws Error(op, message) for bad data; none touches a device or a stream.
#pragma once

#include <cstddef>
#include <cstdint>

#include "streamvision/io/image_io.hpp"

namespace streamvision::io::detail {

// libjpeg-turbo with torchvision's settings (islow DCT, fancy upsampling: libjpeg's defaults),
// CMYK/YCCK converted to RGB or gray as torchvision does. Returns a channels_last [C, H, W]
// uint8 image, the EXIF orientation applied when asked.
Tensor decode_jpeg_cpu(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation);
Tensor encode_jpeg_cpu(const Tensor& image, int quality);

// libpng with torchvision's transformations for each mode; 16-bit images decode to uint16.
Tensor decode_png_cpu(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation);
Tensor encode_png_cpu(const Tensor& image, int compression_level);

// The orientation (1-8) in an EXIF block that starts with the TIFF header ("II*\0" or
// "MM\0*"), or -1 when there is none or the block is malformed.
int exif_orientation_from_tiff(const std::uint8_t* data, std::size_t size);
// torchvision's exif_orientation_transform: flips and transposes for orientations 2-8; other
// values return the image unchanged.
Tensor apply_exif_orientation(const Tensor& image, int orientation);

// Whether a JPEG's entropy-coded data (after its first SOS) is followed by an End Of Image
// marker, FF D9: false for a truncated file (the GPU decoder sends those to the CPU decoder,
// whose error names them, as torchvision's does) and for bytes that are not a JPEG.
bool jpeg_has_end_of_image(const std::uint8_t* data, std::size_t size);

// A new 1-D uint8 CPU tensor holding `size` bytes copied from `bytes`.
Tensor bytes_tensor(const std::uint8_t* bytes, std::size_t size);

// The input checks every decoder shares: a non-empty 1-D uint8 CPU tensor (contiguous).
void check_encoded(const Tensor& data, const char* op);

}  // namespace streamvision::io::detail
