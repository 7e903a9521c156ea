// Internal: what every functional does before choosing a kernel: check the image argument
// and resolve the stream the op runs on.
#pragma once

#include <optional>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision::detail {

// Throws unless `t` is defined and has at least `min_rank` dims ("expected a tensor with at
// least 3 dims ([..., C, H, W]), got shape [5, 7]").
void check_image(const char* op, const Tensor& t, int min_rank, const char* argument = "image");

// The stream an op on `input` runs on: the explicit one (which must be on the input's
// device), else Stream::current(input's device). CPU inputs get no stream.
Stream op_stream(const char* op, const Tensor& input, const std::optional<Stream>& stream);

}  // namespace streamvision::detail
