// Benchmarks of the colour, filter, noise and erase ops on a 64x3x1080x1920 batch, uint8 and
// float32 (contiguous; channels_last for the per-pixel and reduction ops). `bytes` is the
// fewest bytes any implementation must move: the input read once and the output written once
// (the reductions read their input twice, which shows in their share of the copy bandwidth).
#include "bench.hpp"

namespace svbench {
namespace {

std::vector<Case> color_cases(const Stream& stream) {
  std::vector<Case> cases;
  const Dims shape{64, 3, 1080, 1920};
  const double pixels = 64.0 * 1080 * 1920;
  for (MemoryFormat format : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast}) {
    const bool cl = format == MemoryFormat::ChannelsLast;
    const std::string layout = cl ? " channels_last" : " contiguous";
    for (DType dtype : {DType::UInt8, DType::Float32}) {
      const Tensor x = random_image(shape, dtype, format, stream);
      const double s = static_cast<double>(itemsize(dtype));
      const double rgb = 3 * pixels * s;  // one 3-channel image batch, in bytes
      const std::string d = shape_str(shape) + " " + dtype_name(dtype) + layout;
      auto add = [&](const std::string& name, double bytes, std::function<void(const Stream&)> run) {
        cases.push_back({name, d, bytes, std::move(run)});
      };
      // Per-pixel and reduction ops: both layouts.
      add("rgb_to_grayscale", rgb + pixels * s, [x](const Stream& st) { functional::rgb_to_grayscale(x, 1, st); });
      add("adjust_saturation", 2 * rgb, [x](const Stream& st) { functional::adjust_saturation(x, 0.7, st); });
      add("adjust_hue", 2 * rgb, [x](const Stream& st) { functional::adjust_hue(x, 0.2, st); });
      add("adjust_contrast", 2 * rgb, [x](const Stream& st) { functional::adjust_contrast(x, 0.7, st); });
      add("autocontrast", 2 * rgb, [x](const Stream& st) { functional::autocontrast(x, st); });
      add("equalize", 2 * rgb, [x](const Stream& st) { functional::equalize(x, st); });
      add("gaussian_blur k23 s5", 2 * rgb,
          [x](const Stream& st) { functional::gaussian_blur(x, {23, 23}, std::vector<double>{5.0}, st); });
      if (cl) continue;
      // Elementwise ops: the layout does not matter to them.
      add("rgb_to_grayscale 3", 2 * rgb, [x](const Stream& st) { functional::rgb_to_grayscale(x, 3, st); });
      add("adjust_brightness", 2 * rgb, [x](const Stream& st) { functional::adjust_brightness(x, 1.3, st); });
      add("adjust_gamma", 2 * rgb, [x](const Stream& st) { functional::adjust_gamma(x, 0.8, 1.0, st); });
      add("adjust_gamma gain", 2 * rgb, [x](const Stream& st) { functional::adjust_gamma(x, 2.2, 1.1, st); });
      add("invert", 2 * rgb, [x](const Stream& st) { functional::invert(x, st); });
      add("posterize", 2 * rgb, [x](const Stream& st) { functional::posterize(x, 3, st); });
      add("solarize", 2 * rgb, [x](const Stream& st) { functional::solarize(x, 0.5 * max_value(x.dtype()), st); });
      add("adjust_sharpness", 2 * rgb, [x](const Stream& st) { functional::adjust_sharpness(x, 1.7, st); });
      add("permute_channels", 2 * rgb, [x](const Stream& st) { functional::permute_channels(x, {2, 1, 0}, st); });
      add("gaussian_noise", 2 * rgb,
          [x](const Stream& st) { functional::gaussian_noise(x, 0.0, 0.1, true, PhiloxState{1, 0}, st); });
      add("gaussian_blur k3", 2 * rgb, [x](const Stream& st) { functional::gaussian_blur(x, {3, 3}, std::nullopt, st); });
      const Tensor v = empty({3, 1, 1}, dtype, x.device(), MemoryFormat::Contiguous, stream);
      add("erase (copy)", 2 * rgb, [x, v](const Stream& st) { functional::erase(x, 100, 200, 500, 800, v, false, st); });
      const Tensor gray = functional::rgb_to_grayscale(x, 1, stream);
      add("grayscale_to_rgb", pixels * s + rgb, [gray](const Stream& st) { functional::grayscale_to_rgb(gray, st); });
    }
  }
  // autocontrast of a 16-bit float type, and of planes that a cluster keeps whole in every type
  // (autocontrast_cluster.cuh; 1080p float16 and float32 planes take the three steps).
  // STREAMVISION_CUDA_NO_ONE_PASS_AUTOCONTRAST=1 times the three steps on the same cases.
  auto add_autocontrast = [&](const Dims& dims, DType dtype) {
    const Tensor x = random_image(dims, dtype, MemoryFormat::Contiguous, stream);
    const double bytes = 2 * static_cast<double>(x.numel()) * static_cast<double>(itemsize(dtype));
    cases.push_back({"autocontrast", shape_str(dims) + " " + dtype_name(dtype) + " contiguous", bytes,
                     [x](const Stream& st) { functional::autocontrast(x, st); }});
  };
  add_autocontrast(shape, DType::Float16);
  for (DType dtype : {DType::UInt8, DType::Float16, DType::Float32}) add_autocontrast({256, 3, 512, 512}, dtype);
  return cases;
}

SV_BENCH_CASES("color", color_cases);

}  // namespace
}  // namespace svbench
