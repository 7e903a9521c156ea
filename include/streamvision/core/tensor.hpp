// A tensor is a strided view of memory: shape, element strides, dtype, device, data pointer,
// and shared ownership of whatever keeps the memory alive (our allocation, or a framework
// tensor imported without a copy).
//
// Images follow torchvision's convention [..., C, H, W] with any number of leading dims.
// Strides are in elements and never negative: contiguous, channels_last (C innermost) and
// sliced layouts are all just strides, and kernels read them without a layout copy.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "streamvision/core/device.hpp"
#include "streamvision/core/dtype.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/core/stream.hpp"

namespace streamvision {

inline constexpr int kMaxRank = 8;

// A short list of sizes or strides (at most kMaxRank) held by value: no heap on the hot path.
class Dims {
 public:
  Dims() = default;
  Dims(std::initializer_list<std::int64_t> values);
  Dims(std::span<const std::int64_t> values);
  int size() const { return n_; }
  std::int64_t operator[](int i) const { return v_[i]; }
  std::int64_t& operator[](int i) { return v_[i]; }
  const std::int64_t* begin() const { return v_.data(); }
  const std::int64_t* end() const { return v_.data() + n_; }
  operator std::span<const std::int64_t>() const { return {v_.data(), static_cast<std::size_t>(n_)}; }
  void push_back(std::int64_t value);
  friend bool operator==(const Dims& a, const Dims& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  std::string str() const;  // "[2, 3, 4]"

 private:
  std::array<std::int64_t, kMaxRank> v_{};
  int n_ = 0;
};

enum class MemoryFormat {
  Contiguous,   // row-major in the logical dim order
  ChannelsLast, // dim -3 (C) innermost, the others in logical order: NHWC for 4-D
  Preserve,     // follow the stride order of a given tensor (empty_like)
};

class Tensor {
 public:
  Tensor() = default;  // undefined

  bool defined() const { return defined_; }
  int dim() const { return rank_; }
  std::span<const std::int64_t> shape() const { return {shape_.data(), static_cast<std::size_t>(rank_)}; }
  std::span<const std::int64_t> strides() const { return {strides_.data(), static_cast<std::size_t>(rank_)}; }
  // Negative dims count from the end, as in torch; out of range throws.
  std::int64_t size(int dim) const;
  std::int64_t stride(int dim) const;
  std::int64_t numel() const { return numel_; }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  std::size_t itemsize() const { return streamvision::itemsize(dtype_); }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel_) * itemsize(); }
  void* data() const { return data_; }
  template <class T> T* data_as() const;
  const std::shared_ptr<void>& owner() const { return owner_; }

  bool is_contiguous() const;
  bool is_channels_last() const;
  // Every element at a distinct address and no gaps, in some dim order.
  bool is_non_overlapping_and_dense() const;

  // Views sharing this tensor's memory and owner.
  Tensor slice(int dim, std::int64_t start, std::int64_t end, std::int64_t step = 1) const;
  Tensor select(int dim, std::int64_t index) const;
  Tensor permute(std::span<const int> dims) const;
  Tensor permute(std::initializer_list<int> dims) const {
    return permute(std::span<const int>(dims.begin(), dims.size()));
  }
  Tensor unsqueeze(int dim) const;
  // A view with a new shape; the tensor must be contiguous.
  Tensor view(const Dims& shape) const;

  std::string str() const;  // "Tensor(shape=[..], strides=[..], dtype=uint8, device=cuda:0)"

 private:
  friend Tensor from_blob(void*, const Dims&, const Dims&, DType, Device, std::shared_ptr<void>);
  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  std::array<std::int64_t, kMaxRank> shape_{};
  std::array<std::int64_t, kMaxRank> strides_{};
  std::int64_t numel_ = 0;
  int rank_ = 0;
  DType dtype_ = DType::UInt8;
  Device device_{};
  bool defined_ = false;
};

// Wraps existing memory without copying. `owner` keeps it alive as long as any view exists
// (for a framework tensor, a handle whose destruction releases it). Validates everything:
// rank, sizes, non-negative strides, element-count overflow, null data with elements.
Tensor from_blob(void* data, const Dims& shape, const Dims& strides, DType dtype, Device device,
                 std::shared_ptr<void> owner);

// Allocation. On CUDA, memory is allocated stream-ordered on `stream` (default:
// Stream::current(device)) and released on that same stream when the last view dies.
Tensor empty(const Dims& shape, DType dtype, Device device,
             MemoryFormat format = MemoryFormat::Contiguous,
             const std::optional<Stream>& stream = std::nullopt);
Tensor empty_strided(const Dims& shape, const Dims& strides, DType dtype, Device device,
                     const std::optional<Stream>& stream = std::nullopt);
// Same shape and device, the same stride order as `like` (dense), optionally another dtype.
Tensor empty_like(const Tensor& like, std::optional<DType> dtype = std::nullopt,
                  const std::optional<Stream>& stream = std::nullopt);

// Page-locked ("pinned") host memory: a CPU tensor that the GPU's copy engines read and write
// directly, so that copies between it and a CUDA tensor can run asynchronously (copy_ with
// non_blocking, functional/layout.hpp) and overlap kernels. Allocated with cudaHostAlloc
// (portable: usable with every device), freed with cudaFreeHost when the last view goes. Both
// are costly: allocation maps and locks pages, and cudaFreeHost synchronises with the device.
// Allocate staging buffers once and reuse them, with an Event telling when a copy through one
// has finished. Throws Error (RuntimeError) in a build without CUDA or when no CUDA device is
// usable. `format`: Contiguous or ChannelsLast, as in empty.
Tensor empty_pinned(const Dims& shape, DType dtype, MemoryFormat format = MemoryFormat::Contiguous);
// True for a CPU tensor whose memory is page-locked: from empty_pinned (a check of its owner,
// no CUDA call), or pinned by someone else (cudaHostAlloc, cudaHostRegister, a framework's
// pinned tensor wrapped with from_blob), which cudaPointerGetAttributes tells. False for CUDA
// tensors, undefined tensors, and everything in a build without CUDA or without a usable device.
bool is_pinned(const Tensor& t);

// Dense strides for `shape` following the dim order of `like_strides` (largest stride
// outermost; ties keep the logical order), as torch's empty_like(preserve_format).
Dims dense_strides_like(const Dims& shape, std::span<const std::int64_t> like_strides);
Dims contiguous_strides(const Dims& shape);
Dims channels_last_strides(const Dims& shape);

// Where outputs come from. A framework installs a factory for the duration of a call so that
// op outputs are its own tensors (PyTorch: allocated by its caching allocator on the op's
// stream). Scopes are per thread and nest.
class TensorFactory {
 public:
  virtual ~TensorFactory() = default;
  virtual Tensor empty_strided(const Dims& shape, const Dims& strides, DType dtype, Device device,
                               const Stream& stream) = 0;
};

class TensorFactoryScope {
 public:
  explicit TensorFactoryScope(TensorFactory* factory);
  ~TensorFactoryScope();
  TensorFactoryScope(const TensorFactoryScope&) = delete;
  TensorFactoryScope& operator=(const TensorFactoryScope&) = delete;

 private:
  TensorFactory* previous_;
};

template <class T> T* Tensor::data_as() const {
  if (dtype_of<T> != dtype_) {
    throw Error(ErrorKind::Type, "Tensor::data_as", "T", dtype_name(dtype_of<T>), dtype_name(dtype_));
  }
  return static_cast<T*>(data_);
}

}  // namespace streamvision
