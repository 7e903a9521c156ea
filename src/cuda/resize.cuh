// Internal: the CUDA resize engine's parts, one translation unit each so they compile in
// parallel: per-pixel modes (resize_direct.cu), the antialiased float path (resize_antialias.cu)
// and torch's uint8 bicubic integer path (resize_uint8.cu), with uint8 bilinear antialias through
// resized_crop_batch's tiles (batch.cu). resize_direct.cu registers the op.
#pragma once

#include "kernels/image_batch.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"

namespace streamvision::cuda {

// Nearest / nearest-exact (any element size), bilinear and bicubic without antialias.
void resize_direct(const Tensor& input, const Tensor& output, InterpolationMode mode, const Stream& stream);

// Antialiased bilinear / bicubic in float (double for float64): one fused separable pass.
void resize_antialias(const Tensor& input, const Tensor& output, InterpolationMode mode, const Stream& stream);

// uint8 antialiased bilinear of [C, H, W] or [N, C, H, W] images with unit-stride rows into a
// contiguous output, through resized_crop_batch's tiled schedule (batch.cu: byte quads, the same
// arithmetic as resize_antialias); false, having done nothing, when that does not apply.
bool resize_tiled(const Tensor& input, const Tensor& output, const Stream& stream);

// uint8 bicubic, with or without antialias: int16 weights, horizontal then vertical pass.
void resize_uint8_bicubic(const Tensor& input, const Tensor& output, bool antialias, const Stream& stream);

}  // namespace streamvision::cuda
