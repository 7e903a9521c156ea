// The benchmark program's case registry. Each bench_*.cpp registers cases at load time; main
// runs them all (or those matching a filter) on one stream and prints a table:
// median time over >= 20 timed runs after warm-up (CUDA events), effective bandwidth (bytes
// read + written / time) and its share of the device-to-device copy bandwidth measured in the
// same run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "streamvision/streamvision.hpp"

namespace svbench {

using namespace streamvision;

struct Case {
  std::string name;    // "horizontal_flip"
  std::string detail;  // "64x3x1080x1920 uint8 contiguous"
  double bytes = 0;    // bytes read + written by one run (the fewest any implementation must move)
  std::function<void(const Stream&)> run;
};

// Cases are built lazily (inputs allocated only when the case group runs).
using CaseFactory = std::function<std::vector<Case>(const Stream&)>;
int register_cases(const std::string& group, CaseFactory factory);

// A random image on the GPU (uint8 values, or floats in [0, 1]).
Tensor random_image(const Dims& shape, DType dtype, MemoryFormat format, const Stream& stream);

std::string shape_str(const Dims& shape);

}  // namespace svbench

#define SV_BENCH_CONCAT_INNER(a, b) a##b
#define SV_BENCH_CONCAT(a, b) SV_BENCH_CONCAT_INNER(a, b)
#define SV_BENCH_CASES(GROUP, FACTORY) \
  static const int SV_BENCH_CONCAT(sv_bench_, __LINE__) = ::svbench::register_cases(GROUP, FACTORY)
