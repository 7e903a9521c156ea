// Tensor metadata, views, validation and allocation.
#include "streamvision/core/tensor.hpp"

#include <numeric>

#include "core/small_sort.hpp"
#include "core/tensor_bytes.hpp"
#include "streamvision/core/allocator.hpp"
#include "streamvision/core/error.hpp"

namespace streamvision {

// ---- Dims ---------------------------------------------------------------------------------

Dims::Dims(std::initializer_list<std::int64_t> values)
    : Dims(std::span<const std::int64_t>(values.begin(), values.size())) {}

Dims::Dims(std::span<const std::int64_t> values) {
  if (values.size() > static_cast<std::size_t>(kMaxRank)) {
    throw Error(ErrorKind::Value, "Tensor", "shape", "at most " + std::to_string(kMaxRank) + " dims",
                std::to_string(values.size()) + " dims");
  }
  n_ = static_cast<int>(values.size());
  std::copy(values.begin(), values.end(), v_.begin());
}

void Dims::push_back(std::int64_t value) {
  if (n_ == kMaxRank) {
    throw Error(ErrorKind::Value, "Tensor", "shape", "at most " + std::to_string(kMaxRank) + " dims",
                std::to_string(kMaxRank + 1) + " dims");
  }
  v_[n_++] = value;
}

std::string Dims::str() const { return format_list(*this); }

// ---- strides ------------------------------------------------------------------------------

// running *= size without undefined overflow: a shape whose element count overflows gets
// meaningless strides here and is rejected by check_layout before anything uses them.
static void grow(std::int64_t& running, std::int64_t size) {
  if (__builtin_mul_overflow(running, std::max<std::int64_t>(size, 1), &running)) running = INT64_MAX;
}

Dims contiguous_strides(const Dims& shape) {
  Dims strides = shape;
  std::int64_t running = 1;
  for (int d = shape.size() - 1; d >= 0; --d) {
    strides[d] = running;
    grow(running, shape[d]);
  }
  return strides;
}

Dims channels_last_strides(const Dims& shape) {
  const int rank = shape.size();
  if (rank < 3) return contiguous_strides(shape);
  // Memory order, outermost first: leading dims, H, W, C.
  int order[kMaxRank];
  int k = 0;
  for (int d = 0; d < rank - 3; ++d) order[k++] = d;
  order[k++] = rank - 2;
  order[k++] = rank - 1;
  order[k++] = rank - 3;
  Dims strides = shape;
  std::int64_t running = 1;
  for (int i = rank - 1; i >= 0; --i) {
    strides[order[i]] = running;
    grow(running, shape[order[i]]);
  }
  return strides;
}

Dims dense_strides_like(const Dims& shape, std::span<const std::int64_t> like_strides) {
  const int rank = shape.size();
  int order[kMaxRank];
  std::iota(order, order + rank, 0);
  // Largest stride outermost; equal strides keep the logical order (stable sort).
  detail::stable_sort_small(order, rank, [&](int a, int b) { return like_strides[a] > like_strides[b]; });
  Dims strides = shape;
  std::int64_t running = 1;
  for (int i = rank - 1; i >= 0; --i) {
    strides[order[i]] = running;
    grow(running, shape[order[i]]);
  }
  return strides;
}

namespace {

// Equal to `expected` on every dim whose size is not 1 (a size-1 dim's stride is irrelevant).
bool strides_match(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides,
                   const Dims& expected) {
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1 && strides[d] != expected[static_cast<int>(d)]) return false;
  }
  return true;
}

int normalize_dim(int dim, int rank, const char* op) {
  const int wrapped = dim < 0 ? dim + rank : dim;
  if (wrapped < 0 || wrapped >= rank) {
    throw Error(ErrorKind::Value, op, "dim", "a dim in [" + std::to_string(-rank) + ", " + std::to_string(rank) + ")",
                std::to_string(dim));
  }
  return wrapped;
}

// Validates shape and strides and returns the element count and the number of elements the
// memory must span (1 + sum (size - 1) * stride), rejecting anything that overflows int64.
struct Extent {
  std::int64_t numel;
  std::int64_t span;
};

Extent check_layout(const char* op, const Dims& shape, const Dims& strides) {
  if (strides.size() != shape.size()) {
    throw Error(ErrorKind::Value, op, "strides", std::to_string(shape.size()) + " strides (one per dim)",
                std::to_string(strides.size()));
  }
  std::int64_t numel = 1;
  for (int d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) throw Error(ErrorKind::Value, op, "shape", "non-negative sizes", shape.str());
    if (strides[d] < 0) {
      throw Error(ErrorKind::Value, op, "strides", "non-negative strides (flip with an op, not a view)",
                  strides.str());
    }
    if (__builtin_mul_overflow(numel, shape[d], &numel)) {
      throw Error(ErrorKind::Value, op, "shape", "an element count that fits in int64", shape.str());
    }
  }
  std::int64_t span = numel == 0 ? 0 : 1;
  if (numel != 0) {
    for (int d = 0; d < shape.size(); ++d) {
      std::int64_t reach = 0;
      if (__builtin_mul_overflow(shape[d] - 1, strides[d], &reach) || __builtin_add_overflow(span, reach, &span)) {
        throw Error(ErrorKind::Value, op, "strides", "a memory extent that fits in int64", strides.str());
      }
    }
  }
  return {numel, span};
}

