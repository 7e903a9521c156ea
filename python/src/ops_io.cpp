// Bindings of streamvision::io (the _C half of streamvision.io): files, decoders and encoders.
// Inputs are imported without copying (torch, numpy, any DLPack producer); results come back as
// streamvision.Tensor objects, which streamvision/io.py turns into the caller's kind of tensor
// (torch when torch is installed, as torchvision.io returns). Decoding and encoding run without
// the GIL; batches decode in parallel on the library's thread pool (CPU) or in one GPU batch.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "op_call.hpp"
#include "streamvision/io/image_io.hpp"

namespace svpy {

namespace {

io::ImageReadMode mode_from_int(int mode) {
  if (mode < 0 || mode > 4) {
    throw Error(ErrorKind::Value, "decode", "mode", "an ImageReadMode (0-4)", std::to_string(mode));
  }
  return static_cast<io::ImageReadMode>(mode);
}

Device device_from_str(const std::string& device, const char* op) {
  if (device == "cpu") return Device::cpu();
  if (device == "cuda") return Device::cuda(0);
  if (device.rfind("cuda:", 0) == 0) {
    try {
      std::size_t used = 0;
      const int index = std::stoi(device.substr(5), &used);
      if (used == device.size() - 5 && index >= 0) return Device::cuda(index);
    } catch (const std::exception&) {
    }
  }
  throw Error(ErrorKind::Value, op, "device", "'cpu', 'cuda' or 'cuda:N'", "'" + device + "'");
}

io::OnError on_error_from_str(const std::string& on_error, const char* op) {
  if (on_error == "raise") return io::OnError::Raise;
  if (on_error == "skip") return io::OnError::Skip;
  throw Error(ErrorKind::Value, op, "on_error", "'raise' or 'skip'", "'" + on_error + "'");
}

std::vector<Tensor> import_all(const std::vector<nb::handle>& items, const char* op) {
  std::vector<Tensor> out;
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.push_back(import_tensor(items[i], op, "input", std::nullopt).tensor);
  }
  return out;
}

nb::object to_py(const Tensor& t, Device device) {
  if (!t.defined()) return nb::none();
  return make_pytensor(t, device.is_cuda() ? Stream::current(device.index) : Stream());
}

// (images, errors): None where an image failed under on_error="skip", its message in errors.
// For torch inputs the images are torch tensors made here (`call` is the batch's OpCall): built
// in Python with torch.from_dlpack, one by one, they cost about as much as the decode per image.
nb::tuple batch_result(const std::vector<Tensor>& images, const std::vector<std::string>& errors, Device device,
                       std::optional<OpCall>& call) {
  const bool torch_results = call && call->torch_input();
  nb::list out, messages;
  for (std::size_t i = 0; i < images.size(); ++i) {
    out.append(torch_results && images[i].defined() ? call->wrap(images[i]) : to_py(images[i], device));
    messages.append(errors.empty() || errors[i].empty() ? nb::none() : nb::object(nb::str(errors[i].c_str())));
  }
  return nb::make_tuple(out, messages);
}

using BatchDecoder = std::vector<Tensor> (*)(const std::vector<Tensor>&, io::ImageReadMode, bool, Device, io::OnError,
                                             std::vector<std::string>*, const std::optional<Stream>&);

std::vector<Tensor> jpeg_batch(const std::vector<Tensor>& data, io::ImageReadMode mode, bool exif, Device device,
                               io::OnError on_error, std::vector<std::string>* errors,
                               const std::optional<Stream>& stream) {
  return io::decode_jpeg(data, mode, device, exif, on_error, errors, stream);
}

std::vector<Tensor> image_batch(const std::vector<Tensor>& data, io::ImageReadMode mode, bool exif, Device device,
                                io::OnError on_error, std::vector<std::string>* errors,
                                const std::optional<Stream>& stream) {
  return io::decode_image(data, mode, exif, device, on_error, errors, stream);
}

nb::tuple decode_batch(const char* op, BatchDecoder decode, const std::vector<nb::handle>& items, int mode,
                       bool exif, const std::string& device, const std::string& on_error) {
  const io::ImageReadMode m = mode_from_int(mode);
  const Device d = device_from_str(device, op);
  const io::OnError e = on_error_from_str(on_error, op);
  if (d.is_cuda() && built_with_cuda()) ensure_framework_provider();  // decode on torch's current stream
  const std::vector<Tensor> data = import_all(items, op);
  // Outputs of torch inputs come from PyTorch's allocator (on its current stream on the GPU), as
  // every op's do: the output factory of an OpCall on the first input, active while decoding.
  std::optional<OpCall> call;
  if (!items.empty()) call.emplace(op, items[0], nb::none(), "input");
  std::vector<Tensor> images;
  std::vector<std::string> errors;
  {
    nb::gil_scoped_release release;
    images = decode(data, m, exif, d, e, &errors, std::nullopt);
  }
  return batch_result(images, errors, d, call);
}

}  // namespace

