// The preprocessing pipeline of `streamvision run`: a list of steps parsed from a SPEC such as
// "resize=256,center_crop=224,hflip=0.5,to_dtype=float32,normalize=imagenet".
//
// Random steps (hflip=P, random_resized_crop=S, color_jitter=..., ...) draw their parameters per
// sample from a counter-based generator keyed by (seed, sample index): a sample's parameters do
// not depend on threads, batch size, --resume or which other inputs exist, so reruns are
// identical. Every step records the functional call it made (name and torchvision-style keyword
// arguments) so that the manifest says exactly what happened to each sample, and a Python
// script can replay it with streamvision's or torchvision's functionals.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <streamvision/streamvision.hpp>

namespace svtool {

// Uniform numbers for one sample: Philox4x32 of (seed, sample * 2^20 + draw) (the library's
// generator, kernels/philox.hpp), 32 random bits per draw.
class SampleRandom {
 public:
  SampleRandom(std::uint64_t seed, std::uint64_t sample) : seed_(seed), sample_(sample) {}
  double uniform();                                   // [0, 1)
  double uniform(double lo, double hi);               // [lo, hi)
  std::int64_t integer(std::int64_t lo, std::int64_t hi_exclusive);

 private:
  std::uint64_t seed_, sample_, draws_ = 0;
};

// The calls made for one sample, as JSON objects: {"op": "resize", "size": [256], ...}.
using CallLog = std::vector<std::string>;

struct Step {
  std::string spec;  // as written, for messages
  bool random = false;
  std::function<streamvision::Tensor(const streamvision::Tensor&, const streamvision::Stream&, SampleRandom&, CallLog&)>
      run;
};

// Throws std::invalid_argument naming the bad step and listing the known ones.
std::vector<Step> parse_pipeline(const std::string& spec);

// The SPEC grammar and one line per step kind, for --help.
std::string pipeline_help();

}  // namespace svtool
