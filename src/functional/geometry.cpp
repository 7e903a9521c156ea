#include "streamvision/functional/geometry.hpp"

#include <string>

#include "streamvision/core/error.hpp"

namespace streamvision {

const char* interpolation_mode_name(InterpolationMode mode) {
  switch (mode) {
    case InterpolationMode::Nearest: return "nearest";
    case InterpolationMode::NearestExact: return "nearest-exact";
    case InterpolationMode::Bilinear: return "bilinear";
    case InterpolationMode::Bicubic: return "bicubic";
    case InterpolationMode::Box: return "box";
    case InterpolationMode::Hamming: return "hamming";
    case InterpolationMode::Lanczos: return "lanczos";
  }
  return "unknown";
}

InterpolationMode interpolation_mode_from_int(int pil_code) {
  switch (pil_code) {
    case 0: return InterpolationMode::Nearest;
    case 1: return InterpolationMode::Lanczos;
    case 2: return InterpolationMode::Bilinear;
    case 3: return InterpolationMode::Bicubic;
    case 4: return InterpolationMode::Box;
    case 5: return InterpolationMode::Hamming;
    default:
      throw Error(ErrorKind::Value, "interpolation_mode_from_int", "pil_code",
                  "a PIL interpolation code (0 nearest, 2 bilinear, 3 bicubic, 4 box, 5 hamming, 1 lanczos)",
                  std::to_string(pil_code));
  }
}

InterpolationMode interpolation_mode_from_string(std::string_view name) {
  for (InterpolationMode m : {InterpolationMode::Nearest, InterpolationMode::NearestExact, InterpolationMode::Bilinear,
                              InterpolationMode::Bicubic, InterpolationMode::Box, InterpolationMode::Hamming,
                              InterpolationMode::Lanczos}) {
    if (name == interpolation_mode_name(m)) return m;
  }
  throw Error(ErrorKind::Value, "interpolation_mode_from_string", "name",
              "one of nearest, nearest-exact, bilinear, bicubic, box, hamming, lanczos", "'" + std::string(name) + "'");
}

const char* padding_mode_name(PaddingMode mode) {
  switch (mode) {
    case PaddingMode::Constant: return "constant";
    case PaddingMode::Edge: return "edge";
    case PaddingMode::Reflect: return "reflect";
    case PaddingMode::Symmetric: return "symmetric";
  }
  return "unknown";
}

PaddingMode padding_mode_from_string(std::string_view name) {
  for (PaddingMode m : {PaddingMode::Constant, PaddingMode::Edge, PaddingMode::Reflect, PaddingMode::Symmetric}) {
    if (name == padding_mode_name(m)) return m;
  }
  throw Error(ErrorKind::Value, "pad", "padding_mode", "'constant', 'edge', 'reflect' or 'symmetric'",
              "'" + std::string(name) + "'");
}

}  // namespace streamvision
