// The one exception type of the library. Its message names the op, the argument, what was
// expected and what came, so that users can act on it without reading our source.
#pragma once

#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <vector>

namespace streamvision {

// Which Python exception a binding raises for the error, following torchvision's choices.
enum class ErrorKind {
  Value,           // ValueError: a value out of its domain (bad size, std == 0, ...)
  Type,            // TypeError: wrong dtype or wrong kind of object
  Runtime,         // RuntimeError: a state problem (CUDA failure, unsupported conversion)
  NotImplemented,  // NotImplementedError: no kernel for this (op, device)
  UnsupportedDType,  // streamvision.UnsupportedDTypeError (a TypeError): no kernel for this dtype
};

class Error : public std::exception {
 public:
  // "op: argument 'arg': expected EXPECTED, got GOT"
  Error(ErrorKind kind, std::string op, std::string argument, std::string expected, std::string got);
  // A free-form message for errors that are not about one argument (CUDA failures).
  Error(ErrorKind kind, std::string op, std::string message);

  const char* what() const noexcept override { return message_.c_str(); }
  ErrorKind kind() const noexcept { return kind_; }
  const std::string& op() const noexcept { return op_; }
  const std::string& argument() const noexcept { return argument_; }

 private:
  ErrorKind kind_;
  std::string op_;
  std::string argument_;
  std::string message_;
};

// Numbers as error messages show them: the shortest text that reads back as the same double
// ("0.7", "-3", "inf"), and lists "[1, 2.5]". (std::to_chars: no locale, no iostreams.)
std::string format_number(double value);
std::string format_list(const std::vector<double>& values);
std::string format_list(std::span<const std::int64_t> values);

}  // namespace streamvision
