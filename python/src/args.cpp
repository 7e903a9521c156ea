#include "args.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace svpy {

namespace {

std::string py_repr(nb::handle obj) { return nb::cast<std::string>(nb::repr(obj)); }

bool is_text(nb::handle obj) { return PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr()) || PyByteArray_Check(obj.ptr()); }

// Arrays (torch tensors, numpy arrays and scalars, anything with .tolist()) become the plain
// Python scalar or (nested) list they hold, so that one set of rules below judges every kind of
// argument torchvision accepts. A tensor is never iterated element by element: its elements are
// 0-d tensors, which is slow, and it is where the old converter crashed.
nb::object plain(nb::handle obj) {
  if (!is_text(obj) && !PyList_Check(obj.ptr()) && !PyTuple_Check(obj.ptr()) && nb::hasattr(obj, "tolist")) {
    return obj.attr("tolist")();
  }
  return nb::borrow(obj);
}

// The items of a list-like argument as a new list or tuple; nullopt for a scalar. Strings are
// scalars here (and then rejected by the element rules).
std::optional<nb::object> items_of(nb::handle obj) {
  if (is_text(obj) || !PySequence_Check(obj.ptr())) return std::nullopt;
  PyObject* fast = PySequence_Fast(obj.ptr(), "expected a sequence");
  if (fast == nullptr) throw nb::python_error();
  return nb::steal(fast);
}

bool is_int(nb::handle v) { return PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr()); }
bool is_real(nb::handle v) { return is_int(v) || PyFloat_Check(v.ptr()); }

// Converts obj (a scalar or a flat list of scalars after plain()) with `element`, which returns
// false for a value of the wrong kind; every failure is a TypeError naming the whole argument.
template <class T, class Element>
std::vector<T> list_of(nb::handle obj, const char* op, const char* argument, const char* expected, Element&& element) {
  const nb::object value = plain(obj);
  std::vector<T> out;
  auto take = [&](nb::handle v) {
    T x{};
    if (!element(v, x)) throw Error(ErrorKind::Type, op, argument, expected, py_repr(obj));
    out.push_back(x);
  };
  if (const auto seq = items_of(value)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq->ptr());
    PyObject** items = PySequence_Fast_ITEMS(seq->ptr());
    for (Py_ssize_t i = 0; i < n; ++i) take(plain(items[i]));
  } else {
    take(value);
  }
  return out;
}

}  // namespace

std::vector<double> float_list(nb::handle obj, const char* op, const char* argument) {
  return list_of<double>(obj, op, argument, "a float or a sequence of floats", [](nb::handle v, double& x) {
    if (!is_real(v)) return false;
    x = nb::cast<double>(v);
    return true;
  });
}

std::vector<std::int64_t> int_list(nb::handle obj, const char* op, const char* argument) {
  return list_of<std::int64_t>(obj, op, argument, "an int or a sequence of ints", [](nb::handle v, std::int64_t& x) {
    if (!is_int(v)) return false;
    int overflow = 0;
    x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    return overflow == 0;
  });
}

std::vector<std::vector<double>> float_lists(nb::handle obj, const char* op, const char* argument) {
  const nb::object value = plain(obj);
  const auto seq = items_of(value);
  if (!seq) throw Error(ErrorKind::Type, op, argument, "a sequence of sequences of floats", py_repr(obj));
  std::vector<std::vector<double>> out;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq->ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq->ptr());
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!items_of(plain(items[i]))) throw Error(ErrorKind::Type, op, argument, "a sequence of sequences of floats", py_repr(obj));
    out.push_back(float_list(items[i], op, argument));
  }
  return out;
}

OptionalList<std::int64_t> optional_int_list(nb::handle obj, const char* op, const char* argument) {
  if (obj.is_none()) return std::nullopt;
  return int_list(obj, op, argument);
}

OptionalList<double> optional_float_list(nb::handle obj, const char* op, const char* argument) {
  if (obj.is_none()) return std::nullopt;
  return float_list(obj, op, argument);
}

bool is_sequence_arg(nb::handle obj) { return items_of(plain(obj)).has_value(); }

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
