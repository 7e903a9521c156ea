// Internal: the one dtype switch of a kernel family. dispatch_dtype<Ds...>(dtype, f) calls
// f(TypeTag<T>{}) with the C++ type of `dtype`, instantiating f only for the listed dtypes,
// so each op compiles just the element types it supports.
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

template <DType... Ds, class F>
void dispatch_dtype(DType dtype, const char* op, F&& f) {
  const bool matched = ((dtype == Ds ? (f(TypeTag<CppType<Ds>>{}), true) : false) || ...);
  if (!matched) {
    throw Error(ErrorKind::Type, op, "input", std::string("dtype in {") + DTypeSet{Ds...}.to_string() + "}",
                dtype_name(dtype));
  }
}

#define SV_ALL_DTYPES                                                                                      \
  ::streamvision::DType::Bool, ::streamvision::DType::UInt8, ::streamvision::DType::Int8,                  \
      ::streamvision::DType::UInt16, ::streamvision::DType::Int16, ::streamvision::DType::Int32,           \
      ::streamvision::DType::Int64, ::streamvision::DType::Float16, ::streamvision::DType::BFloat16,       \
      ::streamvision::DType::Float32, ::streamvision::DType::Float64
#define SV_FLOAT_DTYPES                                                                                    \
  ::streamvision::DType::Float16, ::streamvision::DType::BFloat16, ::streamvision::DType::Float32,         \
      ::streamvision::DType::Float64

// Ops that only move bits run on carrier types, one per element size.
template <class F>
void dispatch_itemsize(std::size_t size, F&& f) {
  switch (size) {
    case 1: f(TypeTag<std::uint8_t>{}); return;
    case 2: f(TypeTag<std::uint16_t>{}); return;
    case 4: f(TypeTag<std::uint32_t>{}); return;
    case 8: f(TypeTag<std::uint64_t>{}); return;
    default: throw Error(ErrorKind::Type, "copy", "input", "an element size of 1, 2, 4 or 8 bytes", std::to_string(size));
  }
}

}  // namespace streamvision::detail
