// Benchmarks of the foundation ops on a 64x3x1080x1920 batch: uint8 and float32, contiguous and
// channels_last inputs.
#include "bench.hpp"

namespace svbench {
namespace {

std::vector<Case> core_cases(const Stream& stream) {
  std::vector<Case> cases;
  const Dims shape{64, 3, 1080, 1920};
  const double n = 64.0 * 3 * 1080 * 1920;
  const std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
  for (MemoryFormat format : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast}) {
    const std::string layout = format == MemoryFormat::Contiguous ? " contiguous" : " channels_last";
    const Tensor u8 = random_image(shape, DType::UInt8, format, stream);
    const Tensor f32 = random_image(shape, DType::Float32, format, stream);
    const std::string u8s = shape_str(shape) + " uint8" + layout, f32s = shape_str(shape) + " float32" + layout;
    cases.push_back({"horizontal_flip", u8s, 2 * n, [u8](const Stream& s) { functional::horizontal_flip(u8, s); }});
    cases.push_back({"vertical_flip", u8s, 2 * n, [u8](const Stream& s) { functional::vertical_flip(u8, s); }});
    cases.push_back({"horizontal_flip", f32s, 8 * n, [f32](const Stream& s) { functional::horizontal_flip(f32, s); }});
    cases.push_back({"vertical_flip", f32s, 8 * n, [f32](const Stream& s) { functional::vertical_flip(f32, s); }});
    cases.push_back({"to_dtype u8->f32 scale", u8s, 5 * n,
                     [u8](const Stream& s) { functional::to_dtype(u8, DType::Float32, true, s); }});
    cases.push_back({"to_dtype f32->u8 scale", f32s, 5 * n,
                     [f32](const Stream& s) { functional::to_dtype(f32, DType::UInt8, true, s); }});
    cases.push_back({"normalize", f32s, 8 * n, [=](const Stream& s) { functional::normalize(f32, mean, std, false, s); }});
    cases.push_back({"normalize inplace", f32s, 8 * n,
                     [=](const Stream& s) { functional::normalize(f32, mean, std, true, s); }});
    const MemoryFormat other = format == MemoryFormat::Contiguous ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
    cases.push_back({format == MemoryFormat::Contiguous ? "convert_layout ->NHWC" : "convert_layout ->NCHW", u8s, 2 * n,
                     [u8, other](const Stream& s) { functional::convert_layout(u8, other, s); }});
  }
  return cases;
}

SV_BENCH_CASES("core", core_cases);

}  // namespace
}  // namespace svbench
