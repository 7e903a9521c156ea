// RandomResizedCrop's box for one image from uniform random numbers: torchvision's get_params,
// shared by the CPU loop (functional/batch.cpp) and the CUDA kernel (cuda/resized_crop_boxes.cu).
//
// torchvision draws, per attempt, an area fraction uniform in scale and a log aspect ratio
// uniform in log(ratio) (both float32), takes w = round(sqrt(area * fraction * aspect)) and
// h = round(sqrt(area * fraction / aspect)) (Python's round: half to even), and keeps the first
// attempt whose box fits, at a position uniform over the places it fits; after `attempts`
// failures, the centred box of the in-range ratio closest to the image's. Here every attempt's
// two numbers come from u[2a] and u[2a + 1] and the position from the last two, so all the
// draws of a batch are one [N, 2 * attempts + 2] uniform tensor made by torch's generator on the
// batch's device (graph-safe: a captured replay draws new numbers).
//
// Both engines compute in the same order with the same roundings (nvcc --fmad=false). The aspect
// ratio's exp is taken in double (torchvision's is float32): CUDA's and the C library's float32
// exp differ in the last bit often enough to move a box across a rounding tie every few thousand
// images; in double they agree (or differ by 1e-16), so both engines give the same boxes from
// the same numbers.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/sampling.hpp"
#include "kernels/uniform.hpp"
#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

struct CropBoxRule {
  int attempts = 10;
  float scale_lo = 0.08f, scale_hi = 1.0f;      // area fraction
  float log_ratio_lo = 0.f, log_ratio_hi = 0.f;  // float32 logs of the ratio bounds, as torchvision's
  double ratio_lo = 1.0, ratio_hi = 1.0;         // the ratio bounds, for the fallback
};

// The rule of RandomResizedCrop(scale, ratio) with `attempts` draws (10, torchvision's); the
// front end has checked lo <= hi for both.
inline CropBoxRule make_crop_box_rule(int attempts, double scale_lo, double scale_hi, double ratio_lo, double ratio_hi) {
  CropBoxRule r;
  r.attempts = attempts;
  r.scale_lo = static_cast<float>(scale_lo);
  r.scale_hi = static_cast<float>(scale_hi);
  r.log_ratio_lo = std::log(static_cast<float>(ratio_lo));
  r.log_ratio_hi = std::log(static_cast<float>(ratio_hi));
  r.ratio_lo = ratio_lo;
  r.ratio_hi = ratio_hi;
  return r;
}

// box = (top, left, height, width) of an image `height` x `width` (both > 0).
SV_HOST_DEVICE inline void resized_crop_box(const CropBoxRule& r, const float* u, std::int64_t height, std::int64_t width,
                                            std::int64_t* box) {
  const double area = static_cast<double>(height) * static_cast<double>(width);
  for (int a = 0; a < r.attempts; ++a) {
    const double target = area * static_cast<double>(uniform_in(u[2 * a], r.scale_lo, r.scale_hi));
    const double aspect = exp(static_cast<double>(uniform_in(u[2 * a + 1], r.log_ratio_lo, r.log_ratio_hi)));
    const double w = round_half_even(sqrt(target * aspect));
    const double h = round_half_even(sqrt(target / aspect));
    if (w > 0 && w <= static_cast<double>(width) && h > 0 && h <= static_cast<double>(height)) {
      const auto hi = static_cast<std::int64_t>(h), wi = static_cast<std::int64_t>(w);
      box[0] = uniform_index(u[2 * r.attempts], height - hi + 1);
      box[1] = uniform_index(u[2 * r.attempts + 1], width - wi + 1);
      box[2] = hi;
      box[3] = wi;
      return;
    }
  }
  const double in_ratio = static_cast<double>(width) / static_cast<double>(height);
  std::int64_t w = width, h = height;
  if (in_ratio < r.ratio_lo) {
    h = static_cast<std::int64_t>(round_half_even(static_cast<double>(w) / r.ratio_lo));
  } else if (in_ratio > r.ratio_hi) {
    w = static_cast<std::int64_t>(round_half_even(static_cast<double>(h) * r.ratio_hi));
  }
  box[0] = (height - h) / 2;
  box[1] = (width - w) / 2;
  box[2] = h;
  box[3] = w;
}

}  // namespace streamvision::kernels
