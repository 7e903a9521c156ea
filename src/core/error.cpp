#include "streamvision/core/error.hpp"

namespace streamvision {

Error::Error(ErrorKind kind, std::string op, std::string argument, std::string expected, std::string got)
    : kind_(kind), op_(std::move(op)), argument_(std::move(argument)) {
  message_ = op_ + ": argument '" + argument_ + "': expected " + expected + ", got " + got;
}

Error::Error(ErrorKind kind, std::string op, std::string message)
    : kind_(kind), op_(std::move(op)), message_(op_ + ": " + message) {}

}  // namespace streamvision
