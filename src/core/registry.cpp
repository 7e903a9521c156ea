#include "streamvision/core/registry.hpp"

#include <string>

#include "streamvision/core/cuda.hpp"

namespace streamvision {

void throw_unsupported(const char* op, Device device, DType dtype, bool has_kernel, DTypeSet supported) {
  if (!has_kernel) {
    std::string why = std::string("no ") + device_type_name(device.type) + " kernel is registered";
    if (device.is_cuda() && !built_with_cuda()) why += " (streamvision was built without CUDA)";
    throw Error(ErrorKind::NotImplemented, op, "image", std::string("a tensor on a device with a kernel for ") + op,
                "a tensor on " + device.str() + ": " + why);
  }
  throw Error(ErrorKind::UnsupportedDType, op, "image",
              std::string("dtype in {") + supported.to_string() + "} on " + device_type_name(device.type),
              std::string(dtype_name(dtype)) + " on " + device.str());
}

}  // namespace streamvision
