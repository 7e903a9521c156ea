// read_file / write_file, and the byte-tensor helpers every codec shares.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "io/codecs.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::io {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string errno_text() { return std::strerror(errno); }

}  // namespace

Tensor read_file(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) throw Error(ErrorKind::Runtime, "read_file", "cannot open '" + path + "': " + errno_text());
  if (std::fseek(f.get(), 0, SEEK_END) != 0) {
    throw Error(ErrorKind::Runtime, "read_file", "cannot read '" + path + "': " + errno_text());
  }
  const long size = std::ftell(f.get());
  if (size < 0) throw Error(ErrorKind::Runtime, "read_file", "cannot read '" + path + "': " + errno_text());
  std::rewind(f.get());
  Tensor out = empty({static_cast<std::int64_t>(size)}, DType::UInt8, Device::cpu());
  if (size > 0 && std::fread(out.data(), 1, static_cast<std::size_t>(size), f.get()) != static_cast<std::size_t>(size)) {
    throw Error(ErrorKind::Runtime, "read_file", "cannot read '" + path + "': " + errno_text());
  }
  return out;
}

void write_file(const std::string& path, const Tensor& data) {
  if (!data.defined() || data.dtype() != DType::UInt8 || data.dim() != 1 || !data.device().is_cpu()) {
    throw Error(ErrorKind::Type, "write_file", "data", "a 1-D uint8 CPU tensor",
                data.defined() ? data.str() : "an undefined tensor");
  }
  const Tensor bytes = data.is_contiguous() ? data : contiguous(data);
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) throw Error(ErrorKind::Runtime, "write_file", "cannot open '" + path + "' for writing: " + errno_text());
  if (std::fwrite(bytes.data(), 1, bytes.nbytes(), f.get()) != bytes.nbytes() || std::fflush(f.get()) != 0) {
    throw Error(ErrorKind::Runtime, "write_file", "cannot write '" + path + "': " + errno_text());
  }
}

namespace detail {

Tensor bytes_tensor(const std::uint8_t* bytes, std::size_t size) {
  Tensor out = empty({static_cast<std::int64_t>(size)}, DType::UInt8, Device::cpu());
  if (size > 0) std::memcpy(out.data(), bytes, size);
  return out;
}

void check_encoded(const Tensor& data, const char* op) {
  if (!data.defined()) throw Error(ErrorKind::Type, op, "input", "a 1-D uint8 CPU tensor", "an undefined tensor");
  if (data.dtype() != DType::UInt8) {
    throw Error(ErrorKind::Type, op, "input", "a uint8 tensor of encoded bytes", dtype_name(data.dtype()));
  }
  if (data.dim() != 1 || data.numel() == 0) {
    throw Error(ErrorKind::Value, op, "input", "a non-empty 1-D tensor", "shape " + Dims(data.shape()).str());
  }
  if (!data.device().is_cpu()) {
    throw Error(ErrorKind::Value, op, "input", "the encoded bytes on the CPU", "a tensor on " + data.device().str());
  }
  if (!data.is_contiguous()) throw Error(ErrorKind::Value, op, "input", "a contiguous tensor", "a strided view");
}

}  // namespace detail
}  // namespace streamvision::io