void bind_io(nb::module_& m) {
  m.def("io_available", [] { return true; }, "Whether this build has streamvision.io (libjpeg and libpng).");

  m.def("io_gpu_decoder_available", [] { return io::gpu_decoder_available(); },
        "Whether decode_jpeg(device='cuda') can run: the build has nvJPEG and it loads.");

  m.def("read_file", [](const std::string& path) {
        Tensor t;
        {
          nb::gil_scoped_release release;
          t = io::read_file(path);
        }
        return to_py(t, Device::cpu());
      }, nb::arg("path"), "The bytes of a file as a 1-D uint8 tensor (torchvision.io.read_file).");

  m.def("write_file", [](const std::string& path, nb::handle data) {
        const Tensor t = import_tensor(data, "write_file", "data", std::nullopt).tensor;
        nb::gil_scoped_release release;
        io::write_file(path, t);
      }, nb::arg("path"), nb::arg("data"), "Writes a 1-D uint8 tensor to a file (torchvision.io.write_file).");

  m.def("decode_jpeg_batch", [](const std::vector<nb::handle>& items, int mode, bool exif, const std::string& device,
                                const std::string& on_error) {
        return decode_batch("decode_jpeg", &jpeg_batch, items, mode, exif, device, on_error);
      }, nb::arg("inputs"), nb::arg("mode"), nb::arg("apply_exif_orientation"), nb::arg("device"), nb::arg("on_error"),
      "Decodes JPEG byte tensors: (images, errors), None and a message where an image failed with on_error='skip'.");

  m.def("decode_image_batch", [](const std::vector<nb::handle>& items, int mode, bool exif, const std::string& device,
                                 const std::string& on_error) {
        return decode_batch("decode_image", &image_batch, items, mode, exif, device, on_error);
      }, nb::arg("inputs"), nb::arg("mode"), nb::arg("apply_exif_orientation"), nb::arg("device"), nb::arg("on_error"),
      "Decodes JPEG or PNG byte tensors: (images, errors), as decode_jpeg_batch.");

  m.def("decode_jpeg", [](nb::handle input, int mode, bool exif, const std::string& device) {
        const io::ImageReadMode m_ = mode_from_int(mode);
        const Device d = device_from_str(device, "decode_jpeg");
        if (d.is_cuda() && built_with_cuda()) ensure_framework_provider();
        const Tensor data = import_tensor(input, "decode_jpeg", "input", std::nullopt).tensor;
        Tensor out;
        {
          nb::gil_scoped_release release;
          out = io::decode_jpeg(data, m_, d, exif);
        }
        return to_py(out, d);
      }, nb::arg("input"), nb::arg("mode"), nb::arg("apply_exif_orientation"), nb::arg("device"),
      "Decodes a JPEG byte tensor to a uint8 [C, H, W] image on `device`.");

  m.def("decode_image", [](nb::handle input, int mode, bool exif, const std::string& device) {
        const io::ImageReadMode m_ = mode_from_int(mode);
        const Device d = device_from_str(device, "decode_image");
        if (d.is_cuda() && built_with_cuda()) ensure_framework_provider();
        const Tensor data = import_tensor(input, "decode_image", "input", std::nullopt).tensor;
        Tensor out;
        {
          nb::gil_scoped_release release;
          out = io::decode_image(data, m_, exif, d);
        }
        return to_py(out, d);
      }, nb::arg("input"), nb::arg("mode"), nb::arg("apply_exif_orientation"), nb::arg("device"),
      "Decodes a JPEG or PNG byte tensor (recognised from its first bytes).");

  m.def("decode_png", [](nb::handle input, int mode, bool exif) {
        const io::ImageReadMode m_ = mode_from_int(mode);
        const Tensor data = import_tensor(input, "decode_png", "input", std::nullopt).tensor;
        Tensor out;
        {
          nb::gil_scoped_release release;
          out = io::decode_png(data, m_, exif);
        }
        return to_py(out, Device::cpu());
      }, nb::arg("input"), nb::arg("mode"), nb::arg("apply_exif_orientation"),
      "Decodes a PNG byte tensor to [C, H, W] uint8 (uint16 for 16-bit PNGs).");

  m.def("encode_jpeg", [](nb::handle input, int quality) {
        const Tensor image = import_tensor(input, "encode_jpeg", "input", std::nullopt).tensor;
        Tensor out;
        {
          nb::gil_scoped_release release;
          out = io::encode_jpeg(image, quality);
        }
        return to_py(out, Device::cpu());
      }, nb::arg("input"), nb::arg("quality"), "Encodes a uint8 [C, H, W] CPU image (C = 1 or 3) as JPEG bytes.");

  m.def("encode_png", [](nb::handle input, int compression_level) {
        const Tensor image = import_tensor(input, "encode_png", "input", std::nullopt).tensor;
        Tensor out;
        {
          nb::gil_scoped_release release;
          out = io::encode_png(image, compression_level);
        }
        return to_py(out, Device::cpu());
      }, nb::arg("input"), nb::arg("compression_level"), "Encodes a uint8/uint16 [C, H, W] CPU image as PNG bytes.");
}

}  // namespace svpy