thread_local TensorFactory* t_factory = nullptr;

}  // namespace

// ---- Tensor -------------------------------------------------------------------------------

std::int64_t Tensor::size(int dim) const { return shape_[normalize_dim(dim, rank_, "Tensor::size")]; }

std::int64_t Tensor::stride(int dim) const { return strides_[normalize_dim(dim, rank_, "Tensor::stride")]; }

bool Tensor::is_contiguous() const { return strides_match(shape(), strides(), contiguous_strides(Dims(shape()))); }

bool Tensor::is_channels_last() const {
  return rank_ >= 3 && strides_match(shape(), strides(), channels_last_strides(Dims(shape())));
}

bool Tensor::is_non_overlapping_and_dense() const {
  return strides_match(shape(), strides(), dense_strides_like(Dims(shape()), strides()));
}

Tensor Tensor::slice(int dim, std::int64_t start, std::int64_t end, std::int64_t step) const {
  const int d = normalize_dim(dim, rank_, "Tensor::slice");
  if (step <= 0) throw Error(ErrorKind::Value, "Tensor::slice", "step", "a positive step", std::to_string(step));
  const std::int64_t n = shape_[d];
  auto clamp = [n](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + n : i, 0, n); };
  start = clamp(start);
  end = std::max(clamp(end), start);
  Tensor out = *this;
  out.shape_[d] = (end - start + step - 1) / step;
  out.strides_[d] = strides_[d] * step;
  out.numel_ = numel_ == 0 || n == 0 ? 0 : numel_ / n * out.shape_[d];
  if (out.numel_ > 0) out.data_ = static_cast<char*>(data_) + start * strides_[d] * static_cast<std::int64_t>(itemsize());
  return out;
}

Tensor Tensor::select(int dim, std::int64_t index) const {
  const int d = normalize_dim(dim, rank_, "Tensor::select");
  const std::int64_t n = shape_[d];
  if (index < -n || index >= n) {
    throw Error(ErrorKind::Value, "Tensor::select", "index", "an index in [" + std::to_string(-n) + ", " + std::to_string(n) + ")",
                std::to_string(index));
  }
  if (index < 0) index += n;
  Tensor out = *this;
  out.data_ = static_cast<char*>(data_) + index * strides_[d] * static_cast<std::int64_t>(itemsize());
  for (int i = d; i < rank_ - 1; ++i) {
    out.shape_[i] = shape_[i + 1];
    out.strides_[i] = strides_[i + 1];
  }
  out.rank_ = rank_ - 1;
  out.numel_ = numel_ / n;
  return out;
}

Tensor Tensor::permute(std::span<const int> dims) const {
  bool seen[kMaxRank] = {};
  bool valid = static_cast<int>(dims.size()) == rank_;
  for (int i = 0; valid && i < rank_; ++i) {
    const int d = dims[i] < 0 ? dims[i] + rank_ : dims[i];
    valid = d >= 0 && d < rank_ && !seen[d];
    if (valid) seen[d] = true;
  }
  if (!valid) {
    std::string got = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) got += (i ? ", " : "") + std::to_string(dims[i]);
    throw Error(ErrorKind::Value, "Tensor::permute", "dims", "a permutation of " + std::to_string(rank_) + " dims", got + "]");
  }
  Tensor out = *this;
  for (int i = 0; i < rank_; ++i) {
    const int d = dims[i] < 0 ? dims[i] + rank_ : dims[i];
    out.shape_[i] = shape_[d];
    out.strides_[i] = strides_[d];
  }
  return out;
}

Tensor Tensor::unsqueeze(int dim) const {
  if (rank_ == kMaxRank) {
    throw Error(ErrorKind::Value, "Tensor::unsqueeze", "dim", "a tensor with fewer than " + std::to_string(kMaxRank) + " dims",
                std::to_string(rank_) + " dims");
  }
  const int d = normalize_dim(dim, rank_ + 1, "Tensor::unsqueeze");
  Tensor out = *this;
  for (int i = rank_; i > d; --i) {
    out.shape_[i] = shape_[i - 1];
    out.strides_[i] = strides_[i - 1];
  }
  out.shape_[d] = 1;
  out.strides_[d] = d < rank_ ? shape_[d] * strides_[d] : 1;
  out.rank_ = rank_ + 1;
  return out;
}

