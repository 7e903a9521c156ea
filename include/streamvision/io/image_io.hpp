// Reading, decoding, encoding and writing images: torchvision.io's functions with its names and
// results. Decoded images are uint8 [C, H, W] tensors (uint16 for 16-bit PNGs), laid out
// channels_last (the decoders write H x W x C rows), as torchvision returns them.
//
// CPU decoding uses libjpeg-turbo and libpng with torchvision's settings, so results equal
// torchvision.io's CPU decode bit for bit. device=cuda decodes JPEGs with nvJPEG when the library
// was built with it (else a clear Error says so), ordered on the given stream (default: the
// device's current stream), like every other op.
//
// Errors: bad data raises an Error naming the op and what is wrong ("decode_jpeg: Image is
// incomplete or truncated"); a batch call names the index of the bad image, or with
// OnError::Skip returns an undefined Tensor in its place and reports the message in `errors`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "streamvision/core/device.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"

namespace streamvision::io {

// torchvision.io.ImageReadMode: the channels of a decoded image.
enum class ImageReadMode {
  Unchanged = 0,  // as stored (JPEG: 1, 3 or 4 (CMYK) channels; PNG: 1, 2, 3 or 4)
  Gray = 1,
  GrayAlpha = 2,  // PNG only
  RGB = 3,
  RGBAlpha = 4,   // PNG only
};

// What a batch call does with an image that fails to decode.
enum class OnError {
  Raise,  // throw an Error naming the image's index (the default)
  Skip,   // leave an undefined Tensor at its index and decode the others
};

// "UNCHANGED", "GRAY", "GRAY_ALPHA", "RGB", "RGB_ALPHA" (torchvision's names).
const char* image_read_mode_name(ImageReadMode mode);

// The bytes of a file as a 1-D uint8 CPU tensor (torchvision.io.read_file). Errors name the path.
Tensor read_file(const std::string& path);
// Writes a 1-D uint8 CPU tensor to `path` (torchvision.io.write_file).
void write_file(const std::string& path, const Tensor& data);

// Whether decode_jpeg(device=cuda) can run here: the build has nvJPEG and it loads.
bool gpu_decoder_available();

// The formats decode_image recognises from the first bytes.
enum class ImageFormat { Unknown, JPEG, PNG };
ImageFormat sniff_image_format(const Tensor& data);

// ---- decoding: `data` is a 1-D uint8 CPU tensor of the encoded bytes -------------------------
Tensor decode_jpeg(const Tensor& data, ImageReadMode mode = ImageReadMode::Unchanged,
                   Device device = Device::cpu(), bool apply_exif_orientation = false,
                   const std::optional<Stream>& stream = std::nullopt);
// A batch: on the CPU the images decode in parallel on the library's thread pool; on CUDA in one
// nvJPEG batch. `errors`, when given, receives one entry per input: empty, or the message of the
// image's failure (with OnError::Skip).
std::vector<Tensor> decode_jpeg(const std::vector<Tensor>& data, ImageReadMode mode = ImageReadMode::Unchanged,
                                Device device = Device::cpu(), bool apply_exif_orientation = false,
                                OnError on_error = OnError::Raise, std::vector<std::string>* errors = nullptr,
                                const std::optional<Stream>& stream = std::nullopt);

// 8-bit PNGs decode to uint8, 16-bit ones to uint16 (torchvision >= 0.21's decode_png).
Tensor decode_png(const Tensor& data, ImageReadMode mode = ImageReadMode::Unchanged,
                  bool apply_exif_orientation = false);

// JPEG or PNG, recognised from the first bytes (torchvision.io.decode_image). On CUDA, JPEGs
// decode on the GPU and PNGs on the CPU, then move to the device on `stream`.
Tensor decode_image(const Tensor& data, ImageReadMode mode = ImageReadMode::Unchanged,
                    bool apply_exif_orientation = false, Device device = Device::cpu(),
                    const std::optional<Stream>& stream = std::nullopt);
std::vector<Tensor> decode_image(const std::vector<Tensor>& data, ImageReadMode mode = ImageReadMode::Unchanged,
                                 bool apply_exif_orientation = false, Device device = Device::cpu(),
                                 OnError on_error = OnError::Raise, std::vector<std::string>* errors = nullptr,
                                 const std::optional<Stream>& stream = std::nullopt);

// ---- encoding: `image` is a uint8 [C, H, W] CPU tensor, C = 1 or 3 (JPEG), 1-4 (PNG) ----------
// quality in [1, 100] (torchvision's default 75); returns the bytes as a 1-D uint8 tensor.
Tensor encode_jpeg(const Tensor& image, int quality = 75);
std::vector<Tensor> encode_jpeg(const std::vector<Tensor>& images, int quality = 75);
// compression_level in [0, 9] (torchvision's default 6); uint8 or uint16 images.
Tensor encode_png(const Tensor& image, int compression_level = 6);

}  // namespace streamvision::io
