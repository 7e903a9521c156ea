// Writing results: .npy (any dtype; the header is written here, format version 1.0), .png and
// .jpeg (uint8 images, through streamvision::io), each written atomically: to a temporary name
// in the same folder, then renamed, so an interrupted run never leaves a half-written output.
#pragma once

#include <filesystem>
#include <string>

#include <streamvision/streamvision.hpp>

namespace svtool {

enum class OutputFormat { Auto, Npy, Png, Jpeg };

// "auto" | "npy" | "png" | "jpeg"; throws std::invalid_argument otherwise.
OutputFormat parse_output_format(const std::string& name);
// The format a result gets: Auto chooses PNG for uint8 images with 1, 3 or 4 channels, else npy.
// PNG/JPEG for other results throws std::invalid_argument naming the dtype.
OutputFormat resolve_format(OutputFormat wanted, const streamvision::Tensor& result);
const char* extension(OutputFormat format);  // ".npy", ".png", ".jpg"

// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
void write_atomically(const std::filesystem::path& path, const std::string& bytes);

// The .npy file of a CPU tensor (any layout: written in logical C order).
std::string npy_bytes(const streamvision::Tensor& cpu_tensor);

// The encoded bytes of `cpu_result` in `format` (Npy, Png or Jpeg).
std::string encode_output(const streamvision::Tensor& cpu_result, OutputFormat format);

}  // namespace svtool