Tensor Tensor::view(const Dims& shape) const {
  if (!is_contiguous()) {
    throw Error(ErrorKind::Value, "Tensor::view", "self", "a contiguous tensor", str());
  }
  const Dims strides = contiguous_strides(shape);
  const Extent extent = check_layout("Tensor::view", shape, strides);
  if (extent.numel != numel_) {
    throw Error(ErrorKind::Value, "Tensor::view", "shape", "a shape with " + std::to_string(numel_) + " elements",
                shape.str());
  }
  Tensor out = *this;
  out.rank_ = shape.size();
  for (int d = 0; d < shape.size(); ++d) {
    out.shape_[d] = shape[d];
    out.strides_[d] = strides[d];
  }
  return out;
}

std::string Tensor::str() const {
  if (!defined_) return "Tensor(undefined)";
  return "Tensor(shape=" + format_list(shape()) + ", strides=" + format_list(strides()) + ", dtype=" + dtype_name(dtype_) +
         ", device=" + device_.str() + ")";
}

// ---- construction -------------------------------------------------------------------------

Tensor from_blob(void* data, const Dims& shape, const Dims& strides, DType dtype, Device device,
                 std::shared_ptr<void> owner) {
  const Extent extent = check_layout("from_blob", shape, strides);
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(extent.span, static_cast<std::int64_t>(itemsize(dtype)), &bytes)) {
    throw Error(ErrorKind::Value, "from_blob", "shape", "a byte extent that fits in int64", shape.str());
  }
  if (data == nullptr && extent.numel > 0) {
    throw Error(ErrorKind::Value, "from_blob", "data", "a non-null pointer for a tensor with elements",
                "nullptr with shape " + shape.str());
  }
  if (device.is_cpu() && device.index != 0) {
    throw Error(ErrorKind::Value, "from_blob", "device", "cpu with index 0", "cpu index " + std::to_string(device.index));
  }
  if (device.index < 0) {
    throw Error(ErrorKind::Value, "from_blob", "device", "a non-negative device index", std::to_string(device.index));
  }
  Tensor t;
  t.owner_ = std::move(owner);
  t.data_ = data;
  t.rank_ = shape.size();
  for (int d = 0; d < shape.size(); ++d) {
    t.shape_[d] = shape[d];
    t.strides_[d] = strides[d];
  }
  t.numel_ = extent.numel;
  t.dtype_ = dtype;
  t.device_ = device;
  t.defined_ = true;
  return t;
}

std::size_t detail::checked_nbytes(const char* op, const Dims& shape, const Dims& strides, DType dtype) {
  const Extent extent = check_layout(op, shape, strides);
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(extent.span, static_cast<std::int64_t>(itemsize(dtype)), &bytes)) {
    throw Error(ErrorKind::Value, op, "shape", "a byte size that fits in int64", shape.str());
  }
  return static_cast<std::size_t>(bytes);
}

Tensor empty_strided(const Dims& shape, const Dims& strides, DType dtype, Device device,
                     const std::optional<Stream>& stream) {
  const std::size_t nbytes = detail::checked_nbytes("empty", shape, strides, dtype);
  Stream on = Stream();
  if (device.is_cuda()) on = stream ? *stream : Stream::current(device.index);
  if (t_factory != nullptr) return t_factory->empty_strided(shape, strides, dtype, device, on);

  Allocator& allocator = get_allocator(device.type);
  void* ptr = allocator.allocate(nbytes, device, on);
  std::shared_ptr<void> owner;
  if (ptr != nullptr) {
    // Freed on the stream it was allocated on; a Stream copy keeps an owned stream alive.
    owner = std::shared_ptr<void>(ptr, [&allocator, nbytes, device, on](void* p) {
      allocator.deallocate(p, nbytes, device, on);
    });
  }
  return from_blob(ptr, shape, strides, dtype, device, std::move(owner));
}

Tensor empty(const Dims& shape, DType dtype, Device device, MemoryFormat format,
             const std::optional<Stream>& stream) {
  if (format == MemoryFormat::Preserve) {
    throw Error(ErrorKind::Value, "empty", "format", "Contiguous or ChannelsLast", "Preserve (use empty_like)");
  }
  const Dims strides = format == MemoryFormat::ChannelsLast ? channels_last_strides(shape) : contiguous_strides(shape);
  return empty_strided(shape, strides, dtype, device, stream);
}

Tensor empty_like(const Tensor& like, std::optional<DType> dtype, const std::optional<Stream>& stream) {
  const Dims shape(like.shape());
  return empty_strided(shape, dense_strides_like(shape, like.strides()), dtype.value_or(like.dtype()), like.device(),
                       stream);
}

TensorFactoryScope::TensorFactoryScope(TensorFactory* factory) : previous_(t_factory) { t_factory = factory; }

TensorFactoryScope::~TensorFactoryScope() { t_factory = previous_; }

}  // namespace streamvision
