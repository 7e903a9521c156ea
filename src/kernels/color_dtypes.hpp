// Internal: the dtypes the colour, filter and noise kernels are instantiated for (both engines).
#pragma once

#include "core/dtype_dispatch.hpp"
#include "streamvision/core/dtype.hpp"

#define SV_COLOR_DTYPES ::streamvision::DType::UInt8, ::streamvision::DType::UInt16, SV_FLOAT_DTYPES
#define SV_NOISE_DTYPES ::streamvision::DType::UInt8, SV_FLOAT_DTYPES
// invert, posterize, solarize and autocontrast also take the signed integer dtypes (torchvision
// computes them from the dtype's value bits / maximum).
#define SV_LEVELS_DTYPES                                                                                   \
  SV_COLOR_DTYPES, ::streamvision::DType::Int8, ::streamvision::DType::Int16, ::streamvision::DType::Int32, \
      ::streamvision::DType::Int64

namespace streamvision::kernels {

inline constexpr DTypeSet kColorDTypes{DType::UInt8, DType::UInt16, DType::Float16, DType::BFloat16, DType::Float32,
                                       DType::Float64};
inline constexpr DTypeSet kLevelsDTypes{DType::UInt8,   DType::UInt16, DType::Float16, DType::BFloat16,
                                        DType::Float32, DType::Float64, DType::Int8,    DType::Int16,
                                        DType::Int32,   DType::Int64};
inline constexpr DTypeSet kNoiseDTypes{DType::UInt8, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};

}  // namespace streamvision::kernels
