#include "contact_sheet.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "bitmap_font.hpp"
#include "outputs.hpp"

namespace svtool {

namespace sv = streamvision;
namespace F = streamvision::functional;

namespace {

constexpr int kThumb = 192;   // thumbnails fit in kThumb x kThumb
constexpr int kPad = 8;
constexpr int kLabel = 2 * kGlyphHeight + 6;  // text scale 2 -> 14 px + margin

// A displayable uint8 RGB HWC thumbnail of any [C, H, W] result: float values min-max scaled to
// [0, 255] per image, 1 channel repeated, more than 3 channels cut to 3, fitted into kThumb.
sv::Tensor thumbnail(const sv::Tensor& image) {
  sv::Tensor x = image;
  if (x.dim() != 3) x = sv::contiguous(x).view(sv::Dims({1, 1, x.numel()}));  // not an image: one row
  x = sv::contiguous(F::to_dtype(x, sv::DType::Float32));
  const float* p = x.data_as<float>();
  float lo = 0, hi = 1;
  if (image.dtype() != sv::DType::UInt8 && x.numel() > 0) {
    lo = *std::min_element(p, p + x.numel());
    hi = *std::max_element(p, p + x.numel());
  } else {
    hi = 255;
  }
  const float span = hi > lo ? hi - lo : 1.0f;
  const std::int64_t c = x.size(0), h = x.size(1), w = x.size(2);
  sv::Tensor u8 = sv::empty({3, h, w}, sv::DType::UInt8, sv::Device::cpu());
  auto* out = u8.data_as<std::uint8_t>();
  for (std::int64_t ch = 0; ch < 3; ++ch) {
    const float* src = p + std::min(ch, c - 1) * h * w;
    for (std::int64_t i = 0; i < h * w; ++i) {
      out[ch * h * w + i] = static_cast<std::uint8_t>(std::lround(std::clamp((src[i] - lo) / span, 0.0f, 1.0f) * 255));
    }
  }
  const double scale = std::min(1.0, static_cast<double>(kThumb) / static_cast<double>(std::max(h, w)));
  const std::int64_t th = std::max<std::int64_t>(1, std::llround(h * scale));
  const std::int64_t tw = std::max<std::int64_t>(1, std::llround(w * scale));
  return sv::to_channels_last(F::resize(u8, {th, tw}));
}

void paste(std::vector<std::uint8_t>& canvas, int cw, const sv::Tensor& hwc_chw, int x0, int y0) {
  const sv::Tensor t = sv::to_channels_last(hwc_chw);
  const auto* src = t.data_as<std::uint8_t>();
  const int h = static_cast<int>(t.size(1)), w = static_cast<int>(t.size(2));
  for (int y = 0; y < h; ++y)
    std::copy(src + static_cast<std::size_t>(y) * w * 3, src + static_cast<std::size_t>(y + 1) * w * 3,
              canvas.begin() + (static_cast<std::size_t>(y0 + y) * cw + x0) * 3);
}

std::string describe(const sv::Tensor& t) {
  std::string s = sv::dtype_name(t.dtype());
  for (int d = 0; d < t.dim(); ++d) s += (d == 0 ? " " : "x") + std::to_string(t.size(d));
  return s;
}

}  // namespace

void write_contact_sheet(const std::filesystem::path& path, const std::vector<SheetEntry>& entries) {
  const int cell_w = kThumb + 2 * kPad, cell_h = kThumb + kLabel + 2 * kPad;
  const int width = 2 * cell_w, height = kLabel + static_cast<int>(std::max<std::size_t>(entries.size(), 1)) * cell_h;
  std::vector<std::uint8_t> canvas(static_cast<std::size_t>(width) * height * 3, 32);
  const std::uint8_t white[3] = {235, 235, 235}, grey[3] = {160, 160, 160};
  draw_text(canvas.data(), width, height, kPad, 4, "INPUT", 2, grey);
  draw_text(canvas.data(), width, height, cell_w + kPad, 4, "OUTPUT", 2, grey);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const int y0 = kLabel + static_cast<int>(i) * cell_h;
    // Labels at twice the font size when they fit, else at its size (cut to the cell).
    auto label = [&](const std::string& text, int x) {
      const int scale = static_cast<int>(text.size()) * kGlyphAdvance * 2 <= cell_w - kPad ? 2 : 1;
      draw_text(canvas.data(), width, height, x, y0 + kPad, text.substr(0, (cell_w - kPad) / (kGlyphAdvance * scale)),
                scale, white);
    };
    label(entries[i].name, kPad);
    label(describe(entries[i].output), cell_w + kPad);
    paste(canvas, width, thumbnail(entries[i].input), kPad, y0 + kPad + kLabel);
    paste(canvas, width, thumbnail(entries[i].output), cell_w + kPad, y0 + kPad + kLabel);
  }
  const sv::Tensor chw = sv::from_blob(canvas.data(), {3, height, width}, {1, static_cast<std::int64_t>(width) * 3, 3},
                                       sv::DType::UInt8, sv::Device::cpu(), nullptr);
  write_atomically(path, encode_output(chw, OutputFormat::Png));
}

}  // namespace svtool
