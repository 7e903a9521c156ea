#include "test_utils.hpp"

#include <random>
#include <sstream>

namespace svt {

Tensor random_cpu(const Dims& shape, DType dtype, std::uint64_t seed, double lo, double hi) {
  Tensor t = empty(shape, dtype, Device::cpu());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(lo, hi);
  for_each_index(t.shape(), [&](const std::int64_t* idx) {
    switch (dtype) {
      case DType::Bool: store<bool>(t, idx, (rng() & 1) != 0); break;
      case DType::Float16: store<Half>(t, idx, Half(static_cast<float>(unit(rng)))); break;
      case DType::BFloat16: store<BFloat16>(t, idx, BFloat16(static_cast<float>(unit(rng)))); break;
      case DType::Float32: store<float>(t, idx, static_cast<float>(unit(rng))); break;
      case DType::Float64: store<double>(t, idx, unit(rng)); break;
      default: store_bits(t, idx, rng()); break;  // integers: uniform over all bit patterns
    }
  });
  return t;
}

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::Contiguous: return "contiguous";
    case Layout::ChannelsLast: return "channels_last";
    case Layout::Sliced: return "sliced";
    case Layout::Strided: return "strided";
  }
  return "?";
}

Tensor with_layout(const Tensor& src, Layout layout, Device device, std::uint64_t seed) {
  const Dims shape(src.shape());
  const int rank = shape.size();
  Dims big = shape;
  if (layout == Layout::Sliced && rank >= 1) {
    big[rank - 1] += 3;
    if (rank >= 2) big[rank - 2] += 2;
  }
  if (layout == Layout::Strided && rank >= 1) big[rank - 1] = 2 * shape[rank - 1] + 1;
  const MemoryFormat format = layout == Layout::ChannelsLast && rank >= 3 ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;

  // Garbage everywhere first, so a kernel reading outside the view shows up as wrong output.
  Tensor buffer = empty(big, src.dtype(), Device::cpu(), format);
  const Tensor garbage = random_cpu(big, src.dtype(), seed);
  for_each_index(buffer.shape(), [&](const std::int64_t* idx) { store_bits(buffer, idx, load_bits(garbage, idx)); });

  auto view_of = [&](const Tensor& b) {
    Tensor v = b;
    if (layout == Layout::Sliced && rank >= 1) {
      v = v.slice(rank - 1, 2, 2 + shape[rank - 1]);
      if (rank >= 2) v = v.slice(rank - 2, 1, 1 + shape[rank - 2]);
    }
    if (layout == Layout::Strided && rank >= 1) v = v.slice(rank - 1, 1, 1 + 2 * shape[rank - 1], 2);
    return v;
  };
  const Tensor cpu_view = view_of(buffer);
  for_each_index(src.shape(), [&](const std::int64_t* idx) { store_bits(cpu_view, idx, load_bits(src, idx)); });
  if (device.is_cpu()) return cpu_view;
  return view_of(to_device(buffer, device));
}

::testing::AssertionResult bitwise_equal(const Tensor& expected_in, const Tensor& actual_in) {
  const Tensor expected = to_cpu(expected_in);
  const Tensor actual = to_cpu(actual_in);
  if (!(Dims(expected.shape()) == Dims(actual.shape()))) {
    return ::testing::AssertionFailure() << "shape " << Dims(actual.shape()).str() << " != expected "
                                         << Dims(expected.shape()).str();
  }
  if (expected.dtype() != actual.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << dtype_name(actual.dtype()) << " != expected "
                                         << dtype_name(expected.dtype());
  }
  // NaN payloads are not part of the contract (x86 makes 0xffc00000 where the GPU makes the
  // canonical 0x7fffffff): any NaN equals any NaN. Every other value must match bit for bit.
  auto is_nan = [dtype = expected.dtype()](std::uint64_t bits) {
    switch (dtype) {
      case DType::Float16: return (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0;
      case DType::BFloat16: return (bits & 0x7f80u) == 0x7f80u && (bits & 0x7fu) != 0;
      case DType::Float32: return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0;
      case DType::Float64:
        return (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (bits & 0xfffffffffffffull) != 0;
      default: return false;
    }
  };
  std::int64_t mismatches = 0;
  std::string first;
  for_each_index(expected.shape(), [&](const std::int64_t* idx) {
    const std::uint64_t a = load_bits(expected, idx), b = load_bits(actual, idx);
    if (a != b && !(is_nan(a) && is_nan(b))) {
      if (mismatches++ == 0) {
        first = "at [";
        for (int d = 0; d < expected.dim(); ++d) first += (d ? "," : "") + std::to_string(idx[d]);
        std::ostringstream bits;
        bits << std::hex << "]: expected bits 0x" << a << ", got 0x" << b;
        first += bits.str();
      }
    }
  });
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << expected.numel() << " elements differ; first "
                                       << first;
}

Tensor contiguous_copy(const Tensor& src) {
  Tensor out = empty(Dims(src.shape()), src.dtype(), Device::cpu());
  for_each_index(src.shape(), [&](const std::int64_t* idx) { store_bits(out, idx, load_bits(src, idx)); });
  return out;
}

std::string describe(const Dims& shape, DType dtype, Layout layout) {
  return shape.str() + " " + dtype_name(dtype) + " " + layout_name(layout);
}

std::vector<Dims> test_shapes() {
  return {
      {3, 5, 7},          // 3-D, odd sizes
      {2, 3, 4, 9},       // 4-D
      {2, 2, 3, 5, 6},    // 5-D
      {1, 1, 37},         // 1xN
      {3, 17, 1},         // Nx1
      {2, 3, 33, 130},    // larger, rows long enough for vector accesses
      {0, 3, 4, 5},       // degenerate batch
  };
}

}  // namespace svt
