// The kernel registry: each op has one table mapping a device type to a kernel (a plain
// function pointer) and the dtypes that kernel supports. Functionals validate arguments, size
// the output, then call table.get(device, dtype). The library registers its CPU and CUDA
// kernels at load time; users may register their own or replace ours, as torchvision's
// register_kernel allows:
//
//   streamvision::register_kernel<streamvision::ops::HorizontalFlip>(
//       streamvision::DeviceType::CUDA, &my_flip, streamvision::DTypeSet{DType::UInt8});
//
// Tables are safe to read while another thread registers.
#pragma once

#include <atomic>
#include <cstdint>

#include "streamvision/core/device.hpp"
#include "streamvision/core/dtype.hpp"
#include "streamvision/core/error.hpp"

namespace streamvision {

template <class Kernel>
class KernelTable {
 public:
  explicit KernelTable(const char* op) : op_(op) {}

  void set(DeviceType device, Kernel kernel, DTypeSet dtypes) {
    const int i = static_cast<int>(device);
    // dtypes first: a reader that sees the new kernel also sees what it supports.
    dtypes_[i].store(kernel ? dtypes.bits() : 0u, std::memory_order_release);
    kernel_[i].store(kernel, std::memory_order_release);
  }

  // The kernel for (device, dtype); throws Error naming the op, the dtype, the device and what
  // is supported when there is none.
  Kernel get(Device device, DType dtype) const {
    const int i = static_cast<int>(device.type);
    const Kernel kernel = kernel_[i].load(std::memory_order_acquire);
    const DTypeSet supported = DTypeSet::from_bits(dtypes_[i].load(std::memory_order_acquire));
    if (kernel != nullptr && supported.contains(dtype)) return kernel;
    throw_unsupported(op_, device, dtype, kernel != nullptr, supported);
  }

  DTypeSet dtypes(DeviceType device) const {
    return DTypeSet::from_bits(dtypes_[static_cast<int>(device)].load(std::memory_order_acquire));
  }
  const char* op() const { return op_; }

 private:
  const char* op_;
  std::atomic<Kernel> kernel_[kNumDeviceTypes] = {};
  std::atomic<std::uint32_t> dtypes_[kNumDeviceTypes] = {};
};

[[noreturn]] void throw_unsupported(const char* op, Device device, DType dtype, bool has_kernel, DTypeSet supported);

// One table per op, defined in the op's source file (SV_DEFINE_KERNEL_TABLE).
template <class Op>
KernelTable<typename Op::Kernel>& kernel_table();

template <class Op>
void register_kernel(DeviceType device, typename Op::Kernel kernel, DTypeSet dtypes) {
  kernel_table<Op>().set(device, kernel, dtypes);
}

}  // namespace streamvision

// In the op's public header, at global scope.
#define SV_DECLARE_KERNEL_TABLE(OP) \
  namespace streamvision {          \
  template <>                       \
  KernelTable<OP::Kernel>& kernel_table<OP>(); \
  }

// In exactly one source file per op, at global scope.
#define SV_DEFINE_KERNEL_TABLE(OP)                    \
  namespace streamvision {                            \
  template <>                                         \
  KernelTable<OP::Kernel>& kernel_table<OP>() {       \
    static KernelTable<OP::Kernel> table(OP::name);   \
    return table;                                     \
  }                                                   \
  }

// Registers a library kernel at load time (in the engine's source file).
#define SV_CONCAT_INNER(a, b) a##b
#define SV_CONCAT(a, b) SV_CONCAT_INNER(a, b)
#define SV_REGISTER_KERNEL(OP, DEVICE, KERNEL, DTYPES)                                          \
  static const bool SV_CONCAT(sv_registered_, __LINE__) = [] {                                  \
    ::streamvision::register_kernel<OP>(DEVICE, KERNEL, DTYPES);                                \
    return true;                                                                                \
  }()
