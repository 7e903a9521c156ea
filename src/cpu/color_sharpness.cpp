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

// Output row r (plane r / h, row r % h).
template <class T>
SV_FORCE_INLINE void sharpness_row_impl(const ImageBatch& in, const ImageBatch& out, const kernels::SharpnessParams<T>& params,
                                        std::int64_t r) {
  const std::int64_t h = in.h, w = in.w;
  const std::int64_t p = r / h, y = r % h;
  const T* plane = static_cast<const T*>(in.data) + (p / in.c) * in.stride_n + (p % in.c) * in.stride_c;
  T* dst = static_cast<T*>(out.data) + (p / out.c) * out.stride_n + (p % out.c) * out.stride_c + y * out.stride_h;
  for (std::int64_t x = 0; x < w; ++x) {
    const T* center = plane + y * in.stride_h + x * in.stride_w;
    if (y == 0 || y == h - 1 || x == 0 || x == w - 1) {
      dst[x * out.stride_w] = kernels::sharpen_border(*center);
      continue;
    }
    kernels::opmath_t<T> v[9];
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        v[(dy + 1) * 3 + dx + 1] = kernels::to_opmath(center[dy * in.stride_h + dx * in.stride_w]);
      }
    }
    dst[x * out.stride_w] = kernels::sharpen<T>(v, params);
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
  parallel_for(in.n * in.c * in.h, std::max<std::int64_t>(1, 4096 / in.w), [&](std::int64_t first, std::int64_t last) {
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
