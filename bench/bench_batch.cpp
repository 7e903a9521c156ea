// Benchmarks of the batch ops from C++ (no Python on the host side), the kernels that the
// per-sample and fused transform chains run (bench_batch.py times those chains from Python), so
// that `scripts/gpu-check --profile` can put them under ncu (PROFILE_CASES=batch,
// PROFILE_KERNELS='tile_kernel|vertical_kernel|horizontal_kernel|pixel_map_kernel|contrast_reduce'):
//   * RandomResizedCrop 224 + flip + to_dtype + normalize of 256 uint8 images of 300-600 x
//     300-600 (a list), boxes as RandomResizedCrop draws them;
//   * Resize(256) + CenterCrop(224) + flip + to_dtype + normalize of 64x3x1080x1920 uint8;
//   * ColorJitter(0.4, 0.4, 0.4) per image on 256x3x224x224 uint8, alone and with to_dtype +
//     normalize in the same pass.
// `bytes` counts what must move at least: the boxes' pixels (or the images) read once, the
// output written once; the jitter reads its input twice (contrast's mean, then the pass).
#include <random>

#include "bench.hpp"

namespace svbench {
namespace {

// Uniform numbers in [0, 1) on the host, float32 [rows, cols].
Tensor uniform_cpu(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  Tensor t = empty({rows, cols}, DType::Float32, Device::cpu());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = u(rng);
  return t;
}

Tensor flips(std::int64_t n, const Stream& stream) {
  Tensor f = empty({n}, DType::Bool, Device::cpu());
  for (std::int64_t i = 0; i < n; ++i) f.data_as<bool>()[i] = i % 2 == 0;
  return to_device(f, Device::cuda(stream.device_index()), stream);
}

BatchTail imagenet_tail() {
  BatchTail tail;
  tail.dtype = DType::Float32;
  tail.mean = {0.485, 0.456, 0.406};
  tail.std = {0.229, 0.224, 0.225};
  return tail;
}

std::vector<Case> batch_cases(const Stream& stream) {
  std::vector<Case> cases;
  const Device gpu = Device::cuda(stream.device_index());

  {  // RandomResizedCrop 224 of a list of 256 images of 300-600 x 300-600.
    const std::int64_t n = 256;
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::int64_t> side(300, 600);
    std::vector<Tensor> images;
    std::vector<std::array<std::int64_t, 2>> sizes;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t h = side(rng), w = side(rng);
      images.push_back(random_image({3, h, w}, DType::UInt8, MemoryFormat::Contiguous, stream));
      sizes.push_back({h, w});
    }
    const Tensor boxes_cpu = functional::resized_crop_boxes(uniform_cpu(n, 22, 11), sizes, {0.08, 1.0}, {3.0 / 4.0, 4.0 / 3.0});
    double bytes = static_cast<double>(n) * 3 * 224 * 224 * 4;
    for (std::int64_t i = 0; i < n; ++i) {
      bytes += 3.0 * static_cast<double>(boxes_cpu.data_as<std::int64_t>()[4 * i + 2] * boxes_cpu.data_as<std::int64_t>()[4 * i + 3]);
    }
    const Tensor boxes = to_device(boxes_cpu, gpu, stream);
    const Tensor hflip = flips(n, stream);
    cases.push_back({"resized_crop_batch rrc224+flip+normalize", "256 images 300-600 uint8 -> float32", bytes,
                     [images, boxes, hflip](const Stream& st) {
                       functional::resized_crop_batch(images, boxes, {224, 224}, InterpolationMode::Bilinear, true, hflip,
                                                      imagenet_tail(), std::nullopt, MemoryFormat::Contiguous, st);
                     }});
  }
  {  // Resize(256) + CenterCrop(224) + flip + to_dtype + normalize of 64 1080p images.
    const std::int64_t n = 64;
    const Tensor batch = random_image({n, 3, 1080, 1920}, DType::UInt8, MemoryFormat::Contiguous, stream);
    std::vector<Tensor> images;
    Tensor boxes_cpu = empty({n, 4}, DType::Int64, Device::cpu());
    for (std::int64_t i = 0; i < n; ++i) {
      images.push_back(batch.select(0, i));
      const std::int64_t box[4] = {0, 0, 1080, 1920};
      std::copy(box, box + 4, boxes_cpu.data_as<std::int64_t>() + 4 * i);
    }
    const Tensor boxes = to_device(boxes_cpu, gpu, stream);
    const Tensor hflip = flips(n, stream);
    // torchvision's Resize(256) of 1080x1920: 256x455; CenterCrop(224): top 16, left 116.
    const BatchWindow window{256, 455, 16, 116};
    const double bytes = static_cast<double>(n) * 3 * (1080.0 * 1920 + 224.0 * 224 * 4);
    cases.push_back({"resized_crop_batch resize256+crop224+flip+normalize", "64x3x1080x1920 uint8 -> float32", bytes,
                     [images, boxes, hflip, window](const Stream& st) {
                       functional::resized_crop_batch(images, boxes, {224, 224}, InterpolationMode::Bilinear, true, hflip,
                                                      imagenet_tail(), window, MemoryFormat::Contiguous, st);
                     }});
  }
  {  // ColorJitter(0.4, 0.4, 0.4) with each image's own factors and order.
    const std::int64_t n = 256;
    const Tensor x = random_image({n, 3, 224, 224}, DType::UInt8, MemoryFormat::Contiguous, stream);
    const std::array<std::optional<std::array<double, 2>>, 4> ranges{std::array<double, 2>{0.6, 1.4},
                                                                      std::array<double, 2>{0.6, 1.4},
                                                                      std::array<double, 2>{0.6, 1.4}, std::nullopt};
    const auto params = functional::color_jitter_params(to_device(uniform_cpu(n, 8, 13), gpu, stream), ranges, stream);
    const Tensor factors = params[0], order = params[1];
    const std::array<bool, 4> enabled{true, true, true, false};
    const double rgb = static_cast<double>(n) * 3 * 224 * 224;
    cases.push_back({"color_jitter_batch b/c/s", "256x3x224x224 uint8", 3 * rgb, [x, factors, order, enabled](const Stream& st) {
                       functional::color_jitter_batch(x, factors, order, enabled, {}, st);
                     }});
    cases.push_back({"color_jitter_batch b/c/s+to_dtype+normalize", "256x3x224x224 uint8 -> float32", 2 * rgb + 4 * rgb,
                     [x, factors, order, enabled](const Stream& st) {
                       functional::color_jitter_batch(x, factors, order, enabled, imagenet_tail(), st);
                     }});
  }
  return cases;
}

SV_BENCH_CASES("batch", batch_cases);

}  // namespace
}  // namespace svbench
