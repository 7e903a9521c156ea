// Vocabulary shared by the geometry functionals (resize, crops, pad, affine, rotate, perspective,
// elastic): interpolation modes, padding modes and fill values, with torchvision's spellings.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "streamvision/core/optional_list.hpp"

namespace streamvision {

// torchvision.transforms.InterpolationMode. Tensors support Nearest, NearestExact, Bilinear and
// Bicubic (the grid ops affine/rotate/perspective/elastic only Nearest and Bilinear); Box,
// Hamming and Lanczos exist for PIL and are rejected by every tensor op, as in torchvision.
enum class InterpolationMode : std::uint8_t { Nearest, NearestExact, Bilinear, Bicubic, Box, Hamming, Lanczos };

// torchvision's value string: "nearest", "nearest-exact", "bilinear", "bicubic", "box", ...
const char* interpolation_mode_name(InterpolationMode mode);

// The PIL integer codes torchvision accepts in place of an InterpolationMode: 0 nearest,
// 2 bilinear, 3 bicubic, 4 box, 5 hamming, 1 lanczos. Any other code raises a ValueError-kind
// Error. (Box, hamming and lanczos are then rejected by the op, as torchvision does for tensors.)
InterpolationMode interpolation_mode_from_int(int pil_code);

// "nearest", "nearest-exact", "bilinear", ... (torchvision's InterpolationMode values).
InterpolationMode interpolation_mode_from_string(std::string_view name);

// torchvision's padding_mode: "constant", "edge", "reflect" (mirror without repeating the edge,
// torch's reflect / OpenCV REFLECT_101), "symmetric" (mirror repeating the edge, OpenCV REFLECT).
enum class PaddingMode : std::uint8_t { Constant, Edge, Reflect, Symmetric };

const char* padding_mode_name(PaddingMode mode);
// Raises a ValueError-kind Error naming the accepted modes for anything else.
PaddingMode padding_mode_from_string(std::string_view name);

// A fill value as torchvision takes it: std::nullopt is None, one value is a scalar (or a
// one-element list), several values are one per channel. For the grid ops None and {0} differ,
// exactly as in torchvision (with a fill, edge pixels are blended toward the fill by the
// sampled coverage mask). Written std::nullopt, {0.5}, {114, 114, 114} or as a std::vector.
using Fill = OptionalList<double>;

// An output size as torchvision's resize takes it: {h, w}, {shorter edge} or std::nullopt (see
// resize).
using Size = OptionalList<std::int64_t>;

}  // namespace streamvision
