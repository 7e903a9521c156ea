// The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html), versions 0.x and 1.x,
// including the C exchange API of DLPack 1.2+ (`__dlpack_c_exchange_api__`). Only the layouts
// the bindings use are declared; they must match the specification exactly.
#pragma once

#include <cstdint>

namespace svpy::dl {

struct Version {
  std::uint32_t major;
  std::uint32_t minor;
};

enum DeviceType : std::int32_t {
  kCPU = 1,
  kCUDA = 2,
  kCUDAHost = 3,
  kCUDAManaged = 13,
};

struct Device {
  std::int32_t device_type;
  std::int32_t device_id;
};

enum TypeCode : std::uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBfloat = 4, kBool = 6 };

struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // elements; may be null for compact row-major (pre-1.0 producers)
  std::uint64_t byte_offset;
};

struct ManagedTensor {  // legacy (unversioned) capsules, named "dltensor"
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

inline constexpr std::uint64_t kFlagReadOnly = 1ull << 0;
inline constexpr std::uint64_t kFlagIsCopied = 1ull << 1;

struct ManagedTensorVersioned {  // 1.x capsules, named "dltensor_versioned"
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;
  Tensor dl_tensor;
};

// --- the C exchange API (a PyCapsule named "dlpack_exchange_api" on the tensor type) ---
using ManagedTensorAllocator = int (*)(Tensor* prototype, ManagedTensorVersioned** out, void* error_ctx,
                                       void (*set_error)(void* error_ctx, const char* kind, const char* message));
using ManagedTensorFromPyObjectNoSync = int (*)(void* py_object, ManagedTensorVersioned** out);
using ManagedTensorToPyObjectNoSync = int (*)(ManagedTensorVersioned* tensor, void** out_py_object);
using DLTensorFromPyObjectNoSync = int (*)(void* py_object, Tensor* out);
using CurrentWorkStream = int (*)(std::int32_t device_type, std::int32_t device_id, void** out_stream);

struct ExchangeAPIHeader {
  Version version;
  ExchangeAPIHeader* prev_api;
};

struct ExchangeAPI {
  ExchangeAPIHeader header;
  ManagedTensorAllocator managed_tensor_allocator;
  ManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  ManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;  // may be null
  CurrentWorkStream current_work_stream;
};

}  // namespace svpy::dl
