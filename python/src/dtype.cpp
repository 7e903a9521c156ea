// dtype conversions between Python objects, DLPack and streamvision.
#include <nanobind/stl/string.h>

#include <cstring>
#include <string>

#include "bindings.hpp"

namespace svpy {

namespace {

bool parse_name(std::string name, DType& out) {
  for (const char* prefix : {"torch.", "numpy.", "<class 'numpy.", "dtype('"}) {
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::strlen(prefix));
  }
  while (!name.empty() && (name.back() == '\'' || name.back() == ')' || name.back() == '>')) name.pop_back();
  static const std::pair<const char*, DType> names[] = {
      {"bool", DType::Bool},       {"bool_", DType::Bool},        {"uint8", DType::UInt8},
      {"int8", DType::Int8},       {"uint16", DType::UInt16},     {"int16", DType::Int16},
      {"short", DType::Int16},     {"int32", DType::Int32},       {"int", DType::Int32},
      {"int64", DType::Int64},     {"long", DType::Int64},        {"float16", DType::Float16},
      {"half", DType::Float16},    {"bfloat16", DType::BFloat16}, {"float32", DType::Float32},
      {"float", DType::Float32},   {"float64", DType::Float64},   {"double", DType::Float64},
  };
  for (const auto& [n, d] : names) {
    if (name == n) {
      out = d;
      return true;
    }
  }
  return false;
}

}  // namespace

DType dtype_from_py(nb::handle obj, const char* op, const char* argument) {
  DType out;
  if (nb::isinstance<DType>(obj)) return nb::cast<DType>(obj);
  if (nb::isinstance<nb::str>(obj) && parse_name(nb::cast<std::string>(obj), out)) return out;
  // numpy dtypes and scalar types expose a name; torch dtypes print as "torch.float32".
  if (nb::hasattr(obj, "dtype") && nb::isinstance<nb::type_object>(obj)) {
    if (parse_name(nb::cast<std::string>(nb::str(obj.attr("__name__"))), out)) return out;
  }
  if (!nb::isinstance<nb::type_object>(obj) && nb::hasattr(obj, "name") && nb::hasattr(obj, "itemsize") &&
      parse_name(nb::cast<std::string>(nb::str(obj.attr("name"))), out)) {
    return out;
  }
  if (parse_name(nb::cast<std::string>(nb::str(obj)), out)) return out;
  throw Error(ErrorKind::Type, op, argument,
              "a dtype (torch.dtype, numpy dtype or name such as 'float32') that streamvision supports",
              nb::cast<std::string>(nb::repr(obj)));
}

bool dtype_from_dlpack(const dl::DataType& t, DType& out) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case dl::kBool: out = DType::Bool; return t.bits == 8;
    case dl::kUInt:
      if (t.bits == 8) out = DType::UInt8;
      else if (t.bits == 16) out = DType::UInt16;
      else return false;
      return true;
    case dl::kInt:
      if (t.bits == 8) out = DType::Int8;
      else if (t.bits == 16) out = DType::Int16;
      else if (t.bits == 32) out = DType::Int32;
      else if (t.bits == 64) out = DType::Int64;
      else return false;
      return true;
    case dl::kFloat:
      if (t.bits == 16) out = DType::Float16;
      else if (t.bits == 32) out = DType::Float32;
      else if (t.bits == 64) out = DType::Float64;
      else return false;
      return true;
    case dl::kBfloat: out = DType::BFloat16; return t.bits == 16;
    default: return false;
  }
}

dl::DataType dtype_to_dlpack(DType dtype) {
  const auto bits = static_cast<std::uint8_t>(itemsize(dtype) * 8);
  switch (dtype) {
    case DType::Bool: return {dl::kBool, 8, 1};
    case DType::UInt8:
    case DType::UInt16: return {dl::kUInt, bits, 1};
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64: return {dl::kInt, bits, 1};
    case DType::BFloat16: return {dl::kBfloat, 16, 1};
    default: return {dl::kFloat, bits, 1};
  }
}

void bind_dtypes(nb::module_& m) {
  nb::enum_<DType>(m, "dtype", "Element types, named as in torch (uint8, float32, ...).")
      .value("bool", DType::Bool)
      .value("uint8", DType::UInt8)
      .value("int8", DType::Int8)
      .value("uint16", DType::UInt16)
      .value("int16", DType::Int16)
      .value("int32", DType::Int32)
      .value("int64", DType::Int64)
      .value("float16", DType::Float16)
      .value("bfloat16", DType::BFloat16)
      .value("float32", DType::Float32)
      .value("float64", DType::Float64);
  m.def("as_dtype", [](nb::handle obj) { return dtype_from_py(obj, "as_dtype", "dtype"); }, nb::arg("dtype"),
        "Converts a torch/numpy dtype or a name to streamvision.dtype.");
}

}  // namespace svpy
