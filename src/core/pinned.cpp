// Page-locked host memory: empty_pinned and is_pinned. In a CPU-only build there is none.
#include <memory>
#include <string>

#include "core/tensor_bytes.hpp"
#include "streamvision/core/cuda.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/core/tensor.hpp"

#if SV_WITH_CUDA
#include "core/cuda_check.hpp"
#endif

namespace streamvision {

namespace {

// The owner of empty_pinned's memory. Its type is how is_pinned recognises our allocations
// without asking the driver (std::get_deleter on the tensor's owner).
struct PinnedFree {
  void operator()(void* ptr) const noexcept {
#if SV_WITH_CUDA
    // At exit the context may be gone already: nothing to report to anyone then.
    if (ptr != nullptr && cudaFreeHost(ptr) != cudaSuccess) (void)cudaGetLastError();
#else
    (void)ptr;
#endif
  }
};

}  // namespace

Tensor empty_pinned(const Dims& shape, DType dtype, MemoryFormat format) {
  if (format == MemoryFormat::Preserve) {
    throw Error(ErrorKind::Value, "empty_pinned", "format", "Contiguous or ChannelsLast", "Preserve");
  }
  const Dims strides = format == MemoryFormat::ChannelsLast ? channels_last_strides(shape) : contiguous_strides(shape);
  const std::size_t nbytes = detail::checked_nbytes("empty_pinned", shape, strides, dtype);
#if SV_WITH_CUDA
  if (cuda_device_count() == 0) {
    throw Error(ErrorKind::Runtime, "empty_pinned", "device",
                "a usable CUDA device (page-locked memory is allocated through the CUDA driver)",
                "no CUDA device is usable here");
  }
  void* ptr = nullptr;
  if (nbytes > 0) SV_CUDA_CHECK(cudaHostAlloc(&ptr, nbytes, cudaHostAllocPortable), "empty_pinned");
  std::shared_ptr<void> owner(ptr, PinnedFree{});  // before anything else can throw
  return from_blob(ptr, shape, strides, dtype, Device::cpu(), std::move(owner));
#else
  (void)nbytes;
  throw Error(ErrorKind::Runtime, "empty_pinned", "device",
              "a usable CUDA device (page-locked memory is allocated through the CUDA driver)",
              "a build of streamvision without CUDA");
#endif
}

bool is_pinned(const Tensor& t) {
  if (!t.defined() || !t.device().is_cpu()) return false;
  if (std::get_deleter<PinnedFree>(t.owner()) != nullptr) return true;
#if SV_WITH_CUDA
  // Memory someone else locked. Without a device there is none (and no driver to ask).
  if (t.data() == nullptr || cuda_device_count() == 0) return false;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, t.data()) != cudaSuccess) {
    (void)cudaGetLastError();  // older runtimes call pageable memory an invalid value
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
#else
  return false;
#endif
}

}  // namespace streamvision
