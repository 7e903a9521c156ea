// Internal: argument checks and allocation shared by the colour, filter and misc front ends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "functional/op_context.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision::detail::color {

// A number as an error message shows it ("0.7", "-3").
std::string format_number(double value);

// torchvision's TypeError for ops that need 1 or 3 channels (the image has >= 3 dims).
void check_one_or_three_channels(const char* op, const Tensor& image);

// Throws ValueError "argument: expected EXPECTED, got VALUE" unless `ok`.
// torchvision_words: torchvision's own sentence for the error, appended in parentheses so that
// code matching torchvision's messages (its tests do) matches ours.
void check_value(bool ok, ErrorKind kind, const char* op, const char* argument, const char* expected, double value,
                 const char* torchvision_words = nullptr);

// `image` itself when its leading dims merge into one batch dim (kernels::as_image_batch), else a
// contiguous copy on `stream`: what the image kernels are given.
Tensor batchable(const Tensor& image, const Stream& stream);

// A new image with `image`'s leading dims, `channels` channels and `image`'s H and W, dense in
// the stride order of `image` (channels_last stays channels_last), on `stream`.
Tensor image_output(const Tensor& image, std::int64_t channels, const Stream& stream);

}  // namespace streamvision::detail::color
