#include "streamvision/core/device.hpp"

namespace streamvision {

const char* device_type_name(DeviceType type) { return type == DeviceType::CPU ? "cpu" : "cuda"; }

std::string Device::str() const {
  if (type == DeviceType::CPU) return "cpu";
  return std::string("cuda:") + std::to_string(index);
}

}  // namespace streamvision
