// ColorJitter's parameters for one image from uniform random numbers, shared by the CPU loop
// (functional/batch.cpp) and the CUDA kernel (cuda/color_jitter_params.cu).
//
// torchvision draws a random order of the four ops (randperm(4)) and, for each enabled op, a
// factor uniform in its range (float32, uniform_). Here the order is the argsort of u[0..3]
// (every permutation equally likely; ties, which need two equal float32 draws, go to the lower
// index) and op k's factor is u[4 + k] mapped onto its range as torch's uniform_ maps it, in
// float32, then widened; a disabled op gets 0. So a batch's draws are one [N, 8] uniform tensor
// made by torch's generator on the batch's device (graph-safe: a captured replay draws anew).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "kernels/uniform.hpp"
#include "streamvision/core/macros.hpp"

namespace streamvision::kernels {

struct JitterDraw {
  float lo[4] = {0, 0, 0, 0}, hi[4] = {0, 0, 0, 0};
  unsigned enabled = 0;  // bit k: op k (brightness, contrast, saturation, hue) has a range
};

inline JitterDraw make_jitter_draw(const std::array<std::optional<std::array<double, 2>>, 4>& ranges) {
  JitterDraw d;
  for (int k = 0; k < 4; ++k) {
    const auto& r = ranges[static_cast<std::size_t>(k)];
    if (!r) continue;
    d.lo[k] = static_cast<float>((*r)[0]);
    d.hi[k] = static_cast<float>((*r)[1]);
    d.enabled |= 1u << k;
  }
  return d;
}

SV_HOST_DEVICE inline void color_jitter_draw(const JitterDraw& d, const float* u, double* factors, std::int64_t* order) {
  int idx[4] = {0, 1, 2, 3};
  for (int i = 1; i < 4; ++i) {  // insertion sort of the four keys: stable, so ties keep index order
    for (int j = i; j > 0 && u[idx[j - 1]] > u[idx[j]]; --j) {
      const int t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
  }
  for (int k = 0; k < 4; ++k) {
    order[k] = idx[k];
    factors[k] = (d.enabled >> k) & 1u ? static_cast<double>(uniform_in(u[4 + k], d.lo[k], d.hi[k])) : 0.0;
  }
}

}  // namespace streamvision::kernels
