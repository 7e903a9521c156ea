// gaussian_noise (torchvision.transforms.v2.functional, _misc.py).
//
// gaussian_noise(image, mean, sigma, clip): float images x + mean + randn * sigma (clamped to
// [0, 1] if clip), uint8 images with int16 noise (mean * 255 + randn * sigma * 255); other
// dtypes raise ValueError. Normals come from a counter-based generator (Philox4x32-10 with
// Box-Muller): element i (row-major) of a call depends only on (seed, offset, i), so CPU and CUDA
// give the same values, and the values differ from torch's (the distribution is the same). A
// call reserves ceil(numel / 4) counters of the generator (default: the process-wide one).
#pragma once

#include <cstdint>
#include <optional>

#include "streamvision/core/generator.hpp"
#include "streamvision/core/registry.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision {

namespace ops {
// Where gaussian_noise's standard normals come from: streamvision's Philox stream (element i,
// row-major, uses counter state.offset + i / 4), or a tensor of the input's shape holding them
// (drawn by the caller, e.g. with torch.randn_like so that torch's generator decides; dtype
// gaussian_noise_normals_dtype(input)).
struct NoiseSource {
  PhiloxState state;
  Tensor normals;  // defined: read the normals from here instead of Philox
};
// Kernel contract: output of the input's shape and dtype (uint8 or float).
struct GaussianNoise {
  static constexpr const char* name = "gaussian_noise";
  using Kernel = void (*)(const Tensor& input, const Tensor& output, double mean, double sigma, bool clip,
                          const NoiseSource& source, const Stream& stream);
};
}  // namespace ops

namespace functional {

// Draws from `generator` (nullptr: Generator::default_generator()).
Tensor gaussian_noise(const Tensor& image, double mean = 0.0, double sigma = 0.1, bool clip = true,
                      Generator* generator = nullptr, const std::optional<Stream>& stream = std::nullopt);
// Draws from an explicit seed and offset (nothing is advanced).
Tensor gaussian_noise(const Tensor& image, double mean, double sigma, bool clip, const PhiloxState& state,
                      const std::optional<Stream>& stream = std::nullopt);

// With the standard normals given (`normals`: the image's shape, dtype
// gaussian_noise_normals_dtype(image)): the values torchvision computes from the same draws.
Tensor gaussian_noise(const Tensor& image, const Tensor& normals, double mean, double sigma, bool clip,
                      const std::optional<Stream>& stream = std::nullopt);
// The dtype torchvision draws gaussian_noise's normals in for `image` (the image's dtype for
// floats, float32 for uint8); validates image and sigma as gaussian_noise does, so a caller can
// check before it draws.
DType gaussian_noise_normals_dtype(const Tensor& image, double sigma);

// Philox counters a gaussian_noise call on `image` reserves: ceil(numel / 4).
std::uint64_t gaussian_noise_counters(const Tensor& image);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::GaussianNoise)
