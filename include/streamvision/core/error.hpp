// The one exception type of the library. Its message names the op, the argument, what was
// expected and what came, so that users can act on it without reading our source.
#pragma once

#include <exception>
#include <string>

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

// Argument checks used by every functional: throw Error(kind, op, arg, expected, got) when
// `condition` is false. `got` is built lazily so that the happy path formats nothing.
template <class GotFn>
inline void check_arg(bool condition, ErrorKind kind, const char* op, const char* argument,
                      const char* expected, GotFn&& got) {
  if (!condition) throw Error(kind, op, argument, expected, got());
}

}  // namespace streamvision
