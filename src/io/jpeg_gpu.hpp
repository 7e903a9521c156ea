// Internal: the GPU JPEG decoder hook the io front end calls for CUDA devices. Built from
// jpeg_gpu_nvjpeg.cpp when CMake's SV_IO_NVJPEG is ON, else from jpeg_gpu_unavailable.cpp (which
// reports that the build has no GPU decoder).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "streamvision/io/image_io.hpp"

namespace streamvision::io::detail {

// Whether decode_jpeg_gpu can run here (the build has nvJPEG and its library loads).
bool gpu_jpeg_decoder_available();

// Decodes JPEG byte tensors (CPU, uint8, 1-D) on `device` in one batch, ordered on `stream`; per
// image either an image (uint8 [C, H, W] on `device`) or an error message (on_error decides what
// the caller does with it).
std::vector<std::variant<Tensor, std::string>> decode_jpeg_gpu(const std::vector<Tensor>& data, ImageReadMode mode,
                                                               bool apply_exif_orientation, Device device,
                                                               const Stream& stream);

}  // namespace streamvision::io::detail
