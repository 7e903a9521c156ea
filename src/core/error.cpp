#include "streamvision/core/error.hpp"

#include <charconv>

namespace streamvision {

Error::Error(ErrorKind kind, std::string op, std::string argument, std::string expected, std::string got)
    : kind_(kind), op_(std::move(op)), argument_(std::move(argument)) {
  message_ = op_ + ": argument '" + argument_ + "': expected " + expected + ", got " + got;
}

Error::Error(ErrorKind kind, std::string op, std::string message)
    : kind_(kind), op_(std::move(op)), message_(op_ + ": " + message) {}

std::string format_number(double value) {
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
  return std::string(buf, end);
}

std::string format_list(const std::vector<double>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + format_number(values[i]);
  return out + "]";
}

std::string format_list(std::span<const std::int64_t> values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace streamvision
