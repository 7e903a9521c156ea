// Internal: the dtypes of each op family, written once. A family's DTypeList is what its
// engines register (`::set`) and the one dtype switch they compile (`::dispatch`), so each op
// instantiates just the element types it supports and changing a family's dtypes is a one-line
// edit below. Whether a call's dtype is supported is decided by the registry alone (the set a
// kernel was registered with); front ends never check dtypes themselves.
#pragma once

#include <cstdint>
#include <string>

#include "streamvision/core/dtype.hpp"
#include "streamvision/core/error.hpp"

namespace streamvision::detail {

template <class T>
struct TypeTag {
  using type = T;
};

template <DType... Ds>
struct DTypeList {
  static constexpr DTypeSet set{Ds...};

  // Calls f(TypeTag<T>{}) with the C++ type of `dtype`.
  template <class F>
  static void dispatch(DType dtype, const char* op, F&& f) {
    const bool matched = ((dtype == Ds ? (f(TypeTag<CppType<Ds>>{}), true) : false) || ...);
    if (!matched) {
      throw Error(ErrorKind::UnsupportedDType, op, "image", std::string("dtype in {") + set.to_string() + "}",
                  dtype_name(dtype));
    }
  }

  template <DType... More>
  using with = DTypeList<Ds..., More...>;
};

// ---- the op families' dtypes ----------------------------------------------------------------
using AllDTypes = DTypeList<DType::Bool, DType::UInt8, DType::Int8, DType::UInt16, DType::Int16, DType::Int32,
                            DType::Int64, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64>;
using FloatDTypes = DTypeList<DType::Float16, DType::BFloat16, DType::Float32, DType::Float64>;
// Colour ops, blur and sharpness.
using ColorDTypes = FloatDTypes::with<DType::UInt8, DType::UInt16>;
// invert, posterize, solarize and autocontrast: torchvision computes them from the dtype's value
// bits / maximum, so they also take the signed integers.
using LevelsDTypes = ColorDTypes::with<DType::Int8, DType::Int16, DType::Int32, DType::Int64>;
using NoiseDTypes = FloatDTypes::with<DType::UInt8>;
// resize and the warps (affine, rotate off the right angles, perspective, elastic).
using GeometryDTypes = FloatDTypes::with<DType::UInt8, DType::UInt16>;

// Ops that only move bits run on carrier types, one per element size.
template <class F>
void dispatch_itemsize(std::size_t size, F&& f) {
  switch (size) {
    case 1: f(TypeTag<std::uint8_t>{}); return;
    case 2: f(TypeTag<std::uint16_t>{}); return;
    case 4: f(TypeTag<std::uint32_t>{}); return;
    case 8: f(TypeTag<std::uint64_t>{}); return;
    default: throw Error(ErrorKind::Type, "copy", "image", "an element size of 1, 2, 4 or 8 bytes", std::to_string(size));
  }
}

}  // namespace streamvision::detail
