// Helpers shared by the geometry tests (pad, crop, resize, warps and their CUDA comparisons).
#pragma once

#include <string>

#include "test_utils.hpp"

namespace svt {

// Runs f and expects an Error of `kind` whose message contains `needle`.
template <class F>
void expect_error(ErrorKind kind, const std::string& needle, F&& f) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// An element of a uint8, uint16 or float image as a double.
inline double value_at(const Tensor& t, const std::int64_t* idx) {
  switch (t.dtype()) {
    case DType::UInt8: return load<std::uint8_t>(t, idx);
    case DType::UInt16: return load<std::uint16_t>(t, idx);
    case DType::Float16: return static_cast<float>(load<Half>(t, idx));
    case DType::BFloat16: return static_cast<float>(load<BFloat16>(t, idx));
    case DType::Float32: return load<float>(t, idx);
    case DType::Float64: return load<double>(t, idx);
    default: ADD_FAILURE() << "value_at: unexpected dtype " << dtype_name(t.dtype()); return 0;
  }
}

// A geometry op keeps a channels-last input channels-last (when there is more than one channel).
inline void expect_layout_kept(const Tensor& out, const Dims& shape, Layout layout) {
  if (layout == Layout::ChannelsLast && shape.size() >= 3 && shape[shape.size() - 3] > 1 && out.numel() > 0) {
    EXPECT_TRUE(out.is_channels_last()) << out.str();
  }
}

// The dtypes of resize and the warps.
inline const std::vector<DType> kGeometryDTypes{DType::UInt8,    DType::UInt16,  DType::Float16,
                                               DType::BFloat16, DType::Float32, DType::Float64};

}  // namespace svt
