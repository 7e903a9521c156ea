// Internal: what the geometry functionals (resize, crop, pad, the warps) share on the host side:
// argument checks with torchvision's error kinds, the image-batch view of an input, and output
// allocation in the input's layout order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/image_batch.hpp"
#include "streamvision/core/dtype.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"

namespace streamvision::detail {

// The dtypes of resize and the warps (crop and pad take every dtype).
inline constexpr DTypeSet kGeometryDTypes{DType::UInt8,    DType::UInt16,  DType::Float16,
                                          DType::BFloat16, DType::Float32, DType::Float64};

// Most per-channel fill values an op takes (they travel by value in the kernel arguments).
inline constexpr std::size_t kMaxFillValues = 64;

std::string join_values(const std::vector<double>& values);
std::string join_values(const std::vector<std::int64_t>& values);

// ValueError unless `v` is finite ("op: argument 'arg': expected a finite value, got inf").
void check_finite(const char* op, const char* argument, double v);
void check_finite(const char* op, const char* argument, const std::vector<double>& values);

// Spatial sizes the kernels index with 32-bit integers: H and W below 2^31.
void check_spatial_size(const char* op, std::int64_t height, std::int64_t width);

// The grid ops take nearest and bilinear only (ValueError naming the mode otherwise).
void check_grid_interpolation(const char* op, InterpolationMode mode);

// A grid op's fill: None, one value, or one per channel (ValueError otherwise, torchvision's
// message); at most kMaxFillValues values.
void check_grid_fill(const char* op, const Fill& fill, std::int64_t channels);

// TypeError naming the supported dtypes unless `dtype` is one of them.
void check_dtype(const char* op, DType dtype, DTypeSet supported);

// The channel count of an image [..., C, H, W] (1 for a 2-D image).
inline std::int64_t channels_of(const Tensor& image) { return image.dim() >= 3 ? image.size(-3) : 1; }

// `image` itself when its leading dims merge into one batch dim, else a contiguous copy on
// `stream` (call after validation: it may allocate).
Tensor batchable(const Tensor& image, const Stream& stream);

// The image-batch view of a tensor batchable() returned (or of an output we allocated).
kernels::ImageBatch image_batch(const Tensor& t);

// A new image of `shape` (the input's leading dims and channels, a new H and W) in the input's
// layout order: channels-last when the input has channels innermost, else contiguous. Either way
// the result is dense planar or dense interleaved, the two orders the kernels write.
Tensor empty_image_like(const Tensor& input, const Dims& shape, const Stream& stream);

// True when `t` keeps its channels innermost (channels-last order: the smallest stride of C, H, W).
bool is_interleaved(const Tensor& t);

}  // namespace streamvision::detail
