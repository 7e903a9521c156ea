// Internal: the dtypes the colour, filter and noise kernels are instantiated for (both engines).
#pragma once

#include "core/dtype_dispatch.hpp"
#include "streamvision/core/dtype.hpp"

#define SV_COLOR_DTYPES ::streamvision::DType::UInt8, ::streamvision::DType::UInt16, SV_FLOAT_DTYPES
#define SV_NOISE_DTYPES ::streamvision::DType::UInt8, SV_FLOAT_DTYPES

namespace streamvision::kernels {

inline constexpr DTypeSet kColorDTypes{DType::UInt8, DType::UInt16, DType::Float16, DType::BFloat16, DType::Float32,
                                       DType::Float64};
inline constexpr DTypeSet kNoiseDTypes{DType::UInt8, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};

}  // namespace streamvision::kernels
