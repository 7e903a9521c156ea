// CPU kernel of adjust_sharpness (3x3 blur blended with the image, borders kept). The tap order
// and the fma accumulation match the CUDA engine.
#include <algorithm>

#include "core/dtype_dispatch.hpp"
#include "cpu/pixels.hpp"
#include "cpu/simd.hpp"
#include "kernels/color_sharpness.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cpu {

namespace {

using kernels::ImageBatch;

// One output row of n elements, `group` values per pixel (1: a plane's row; C: a channels-last
// row, whose horizontal neighbours are C elements apart), element e at e * step of the input rows
// and e * dst_step of dst; above and below are the neighbouring rows, or null on the first and
// last rows, which keep their values (as do the first and last pixels of every row).
//
// The interior is a loop without a border test, which GCC vectorises when the elements are
// contiguous. Each value's nine taps are one fma chain in the CUDA engine's order; scalar, that
// chain's latency bound the loop (a uint8 1080p image took 78 ms against torchvision's 67 with
// one thread, channels-last 72 against 62); in vector lanes the values overlap.
template <class T>
SV_FORCE_INLINE void sharpen_row(const T* above, const T* row, const T* below, std::int64_t step, T* dst,
                                 std::int64_t dst_step, std::int64_t n, std::int64_t group,
                                 const kernels::SharpnessParams<T>& params_ref) {
  if (above == nullptr || below == nullptr) {
    for (std::int64_t e = 0; e < n; ++e) dst[e * dst_step] = kernels::sharpen_border(row[e * step]);
    return;
  }
  for (std::int64_t e = 0; e < group; ++e) {
    dst[e * dst_step] = kernels::sharpen_border(row[e * step]);
    dst[(n - group + e) * dst_step] = kernels::sharpen_border(row[(n - group + e) * step]);
  }
  const kernels::SharpnessParams<T> params = params_ref;  // a local copy: uint8 stores may alias the fields
  auto value = [&](std::int64_t e, std::int64_t s) {
    const T* r[3] = {above, row, below};
    kernels::opmath_t<T> v[9];
    for (int dy = 0; dy < 3; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) v[dy * 3 + dx + 1] = kernels::to_opmath(r[dy][(e + dx * group) * s]);
    }
    return kernels::sharpen<T>(v, params);
  };
  if (step == 1 && dst_step == 1) {
    for (std::int64_t e = group; e < n - group; ++e) dst[e] = value(e, 1);
  } else {
    for (std::int64_t e = group; e < n - group; ++e) dst[e * dst_step] = value(e, step);
  }
}

// Input and output both channels-last with dense pixels: rows are (image, y), C values a pixel.
inline bool interleaved_rows(const ImageBatch& in, const ImageBatch& out) {
  return in.c > 1 && in.stride_c == 1 && in.stride_w == in.c && out.stride_c == 1 && out.stride_w == out.c;
}

// Output row r: (image r / h, row r % h) of all channels when interleaved, else (plane r / h,
// row r % h); h, w >= 3 (smaller images are returned as they are).
template <class T>
SV_FORCE_INLINE void sharpness_row_impl(const ImageBatch& in, const ImageBatch& out, const kernels::SharpnessParams<T>& params,
                                        std::int64_t r) {
  const std::int64_t h = in.h, w = in.w;
  const std::int64_t p = r / h, y = r % h;
  const bool interleaved = interleaved_rows(in, out);
  const std::int64_t image = interleaved ? p : p / in.c, channel = interleaved ? 0 : p % in.c;
  const T* row = static_cast<const T*>(in.data) + image * in.stride_n + channel * in.stride_c + y * in.stride_h;
  T* dst = static_cast<T*>(out.data) + image * out.stride_n + channel * out.stride_c + y * out.stride_h;
  const bool inside = y > 0 && y < h - 1;
  const T* above = inside ? row - in.stride_h : nullptr;
  const T* below = inside ? row + in.stride_h : nullptr;
  if (interleaved) {
    sharpen_row<T>(above, row, below, 1, dst, 1, w * in.c, in.c, params);
  } else {
    sharpen_row<T>(above, row, below, in.stride_w, dst, out.stride_w, w, 1, params);
  }
}
// The taps' fma is one instruction in the x86-64-v3 twin (cpu/simd.hpp), a glibc call otherwise.
template <class T>
SV_CPU_V3 void sharpness_row_v3(const ImageBatch& in, const ImageBatch& out, const kernels::SharpnessParams<T>& params,
                                std::int64_t r) {
  sharpness_row_impl<T>(in, out, params, r);
}
template <class T>
void sharpness_row_base(const ImageBatch& in, const ImageBatch& out, const kernels::SharpnessParams<T>& params,
                        std::int64_t r) {
  sharpness_row_impl<T>(in, out, params, r);
}

template <class T>
void sharpness(const ImageBatch& in, const ImageBatch& out, double factor) {
  const auto params = kernels::SharpnessParams<T>::make(factor);
  const auto row = cpu_is_x86_64_v3() ? &sharpness_row_v3<T> : &sharpness_row_base<T>;
  const std::int64_t rows = interleaved_rows(in, out) ? in.n * in.h : in.n * in.c * in.h;
  parallel_for(rows, std::max<std::int64_t>(1, 4096 / in.w), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t r = first; r < last; ++r) row(in, out, params, r);
  });
}

void adjust_sharpness(const Tensor& input, const Tensor& output, double factor, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_sharpness", [&](auto tag) {
    sharpness<typename decltype(tag)::type>(detail::image_batch(input), detail::image_batch(output), factor);
  });
}

SV_REGISTER_KERNEL(ops::AdjustSharpness, DeviceType::CPU, &adjust_sharpness, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
