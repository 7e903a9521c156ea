#include "args.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace svpy {

namespace {

std::string py_repr(nb::handle obj) { return nb::cast<std::string>(nb::repr(obj)); }

bool is_number(nb::handle obj) {
  return PyFloat_Check(obj.ptr()) || PyLong_Check(obj.ptr()) || (PyNumber_Check(obj.ptr()) == 1 && !PySequence_Check(obj.ptr()));
}

}  // namespace

std::vector<double> float_list(nb::handle obj, const char* op, const char* argument) {
  if (is_number(obj)) return {nb::cast<double>(obj)};
  if (PySequence_Check(obj.ptr()) && !PyUnicode_Check(obj.ptr())) {
    std::vector<double> out;
    for (nb::handle item : nb::borrow<nb::sequence>(obj)) {
      if (!is_number(item)) throw Error(ErrorKind::Type, op, argument, "a float or a sequence of floats", py_repr(obj));
      out.push_back(nb::cast<double>(item));
    }
    return out;
  }
  throw Error(ErrorKind::Type, op, argument, "a float or a sequence of floats", py_repr(obj));
}

std::vector<std::int64_t> int_list(nb::handle obj, const char* op, const char* argument) {
  auto as_int = [&](nb::handle item) -> std::int64_t {
    if (!PyLong_Check(item.ptr()) || PyBool_Check(item.ptr())) {
      if (PyIndex_Check(item.ptr())) return nb::cast<std::int64_t>(nb::steal(PyNumber_Index(item.ptr())));
      throw Error(ErrorKind::Type, op, argument, "an int or a sequence of ints", py_repr(obj));
    }
    return nb::cast<std::int64_t>(item);
  };
  if (PySequence_Check(obj.ptr()) && !PyUnicode_Check(obj.ptr())) {
    std::vector<std::int64_t> out;
    for (nb::handle item : nb::borrow<nb::sequence>(obj)) out.push_back(as_int(item));
    return out;
  }
  return {as_int(obj)};
}

std::optional<std::vector<std::int64_t>> optional_int_list(nb::handle obj, const char* op, const char* argument) {
  if (obj.is_none()) return std::nullopt;
  return int_list(obj, op, argument);
}

std::optional<std::vector<double>> optional_float_list(nb::handle obj, const char* op, const char* argument) {
  if (obj.is_none()) return std::nullopt;
  return float_list(obj, op, argument);
}

InterpolationMode interpolation_from_py(nb::handle obj, InterpolationMode fallback, const char* op) {
  if (obj.is_none()) return fallback;
  if (PyLong_Check(obj.ptr()) && !PyBool_Check(obj.ptr())) return interpolation_mode_from_int(nb::cast<int>(obj));
  nb::object value = nb::borrow(obj);
  if (!PyUnicode_Check(obj.ptr()) && nb::hasattr(obj, "value")) value = obj.attr("value");  // an Enum member
  if (PyUnicode_Check(value.ptr())) return interpolation_mode_from_string(nb::cast<std::string>(value));
  throw Error(ErrorKind::Type, op, "interpolation", "an InterpolationMode, its name or a PIL integer code", py_repr(obj));
}

Fill fill_from_py(nb::handle obj, const char* op) {
  if (obj.is_none()) return std::nullopt;
  return float_list(obj, op, "fill");
}

}  // namespace svpy
