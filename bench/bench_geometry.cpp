// Benchmarks of the geometry ops on a 64x3x1080x1920 batch (uint8, and float32 for resize), the
// sizes of issue 4's targets. `bytes` is the fewest bytes any implementation must move:
//  * antialiased resize, pad, crops and the warps: the bytes of the input they read (the whole
//    input, or the cropped window) plus the output;
//  * resize without antialias: the output plus the input values its taps read (1 per output
//    for nearest, 4 for bilinear, 16 for bicubic), at most the whole input.
// The warps run on the full batch: every output pixel samples the input, so reading it once is
// the floor, as for resize.
#include <algorithm>

#include "bench.hpp"

namespace svbench {
namespace {

std::vector<Case> geometry_cases(const Stream& stream) {
  std::vector<Case> cases;
  const Dims shape{64, 3, 1080, 1920};
  const double planes = 64.0 * 3, pixels = 1080.0 * 1920, n = planes * pixels;
  const double out224 = planes * 224 * 224;
  const std::vector<std::int64_t> to224{224, 224};
  for (MemoryFormat format : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast}) {
    const bool cl = format == MemoryFormat::ChannelsLast;
    const std::string layout = cl ? " channels_last" : " contiguous";
    const Tensor u8 = random_image(shape, DType::UInt8, format, stream);
    const std::string u8s = shape_str(shape) + " uint8" + layout;
    // resize to 224x224
    cases.push_back({"resize bilinear aa", u8s + " -> 224x224", n + out224, [u8, to224](const Stream& s) {
                       functional::resize(u8, to224, InterpolationMode::Bilinear, std::nullopt, true, s);
                     }});
    cases.push_back({"resize bicubic aa", u8s + " -> 224x224", n + out224, [u8, to224](const Stream& s) {
                       functional::resize(u8, to224, InterpolationMode::Bicubic, std::nullopt, true, s);
                     }});
    if (cl) continue;  // the remaining cases once, on the contiguous batch
    const std::vector<std::int64_t> to540{540, 960};
    cases.push_back({"resize bilinear aa", u8s + " -> 540x960", n + planes * 540 * 960, [u8, to540](const Stream& s) {
                       functional::resize(u8, to540, InterpolationMode::Bilinear, std::nullopt, true, s);
                     }});
    const Tensor small = random_image({256, 3, 300, 300}, DType::UInt8, MemoryFormat::Contiguous, stream);
    cases.push_back({"resize bilinear aa", "256x3x300x300 uint8 contiguous -> 224x224", 256.0 * 3 * (300 * 300 + 224 * 224),
                     [small, to224](const Stream& s) {
                       functional::resize(small, to224, InterpolationMode::Bilinear, std::nullopt, true, s);
                     }});
    cases.push_back({"resize bilinear", u8s + " -> 224x224", out224 * 5, [u8, to224](const Stream& s) {
                       functional::resize(u8, to224, InterpolationMode::Bilinear, std::nullopt, false, s);
                     }});
    cases.push_back({"resize bicubic", u8s + " -> 224x224", out224 * 17, [u8, to224](const Stream& s) {
                       functional::resize(u8, to224, InterpolationMode::Bicubic, std::nullopt, false, s);
                     }});
    cases.push_back({"resize nearest", u8s + " -> 224x224", out224 * 2, [u8, to224](const Stream& s) {
                       functional::resize(u8, to224, InterpolationMode::Nearest, std::nullopt, false, s);
                     }});
    // crops and pad
    cases.push_back({"center_crop", u8s + " -> 224x224", out224 * 2,
                     [u8](const Stream& s) { functional::center_crop(u8, {224}, s); }});
    const double big_crop = planes * 1024 * 1800;
    cases.push_back({"center_crop", u8s + " -> 1024x1800", big_crop * 2,
                     [u8](const Stream& s) { functional::center_crop(u8, {1024, 1800}, s); }});
    cases.push_back({"crop", u8s + " (3, 5, 1024, 1800)", big_crop * 2,
                     [u8](const Stream& s) { functional::crop(u8, 3, 5, 1024, 1800, s); }});
    const double padded = planes * 1088 * 1928;
    cases.push_back({"pad 4 constant", u8s, n + padded,
                     [u8](const Stream& s) { functional::pad(u8, {4}, std::vector<double>{0}, PaddingMode::Constant, s); }});
    cases.push_back({"pad 4 reflect", u8s, n + padded,
                     [u8](const Stream& s) { functional::pad(u8, {4}, std::nullopt, PaddingMode::Reflect, s); }});
    // warps: bilinear with a fill
    const Fill fill = std::vector<double>{114};
    cases.push_back({"rotate 30 bilinear fill", u8s, 2 * n, [u8, fill](const Stream& s) {
                       functional::rotate(u8, 30, InterpolationMode::Bilinear, false, std::nullopt, fill, s);
                     }});
    cases.push_back({"affine bilinear fill", u8s, 2 * n, [u8, fill](const Stream& s) {
                       functional::affine(u8, 15, {40, -25}, 1.1, {8, 3}, InterpolationMode::Bilinear, fill, std::nullopt, s);
                     }});
    const std::vector<double> coeffs{1.02, 0.05, -30, -0.03, 0.98, 20, 2e-5, -1e-5};
    cases.push_back({"perspective bilinear fill", u8s, 2 * n, [u8, fill, coeffs](const Stream& s) {
                       functional::perspective(u8, std::nullopt, std::nullopt, InterpolationMode::Bilinear, fill, coeffs, s);
                     }});
    cases.push_back({"rotate 90 (fast path)", u8s, 2 * n, [u8](const Stream& s) {
                       functional::rotate(u8, 90, InterpolationMode::Nearest, true, std::nullopt, std::nullopt, s);
                     }});
    // rotate 90 is a transposed view (torch.rot90's); its contiguous copy is the transpose.
    const Tensor turned = functional::rotate(u8, 90, InterpolationMode::Nearest, true, std::nullopt, std::nullopt, stream);
    cases.push_back({"contiguous of rotate 90", u8s, 2 * n, [turned](const Stream& s) {
                       functional::convert_layout(turned, MemoryFormat::Contiguous, s);
                     }});
  }
  // float32 resize
  const Tensor f32 = random_image(shape, DType::Float32, MemoryFormat::Contiguous, stream);
  const std::string f32s = shape_str(shape) + " float32 contiguous";
  cases.push_back({"resize bilinear aa", f32s + " -> 224x224", 4 * (n + out224), [f32, to224](const Stream& s) {
                     functional::resize(f32, to224, InterpolationMode::Bilinear, std::nullopt, true, s);
                   }});
  cases.push_back({"resize bicubic aa", f32s + " -> 224x224", 4 * (n + out224), [f32, to224](const Stream& s) {
                     functional::resize(f32, to224, InterpolationMode::Bicubic, std::nullopt, true, s);
                   }});
  cases.push_back({"resize bilinear", f32s + " -> 224x224", 4 * out224 * 5, [f32, to224](const Stream& s) {
                     functional::resize(f32, to224, InterpolationMode::Bilinear, std::nullopt, false, s);
                   }});
  cases.push_back({"rotate 270 (fast path)", f32s, 8 * n, [f32](const Stream& s) {
                     functional::rotate(f32, 270, InterpolationMode::Nearest, true, std::nullopt, std::nullopt, s);
                   }});
  const Tensor turned = functional::rotate(f32, 270, InterpolationMode::Nearest, true, std::nullopt, std::nullopt, stream);
  cases.push_back({"contiguous of rotate 270", f32s, 8 * n, [turned](const Stream& s) {
                     functional::convert_layout(turned, MemoryFormat::Contiguous, s);
                   }});
  return cases;
}

SV_BENCH_CASES("geometry", geometry_cases);

}  // namespace
}  // namespace svbench
