// crop / center_crop / five_crop / ten_crop (torchvision.transforms.v2.functional) on images
// [..., H, W] of any dtype. Exact. As torchvision, a crop inside the image is a view of it (shares
// its memory and owner, strides of the input; no kernel runs, nothing is allocated), so writing
// to one writes to the other; a crop reaching outside the image is a new tensor, zero-padded.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/core/registry.hpp"

namespace streamvision {

namespace functional {

// The part outside the image is zero (torchvision pads it). height and width must be >= 0.
Tensor crop(const Tensor& image, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width,
            const std::optional<Stream>& stream = std::nullopt);

// output_size {s} or {h, w}. A crop larger than the image zero-pads first with
// ltrb = [(cw-W)//2, (ch-H)//2, (cw-W+1)//2, (ch-H+1)//2]; the anchor is round((H - ch) / 2),
// round((W - cw) / 2) with Python's round (half to even).
Tensor center_crop(const Tensor& image, const std::vector<std::int64_t>& output_size,
                   const std::optional<Stream>& stream = std::nullopt);

// {top-left, top-right, bottom-left, bottom-right, center}; size {s} or {h, w}, at most the
// image size (ValueError otherwise).
std::array<Tensor, 5> five_crop(const Tensor& image, const std::vector<std::int64_t>& size,
                                const std::optional<Stream>& stream = std::nullopt);

// five_crop of the image, then five_crop of its horizontal (or, with vertical_flip, vertical) flip.
std::array<Tensor, 10> ten_crop(const Tensor& image, const std::vector<std::int64_t>& size, bool vertical_flip = false,
                                const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

