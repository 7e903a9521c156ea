// A 5x7 bitmap font (upper-case letters, digits, common punctuation; lower case drawn as upper
// case) for the contact sheet's labels: no font library needed.
#pragma once

#include <cstdint>
#include <string>

namespace svtool {

inline constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;

// Row r (0 = top) of character c: bit 4 is the leftmost pixel.
std::uint8_t glyph_row(char c, int r);

// Draws `text` into an RGB HWC canvas at (x, y) with `scale`-sized pixels, clipped to the canvas.
void draw_text(std::uint8_t* rgb, int width, int height, int x, int y, const std::string& text, int scale,
               const std::uint8_t color[3]);

}  // namespace svtool
