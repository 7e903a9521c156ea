// Internal: conversion of Python arguments (torchvision's conventions) to the C++ API's types.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace svpy {

// A float or a sequence of floats (a single value becomes a one-element list).
std::vector<double> float_list(nb::handle obj, const char* op, const char* argument);
// An int or a sequence of ints. Both accept what torchvision accepts: Python numbers, lists and
// tuples, numpy arrays and scalars, torch tensors (0-d or 1-D, any device) and lists of 0-d
// tensors; anything else (strings, nested lists, None, bools, floats for ints) is a TypeError.
std::vector<std::int64_t> int_list(nb::handle obj, const char* op, const char* argument);
// A sequence of sequences of floats (perspective's points).
std::vector<std::vector<double>> float_lists(nb::handle obj, const char* op, const char* argument);
// Whether obj is list-like (a list, tuple, 1-D array or tensor) rather than a scalar.
bool is_sequence_arg(nb::handle obj);
OptionalList<std::int64_t> optional_int_list(nb::handle obj, const char* op, const char* argument);
OptionalList<double> optional_float_list(nb::handle obj, const char* op, const char* argument);
// torchvision's InterpolationMode (or anything with a string .value), a name, or a PIL code.
InterpolationMode interpolation_from_py(nb::handle obj, InterpolationMode fallback, const char* op);
// None, a number, or a sequence of numbers (one per channel).
Fill fill_from_py(nb::handle obj, const char* op);

}  // namespace svpy
