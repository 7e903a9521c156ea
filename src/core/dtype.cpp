#include "streamvision/core/dtype.hpp"

#include <limits>

#include "streamvision/core/error.hpp"

namespace streamvision {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
    case DType::UInt16: return "uint16";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
  }
  return "unknown";
}

std::size_t itemsize(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::UInt8:
    case DType::Int8: return 1;
    case DType::UInt16:
    case DType::Int16:
    case DType::Float16:
    case DType::BFloat16: return 2;
    case DType::Int32:
    case DType::Float32: return 4;
    case DType::Int64:
    case DType::Float64: return 8;
  }
  return 0;
}

bool is_floating_point(DType dtype) { return DTypeSet::floating().contains(dtype); }

bool is_integral(DType dtype) { return DTypeSet::integral().contains(dtype); }

double max_value(DType dtype) {
  switch (dtype) {
    case DType::UInt8: return 255.0;
    case DType::Int8: return 127.0;
    case DType::UInt16: return 65535.0;
    case DType::Int16: return 32767.0;
    case DType::Int32: return 2147483647.0;
    case DType::Int64: return static_cast<double>(std::numeric_limits<std::int64_t>::max());
    default: return 1.0;  // float dtypes and bool, as torchvision's _max_value
  }
}

int value_bits(DType dtype) {
  switch (dtype) {
    case DType::UInt8: return 8;
    case DType::Int8: return 7;
    case DType::UInt16: return 16;
    case DType::Int16: return 15;
    case DType::Int32: return 31;
    case DType::Int64: return 63;
    default:
      throw Error(ErrorKind::Type, "value_bits", "dtype", "an integer dtype", dtype_name(dtype));
  }
}

std::string DTypeSet::to_string() const {
  std::string out;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (!contains(static_cast<DType>(i))) continue;
    if (!out.empty()) out += ", ";
    out += dtype_name(static_cast<DType>(i));
  }
  return out.empty() ? "none" : out;
}

}  // namespace streamvision
