// The io front end: argument checks, format sniffing, batches (in parallel on the CPU pool, or one
// GPU batch through the nvJPEG hook), on_error, devices; the codecs themselves are in
// jpeg_cpu.cpp, png_cpu.cpp and the GPU hook (jpeg_gpu.hpp).
#include <cstring>
#include <exception>
#include <variant>

#include "cpu/parallel.hpp"
#include "io/codecs.hpp"
#include "io/jpeg_gpu.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::io {

const char* image_read_mode_name(ImageReadMode mode) {
  switch (mode) {
    case ImageReadMode::Unchanged: return "UNCHANGED";
    case ImageReadMode::Gray: return "GRAY";
    case ImageReadMode::GrayAlpha: return "GRAY_ALPHA";
    case ImageReadMode::RGB: return "RGB";
    case ImageReadMode::RGBAlpha: return "RGB_ALPHA";
  }
  return "?";
}

bool gpu_decoder_available() { return detail::gpu_jpeg_decoder_available(); }

ImageFormat sniff_image_format(const Tensor& data) {
  if (!data.defined() || data.dtype() != DType::UInt8 || data.dim() != 1 || !data.device().is_cpu()) {
    return ImageFormat::Unknown;
  }
  const auto* p = static_cast<const std::uint8_t*>(data.data());
  const std::int64_t n = data.numel() * data.stride(0) > 0 ? data.numel() : 0;
  auto at = [&](std::int64_t i) { return p[i * data.stride(0)]; };
  if (n >= 3 && at(0) == 0xFF && at(1) == 0xD8 && at(2) == 0xFF) return ImageFormat::JPEG;
  static constexpr std::uint8_t kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (n >= 8) {
    bool png = true;
    for (int i = 0; i < 8; ++i) png = png && at(i) == kPng[i];
    if (png) return ImageFormat::PNG;
  }
  return ImageFormat::Unknown;
}

namespace {

void check_mode(ImageReadMode mode, const char* op) {
  const int m = static_cast<int>(mode);
  if (m < 0 || m > 4) {
    throw Error(ErrorKind::Value, op, "mode", "UNCHANGED, GRAY, GRAY_ALPHA, RGB or RGB_ALPHA", std::to_string(m));
  }
}

void check_device(Device device, const char* op) {
  if (device.is_cuda() && device.index < 0) throw Error(ErrorKind::Value, op, "device", "cpu or cuda:N", device.str());
}

// Decodes one validated input on the CPU, by its format.
Tensor decode_any_cpu(const Tensor& data, ImageReadMode mode, bool exif) {
  switch (sniff_image_format(data)) {
    case ImageFormat::JPEG: return detail::decode_jpeg_cpu(data, mode, exif);
    case ImageFormat::PNG: return detail::decode_png_cpu(data, mode, exif);
    default:
      throw Error(ErrorKind::Runtime, "decode_image",
                  "Unsupported image file: the data is neither JPEG nor PNG (streamvision decodes JPEG and PNG)");
  }
}

// "op: image N: message" for a failure inside a batch.
Error batch_error(const char* op, std::size_t index, const std::exception& e) {
  const auto* error = dynamic_cast<const Error*>(&e);
  std::string message = e.what();
  const std::string prefix = std::string(op) + ": ";
  if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
  return Error(error != nullptr ? error->kind() : ErrorKind::Runtime, op,
               "image " + std::to_string(index) + " of the batch: " + message);
}

// The stream a GPU decode runs on. Without a GPU decoder the hook only reports that, so no CUDA
// stream is looked up (there may be no CUDA at all).
Stream gpu_stream(Device device, const std::optional<Stream>& stream) {
  if (stream) return *stream;
  return detail::gpu_jpeg_decoder_available() ? Stream::current(device.index) : Stream();
}

using DecodeOne = Tensor (*)(const Tensor&, ImageReadMode, bool);

// The CPU batch: inputs checked first (a bad argument raises whatever on_error says, as
// torchvision checks every input before decoding), then decoded in parallel.
std::vector<Tensor> decode_batch_cpu(const char* op, const std::vector<Tensor>& data, ImageReadMode mode, bool exif,
                                     OnError on_error, std::vector<std::string>* errors, DecodeOne decode) {
  for (const Tensor& d : data) detail::check_encoded(d, op);
  std::vector<Tensor> out(data.size());
  std::vector<std::exception_ptr> failures(data.size());
  cpu::parallel_for(static_cast<std::int64_t>(data.size()), 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      try {
        out[i] = decode(data[i], mode, exif);
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  });
  if (errors != nullptr) errors->assign(data.size(), std::string());
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (!failures[i]) continue;
    try {
      std::rethrow_exception(failures[i]);
    } catch (const std::exception& e) {
      const Error error = batch_error(op, i, e);
      if (on_error == OnError::Raise) throw error;
      if (errors != nullptr) (*errors)[i] = error.what();
    }
  }
  return out;
}

