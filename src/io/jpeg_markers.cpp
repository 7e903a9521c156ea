// JPEG marker checks on the raw bytes, before any decoder sees them.
#include "io/codecs.hpp"

namespace streamvision::io::detail {

// Whether the entropy-coded data is followed by an End Of Image marker: the marker segments are
// walked from SOI to the first SOS (an EXIF thumbnail in APP1 carries markers of its own), then
// FF D9 is looked for after it (inside scans a data FF is stuffed as FF 00, restart markers are
// FF D0-D7). The hardware engine decodes a truncated stream without complaint; the CPU decoder,
// like torchvision's, reports it ("Image is incomplete or truncated"), so such images go to it.
// The marker is looked for from the end of the file, where a whole file has it: a forward scan
// of the entropy-coded data cost 66 us per 100 KB image on the host, more than the engine's
// decode of it.
bool jpeg_has_end_of_image(const std::uint8_t* p, std::size_t n) {
  if (n < 4 || p[0] != 0xFF || p[1] != 0xD8) return false;
  std::size_t i = 2;
  while (i + 4 <= n) {
    if (p[i] != 0xFF) return false;
    const unsigned char marker = p[i + 1];
    if (marker == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    const std::size_t length = (static_cast<std::size_t>(p[i + 2]) << 8) | p[i + 3];
    if (marker == 0xDA) {  // SOS: entropy-coded data follows its header
      const std::size_t scan = i + 2 + length;
      for (std::size_t j = n; j >= scan + 2; --j) {  // FF D9 at j - 2, j - 1
        if (p[j - 1] == 0xD9 && p[j - 2] == 0xFF) return true;
      }
      return false;
    }
    i += 2 + length;
  }
  return false;
}

}  // namespace streamvision::io::detail
