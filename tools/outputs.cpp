#include "outputs.hpp"

#include <atomic>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

#include <streamvision/io/image_io.hpp>

namespace svtool {

namespace sv = streamvision;
namespace fs = std::filesystem;

OutputFormat parse_output_format(const std::string& name) {
  if (name == "auto") return OutputFormat::Auto;
  if (name == "npy") return OutputFormat::Npy;
  if (name == "png") return OutputFormat::Png;
  if (name == "jpeg" || name == "jpg") return OutputFormat::Jpeg;
  if (name == "pt") throw std::invalid_argument("--format pt is not supported (write npy: torch.from_numpy(np.load(f)))");
  throw std::invalid_argument("--format must be npy, png or jpeg, got '" + name + "'");
}

OutputFormat resolve_format(OutputFormat wanted, const sv::Tensor& result) {
  const bool image8 = result.dtype() == sv::DType::UInt8 && result.dim() == 3 && result.size(0) <= 4;
  if (wanted == OutputFormat::Auto) return image8 && result.size(0) != 2 ? OutputFormat::Png : OutputFormat::Npy;
  if (wanted != OutputFormat::Npy && !image8) {
    throw std::invalid_argument(std::string("--format ") + (wanted == OutputFormat::Png ? "png" : "jpeg") +
                                " needs uint8 [C, H, W] results, the pipeline gives " + sv::dtype_name(result.dtype()) +
                                " " + sv::Dims(result.shape()).str() + " (use --format npy, or end with to_dtype=uint8)");
  }
  if (wanted == OutputFormat::Jpeg && result.size(0) != 1 && result.size(0) != 3) {
    throw std::invalid_argument("--format jpeg needs 1 or 3 channels, the result has " + std::to_string(result.size(0)));
  }
  return wanted;
}

const char* extension(OutputFormat format) {
  switch (format) {
    case OutputFormat::Png: return ".png";
    case OutputFormat::Jpeg: return ".jpg";
    default: return ".npy";
  }
}

void write_atomically(const fs::path& path, const std::string& bytes) {
  static std::atomic<unsigned> counter{0};
  if (!path.parent_path().empty()) fs::create_directories(path.parent_path());  // "sheet.png": the current folder
  const fs::path tmp = path.parent_path() / ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) +
                                             "-" + std::to_string(counter++));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ignore;
      fs::remove(tmp, ignore);
      throw std::runtime_error("cannot write '" + tmp.string() + "'");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignore;
    fs::remove(tmp, ignore);
    throw std::runtime_error("cannot rename '" + tmp.string() + "' to '" + path.string() + "': " + ec.message());
  }
}

namespace {

const char* npy_descr(sv::DType dtype) {
  switch (dtype) {
    case sv::DType::UInt8: return "|u1";
    case sv::DType::Int8: return "|i1";
    case sv::DType::UInt16: return "<u2";
    case sv::DType::Int16: return "<i2";
    case sv::DType::Int32: return "<i4";
    case sv::DType::Int64: return "<i8";
    case sv::DType::Float16: return "<f2";
    case sv::DType::Float32: return "<f4";
    case sv::DType::Float64: return "<f8";
    case sv::DType::Bool: return "|b1";
    default: return nullptr;
  }
}

}  // namespace

std::string npy_bytes(const sv::Tensor& t) {
  sv::Tensor c = t;
  if (npy_descr(c.dtype()) == nullptr) c = sv::functional::to_dtype(c, sv::DType::Float32);  // bfloat16: numpy has none
  c = sv::contiguous(c);
  std::string shape = "(";
  for (int d = 0; d < c.dim(); ++d) shape += std::to_string(c.size(d)) + (c.dim() == 1 || d + 1 < c.dim() ? ", " : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + npy_descr(c.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + header length (2) + header + '\n', padded to a multiple of 64.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(static_cast<const char*>(c.data()), c.nbytes());
  return out;
}

std::string encode_output(const sv::Tensor& result, OutputFormat format) {
  if (format == OutputFormat::Npy) return npy_bytes(result);
  const sv::Tensor bytes = format == OutputFormat::Png ? sv::io::encode_png(result) : sv::io::encode_jpeg(result, 95);
  return std::string(static_cast<const char*>(bytes.data()), bytes.nbytes());
}

}  // namespace svtool