std::vector<Tensor> decode_jpeg_batch_gpu(const std::vector<Tensor>& data, ImageReadMode mode, bool exif,
                                          Device device, OnError on_error, std::vector<std::string>* errors,
                                          const std::optional<Stream>& stream) {
  for (const Tensor& d : data) detail::check_encoded(d, "decode_jpeg");
  auto results = detail::decode_jpeg_gpu(data, mode, exif, device, gpu_stream(device, stream));
  if (results.size() != data.size()) {
    throw Error(ErrorKind::Runtime, "decode_jpeg", "the GPU decoder returned " + std::to_string(results.size()) +
                                                       " results for " + std::to_string(data.size()) + " images");
  }
  std::vector<Tensor> out(data.size());
  if (errors != nullptr) errors->assign(data.size(), std::string());
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (auto* image = std::get_if<Tensor>(&results[i])) {
      out[i] = *image;
      continue;
    }
    const Error error = batch_error("decode_jpeg", i, std::runtime_error(std::get<std::string>(results[i])));
    if (on_error == OnError::Raise) throw error;
    if (errors != nullptr) (*errors)[i] = error.what();
  }
  return out;
}

}  // namespace

Tensor decode_jpeg(const Tensor& data, ImageReadMode mode, Device device, bool apply_exif_orientation,
                   const std::optional<Stream>& stream) {
  check_mode(mode, "decode_jpeg");
  check_device(device, "decode_jpeg");
  detail::check_encoded(data, "decode_jpeg");
  if (device.is_cuda()) {
    auto results = detail::decode_jpeg_gpu({data}, mode, apply_exif_orientation, device, gpu_stream(device, stream));
    if (auto* message = std::get_if<std::string>(&results.at(0))) throw Error(ErrorKind::Runtime, "decode_jpeg", *message);
    return std::get<Tensor>(results[0]);
  }
  return detail::decode_jpeg_cpu(data, mode, apply_exif_orientation);
}

std::vector<Tensor> decode_jpeg(const std::vector<Tensor>& data, ImageReadMode mode, Device device,
                                bool apply_exif_orientation, OnError on_error, std::vector<std::string>* errors,
                                const std::optional<Stream>& stream) {
  check_mode(mode, "decode_jpeg");
  check_device(device, "decode_jpeg");
  if (device.is_cuda()) return decode_jpeg_batch_gpu(data, mode, apply_exif_orientation, device, on_error, errors, stream);
  return decode_batch_cpu("decode_jpeg", data, mode, apply_exif_orientation, on_error, errors, &detail::decode_jpeg_cpu);
}

Tensor decode_png(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation) {
  check_mode(mode, "decode_png");
  detail::check_encoded(data, "decode_png");
  return detail::decode_png_cpu(data, mode, apply_exif_orientation);
}

Tensor decode_image(const Tensor& data, ImageReadMode mode, bool apply_exif_orientation, Device device,
                    const std::optional<Stream>& stream) {
  check_mode(mode, "decode_image");
  check_device(device, "decode_image");
  detail::check_encoded(data, "decode_image");
  if (device.is_cuda() && sniff_image_format(data) == ImageFormat::JPEG) {
    return decode_jpeg(data, mode, device, apply_exif_orientation, stream);
  }
  const Tensor image = decode_any_cpu(data, mode, apply_exif_orientation);
  return device.is_cuda() ? to_device(image, device, stream) : image;
}

