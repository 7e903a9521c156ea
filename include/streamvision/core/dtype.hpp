// Element types, their properties, and the compile-time map between DType and C++ types.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <cstdint>
#include <string>

#include "streamvision/core/half.hpp"

namespace streamvision {

enum class DType : std::uint8_t {
  Bool,
  UInt8,
  Int8,
  UInt16,
  Int16,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
};

inline constexpr int kNumDTypes = 11;

// torch's spelling ("uint8", "float32", ...), used in every error message.
const char* dtype_name(DType dtype);
std::size_t itemsize(DType dtype);
bool is_floating_point(DType dtype);
// Integer dtypes excluding bool (bool is neither floating point nor integral here).
bool is_integral(DType dtype);

// torchvision's _max_value: the value of "fully on"; 1.0 for float dtypes and bool.
double max_value(DType dtype);

// torchvision's _num_value_bits: bits that carry magnitude (uint8 8, int8 7, ...).
// Throws a TypeError-kind Error for float dtypes and bool.
int value_bits(DType dtype);

// A set of dtypes as a bit mask; the kernel registry uses it to say what a kernel supports.
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> dtypes) {
    for (DType d : dtypes) bits_ |= bit(d);
  }
  static constexpr DTypeSet from_bits(std::uint32_t b) {
    DTypeSet s;
    s.bits_ = b;
    return s;
  }
  static constexpr DTypeSet all() { return from_bits((1u << kNumDTypes) - 1u); }
  static constexpr DTypeSet floating() {
    return {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};
  }
  static constexpr DTypeSet integral() {
    return {DType::UInt8, DType::Int8, DType::UInt16, DType::Int16, DType::Int32, DType::Int64};
  }
  constexpr bool contains(DType d) const { return (bits_ & bit(d)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr std::uint32_t bits() const { return bits_; }
  constexpr DTypeSet operator|(DTypeSet o) const { return from_bits(bits_ | o.bits_); }
  constexpr bool operator==(const DTypeSet&) const = default;
  // "uint8, float32, ..." in DType order.
  std::string to_string() const;

 private:
  static constexpr std::uint32_t bit(DType d) { return 1u << static_cast<unsigned>(d); }
  std::uint32_t bits_ = 0;
};

// DType -> C++ element type.
template <DType D> struct CppTypeOf;
template <> struct CppTypeOf<DType::Bool> { using type = bool; };
template <> struct CppTypeOf<DType::UInt8> { using type = std::uint8_t; };
template <> struct CppTypeOf<DType::Int8> { using type = std::int8_t; };
template <> struct CppTypeOf<DType::UInt16> { using type = std::uint16_t; };
template <> struct CppTypeOf<DType::Int16> { using type = std::int16_t; };
template <> struct CppTypeOf<DType::Int32> { using type = std::int32_t; };
template <> struct CppTypeOf<DType::Int64> { using type = std::int64_t; };
template <> struct CppTypeOf<DType::Float16> { using type = Half; };
template <> struct CppTypeOf<DType::BFloat16> { using type = BFloat16; };
template <> struct CppTypeOf<DType::Float32> { using type = float; };
template <> struct CppTypeOf<DType::Float64> { using type = double; };
template <DType D> using CppType = typename CppTypeOf<D>::type;

// C++ element type -> DType.
template <class T> struct DTypeOf;
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };
template <> struct DTypeOf<std::uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct DTypeOf<std::int8_t> { static constexpr DType value = DType::Int8; };
template <> struct DTypeOf<std::uint16_t> { static constexpr DType value = DType::UInt16; };
template <> struct DTypeOf<std::int16_t> { static constexpr DType value = DType::Int16; };
template <> struct DTypeOf<std::int32_t> { static constexpr DType value = DType::Int32; };
template <> struct DTypeOf<std::int64_t> { static constexpr DType value = DType::Int64; };
template <> struct DTypeOf<Half> { static constexpr DType value = DType::Float16; };
template <> struct DTypeOf<BFloat16> { static constexpr DType value = DType::BFloat16; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::Float32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::Float64; };
template <class T> inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace streamvision
