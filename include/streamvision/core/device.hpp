// Where a tensor's memory lives: the host, or one CUDA device.
#pragma once

#include <cstdint>
#include <string>

namespace streamvision {

enum class DeviceType : std::uint8_t { CPU = 0, CUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;  // always 0 for the CPU

  static constexpr Device cpu() { return {DeviceType::CPU, 0}; }
  static constexpr Device cuda(int index = 0) { return {DeviceType::CUDA, index}; }
  constexpr bool is_cpu() const { return type == DeviceType::CPU; }
  constexpr bool is_cuda() const { return type == DeviceType::CUDA; }
  constexpr bool operator==(const Device&) const = default;
  // "cpu" or "cuda:1", as torch prints devices.
  std::string str() const;
};

const char* device_type_name(DeviceType type);

}  // namespace streamvision