std::vector<Tensor> decode_image(const std::vector<Tensor>& data, ImageReadMode mode, bool apply_exif_orientation,
                                 Device device, OnError on_error, std::vector<std::string>* errors,
                                 const std::optional<Stream>& stream) {
  check_mode(mode, "decode_image");
  check_device(device, "decode_image");
  if (!device.is_cuda()) {
    return decode_batch_cpu("decode_image", data, mode, apply_exif_orientation, on_error, errors, &decode_any_cpu);
  }
  // JPEGs in one GPU batch; the rest on the CPU, then moved to the device.
  for (const Tensor& d : data) detail::check_encoded(d, "decode_image");
  std::vector<Tensor> jpegs, others;
  std::vector<std::size_t> jpeg_index, other_index;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const bool jpeg = sniff_image_format(data[i]) == ImageFormat::JPEG;
    (jpeg ? jpegs : others).push_back(data[i]);
    (jpeg ? jpeg_index : other_index).push_back(i);
  }
  std::vector<std::string> jpeg_errors, other_errors;
  std::vector<Tensor> out(data.size());
  if (errors != nullptr) errors->assign(data.size(), std::string());
  // Index errors by the caller's positions: decode both groups with Skip, then apply on_error.
  const auto gpu = jpegs.empty() ? std::vector<Tensor>()
                                 : decode_jpeg_batch_gpu(jpegs, mode, apply_exif_orientation, device, OnError::Skip,
                                                         &jpeg_errors, stream);
  const auto cpu = decode_batch_cpu("decode_image", others, mode, apply_exif_orientation, OnError::Skip, &other_errors,
                                    &decode_any_cpu);
  auto place = [&](const std::vector<Tensor>& images, const std::vector<std::string>& messages,
                   const std::vector<std::size_t>& index, bool move) {
    for (std::size_t k = 0; k < images.size(); ++k) {
      const std::size_t i = index[k];
      if (messages.empty() || messages[k].empty()) {
        out[i] = move ? to_device(images[k], device, stream) : images[k];
        continue;
      }
      // The message names the group's index: name the caller's instead.
      std::string message = messages[k];
      const std::size_t colon = message.find(" of the batch: ");
      if (colon != std::string::npos) message = message.substr(colon + 15);
      const Error error(ErrorKind::Runtime, "decode_image", "image " + std::to_string(i) + " of the batch: " + message);
      if (on_error == OnError::Raise) throw error;
      if (errors != nullptr) (*errors)[i] = error.what();
    }
  };
  place(gpu, jpeg_errors, jpeg_index, false);
  place(cpu, other_errors, other_index, true);
  return out;
}

Tensor encode_jpeg(const Tensor& image, int quality) {
  if (!image.defined() || image.dtype() != DType::UInt8 || !image.device().is_cpu()) {
    throw Error(ErrorKind::Type, "encode_jpeg", "input", "a uint8 CPU tensor",
                image.defined() ? image.str() : "an undefined tensor");
  }
  if (image.dim() != 3 || (image.size(0) != 1 && image.size(0) != 3)) {
    throw Error(ErrorKind::Value, "encode_jpeg", "input", "an image [C, H, W] with 1 or 3 channels",
                "shape " + Dims(image.shape()).str());
  }
  if (quality < 1 || quality > 100) {
    throw Error(ErrorKind::Value, "encode_jpeg", "quality", "a value in [1, 100]", std::to_string(quality));
  }
  if (image.size(1) == 0 || image.size(2) == 0 || image.size(1) > 65500 || image.size(2) > 65500) {
    throw Error(ErrorKind::Value, "encode_jpeg", "input", "height and width in [1, 65500]",
                "shape " + Dims(image.shape()).str());
  }
  return detail::encode_jpeg_cpu(image, quality);
}

std::vector<Tensor> encode_jpeg(const std::vector<Tensor>& images, int quality) {
  std::vector<Tensor> out(images.size());
  for (std::size_t i = 0; i < images.size(); ++i) {
    try {
      out[i] = encode_jpeg(images[i], quality);
    } catch (const std::exception& e) {
      throw batch_error("encode_jpeg", i, e);
    }
  }
  return out;
}

Tensor encode_png(const Tensor& image, int compression_level) {
  if (!image.defined() || (image.dtype() != DType::UInt8 && image.dtype() != DType::UInt16) ||
      !image.device().is_cpu()) {
    throw Error(ErrorKind::Type, "encode_png", "input", "a uint8 or uint16 CPU tensor",
                image.defined() ? image.str() : "an undefined tensor");
  }
  if (image.dim() != 3 || image.size(0) < 1 || image.size(0) > 4) {
    throw Error(ErrorKind::Value, "encode_png", "input", "an image [C, H, W] with 1 to 4 channels",
                "shape " + Dims(image.shape()).str());
  }
  if (compression_level < 0 || compression_level > 9) {
    throw Error(ErrorKind::Value, "encode_png", "compression_level", "a value in [0, 9]",
                std::to_string(compression_level));
  }
  if (image.size(1) == 0 || image.size(2) == 0) {
    throw Error(ErrorKind::Value, "encode_png", "input", "a non-empty image", "shape " + Dims(image.shape()).str());
  }
  return detail::encode_png_cpu(image, compression_level);
}

}  // namespace streamvision::io
