// EXIF orientation: reading the tag from a TIFF-structured EXIF block (JPEG APP1 after "Exif\0\0",
// PNG eXIf chunk) and applying it to a decoded image as torchvision's exif_orientation_transform.
#include "io/codecs.hpp"
#include "streamvision/functional/flip.hpp"

namespace streamvision::io::detail {

namespace {

constexpr std::uint16_t kOrientationTag = 0x0112;

// A bounds-checked reader of the TIFF block's integers in its byte order.
struct TiffReader {
  const std::uint8_t* data;
  std::size_t size;
  bool little;

  bool u16(std::size_t offset, std::uint16_t& out) const {
    if (offset + 2 > size) return false;
    out = little ? static_cast<std::uint16_t>(data[offset] | (data[offset + 1] << 8))
                 : static_cast<std::uint16_t>((data[offset] << 8) | data[offset + 1]);
    return true;
  }
  bool u32(std::size_t offset, std::uint32_t& out) const {
    if (offset + 4 > size) return false;
    const std::uint32_t b0 = data[offset], b1 = data[offset + 1], b2 = data[offset + 2], b3 = data[offset + 3];
    out = little ? (b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)) : ((b0 << 24) | (b1 << 16) | (b2 << 8) | b3);
    return true;
  }
};

}  // namespace

int exif_orientation_from_tiff(const std::uint8_t* data, std::size_t size) {
  if (data == nullptr || size < 8 || data[0] != data[1] || (data[0] != 'I' && data[0] != 'M')) return -1;
  const TiffReader r{data, size, data[0] == 'I'};
  std::uint16_t mark = 0, entries = 0;
  std::uint32_t ifd = 0;
  if (!r.u16(2, mark) || mark != 0x2a || !r.u32(4, ifd) || !r.u16(ifd, entries)) return -1;
  // The first IFD: `entries` fields of 12 bytes (tag, type, count, value); a SHORT value sits in
  // the first two bytes of the value field.
  for (std::size_t i = 0; i < entries; ++i) {
    const std::size_t field = static_cast<std::size_t>(ifd) + 2 + 12 * i;
    std::uint16_t tag = 0, value = 0;
    if (!r.u16(field, tag)) return -1;
    if (tag == kOrientationTag) return r.u16(field + 8, value) ? value : -1;
  }
  return -1;
}

Tensor apply_exif_orientation(const Tensor& image, int orientation) {
  namespace F = functional;
  const Tensor transposed = orientation >= 5 && orientation <= 8 ? image.permute({0, 2, 1}) : image;
  switch (orientation) {
    case 2: return F::horizontal_flip(image);
    case 3: return F::vertical_flip(F::horizontal_flip(image));
    case 4: return F::vertical_flip(image);
    case 5: return transposed;
    case 6: return F::horizontal_flip(transposed);
    case 7: return F::vertical_flip(F::horizontal_flip(transposed));
    case 8: return F::vertical_flip(transposed);
    default: return image;
  }
}

}  // namespace streamvision::io::detail
