// Internal: gaussian_noise's per-element math, shared by the CPU and CUDA engines.
//
// Element i (in the logical, row-major order of the tensor) gets normal i % 4 of Philox counter
// offset + i / 4 (kernels/philox.hpp). Then, as torchvision:
//  * float images: noise = mean + randn * sigma and out = image + noise, each step in the image
//    dtype (randn itself is drawn in that dtype), clamped to [0, 1] if clip;
//  * uint8 images: noise = (mean * 255 + randn_f32 * (sigma * 255)) truncated to int16, added in
//    int16, clamped to [0, 255] if clip, cast to uint8 (wrapping otherwise).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/color.hpp"
#include "kernels/philox.hpp"

namespace streamvision::kernels {

// The dtype of the standard normals torchvision draws for image dtype T: the image's own for
// floats, float32 for uint8 (given normals come in it; functional::gaussian_noise_normals_dtype).
template <class T>
using noise_normals_t = std::conditional_t<std::is_same_v<T, std::uint8_t>, float, T>;

template <class T>
struct NoiseOp {
  using F = opmath_t<T>;
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;  // the call's first counter
  F mean = 0;                // uint8: mean * 255
  F sigma = 0;               // uint8: sigma * 255
  bool clip = true;

  // mean_in_image_dtype: torch's CPU add rounds a Python scalar to a 16-bit image dtype before
  // adding (its CUDA add, and every mul, use the scalar in float): the CPU engine passes true so
  // that each engine gives what torch gives on its device.
  static NoiseOp make(double mean, double sigma, bool clip, std::uint64_t seed, std::uint64_t offset,
                      bool mean_in_image_dtype) {
    NoiseOp op;
    op.seed = seed;
    op.offset = offset;
    op.clip = clip;
    if constexpr (is_float_like<T>) {
      op.mean = mean_in_image_dtype ? to_opmath(cast<T>(mean)) : static_cast<F>(mean);
      op.sigma = static_cast<F>(sigma);
    } else {
      op.mean = static_cast<F>(mean * 255);
      op.sigma = static_cast<F>(sigma * 255);
    }
    return op;
  }

  SV_HOST_DEVICE SV_FORCE_INLINE T apply(T x, double z) const {
    if constexpr (is_float_like<T>) {
      const F randn = mat<T>(static_cast<F>(z));
      const F noise = mat<T>(mean + mat<T>(randn * sigma));
      F y = mat<T>(to_opmath(x) + noise);
      if (clip) y = clamp_value(y, F(0), F(1));
      return to_image<T>(y);
    } else {
      static_assert(std::is_same_v<T, std::uint8_t>, "gaussian_noise: uint8 or float images");
      const float noise = mean + static_cast<float>(z) * sigma;
      const std::int16_t n16 = cast<std::int16_t>(noise);
      std::int16_t y = static_cast<std::int16_t>(static_cast<std::int16_t>(x) + n16);
      if (clip) y = y < 0 ? std::int16_t(0) : (y > 255 ? std::int16_t(255) : y);
      return static_cast<std::uint8_t>(y);
    }
  }
};

}  // namespace streamvision::kernels
