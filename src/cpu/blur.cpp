// CPU kernel of gaussian_blur (separable: rows into a buffer, then columns). The tap order and the
// fma accumulation match the CUDA engine: every output accumulates fma(w[j], x[j], acc) for j in
// increasing order from 0, so the loops below may run taps outside and pixels inside (which
// vectorises) and still give the same bits.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "cpu/pixels.hpp"
#include "cpu/simd.hpp"
#include "kernels/blur.hpp"
#include "streamvision/functional/blur.hpp"

namespace streamvision::cpu {

namespace {

using kernels::ImageBatch;

// acc[x] = sum_j w[j] * line[x + j] for x in [0, n): taps outside, pixels inside.
template <class A>
SV_FORCE_INLINE void taps_along_impl(const A* line, const A* w, int k, std::int64_t n, A* acc) {
  for (std::int64_t x = 0; x < n; ++x) acc[x] = 0;
  for (int j = 0; j < k; ++j) {
    const A wj = w[j];
    const A* src = line + j;
    for (std::int64_t x = 0; x < n; ++x) acc[x] = kernels::pmath::fma_(wj, src[x], acc[x]);
  }
}
SV_CPU_CLONES void taps_along(const float* line, const float* w, int k, std::int64_t n, float* acc) {
  taps_along_impl(line, w, k, n, acc);
}
SV_CPU_CLONES void taps_along(const double* line, const double* w, int k, std::int64_t n, double* acc) {
  taps_along_impl(line, w, k, n, acc);
}

// acc[x] = sum_i w[i] * rows[i][x] for x in [0, n).
template <class A>
SV_FORCE_INLINE void taps_across_impl(const A* const* rows, const A* w, int k, std::int64_t n, A* acc) {
  for (std::int64_t x = 0; x < n; ++x) acc[x] = 0;
  for (int i = 0; i < k; ++i) {
    const A wi = w[i];
    const A* src = rows[i];
    for (std::int64_t x = 0; x < n; ++x) acc[x] = kernels::pmath::fma_(wi, src[x], acc[x]);
  }
}
SV_CPU_CLONES void taps_across(const float* const* rows, const float* w, int k, std::int64_t n, float* acc) {
  taps_across_impl(rows, w, k, n, acc);
}
SV_CPU_CLONES void taps_across(const double* const* rows, const double* w, int k, std::int64_t n, double* acc) {
  taps_across_impl(rows, w, k, n, acc);
}

// dst[x * stride] = blur_output(acc[x]): rounding and saturating casts, vectorised for the common
// dtypes (rint is one instruction with SSE4.1 and later, a library call on the baseline).
template <class T>
SV_FORCE_INLINE void store_impl(const kernels::BlurAcc<T>* acc, std::int64_t n, T* dst, std::int64_t stride) {
  if (stride == 1) {
    for (std::int64_t x = 0; x < n; ++x) dst[x] = kernels::blur_output<T>(acc[x]);
  } else {
    for (std::int64_t x = 0; x < n; ++x) dst[x * stride] = kernels::blur_output<T>(acc[x]);
  }
}
SV_CPU_CLONES void store(const float* acc, std::int64_t n, std::uint8_t* dst, std::int64_t stride) {
  store_impl(acc, n, dst, stride);
}
SV_CPU_CLONES void store(const float* acc, std::int64_t n, std::uint16_t* dst, std::int64_t stride) {
  store_impl(acc, n, dst, stride);
}
template <class T>
void store(const kernels::BlurAcc<T>* acc, std::int64_t n, T* dst, std::int64_t stride) {
  store_impl(acc, n, dst, stride);
}

template <class T>
void blur(const ImageBatch& in, const ImageBatch& out, const ops::GaussianBlurParams& params) {
  using Acc = kernels::BlurAcc<T>;
  const int kx = static_cast<int>(params.kernel_x), ky = static_cast<int>(params.kernel_y);
  const std::int64_t rx = kx / 2, ry = ky / 2;
  std::vector<Acc> wx(static_cast<std::size_t>(kx)), wy(static_cast<std::size_t>(ky));
  kernels::gaussian_weights<T>(kx, params.sigma_x, wx.data());
  kernels::gaussian_weights<T>(ky, params.sigma_y, wy.data());
  const std::int64_t planes = in.n * in.c, h = in.h, w = in.w;
  // The row pass of every plane, whole: the column pass of a row reads ky of them.
  std::vector<Acc> rows(static_cast<std::size_t>(planes * h * w));
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(w, 1));
  // Rows: each source row, reflect-padded by rx on both sides into `line` (converted to Acc),
  // then filtered along x.
  parallel_for(planes * h, grain, [&](std::int64_t first, std::int64_t last) {
    std::vector<Acc> line(static_cast<std::size_t>(w + 2 * rx));
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t p = r / h, y = r % h;
      const T* src = static_cast<const T*>(in.data) + (p / in.c) * in.stride_n + (p % in.c) * in.stride_c + y * in.stride_h;
      Acc* padded = line.data() + rx;
      if (in.stride_w == 1) {
        for (std::int64_t x = 0; x < w; ++x) padded[x] = kernels::blur_input(src[x]);
      } else {
        for (std::int64_t x = 0; x < w; ++x) padded[x] = kernels::blur_input(src[x * in.stride_w]);
      }
      for (std::int64_t j = 1; j <= rx; ++j) {
        padded[-j] = padded[kernels::reflect_index(-j, w)];
        padded[w - 1 + j] = padded[kernels::reflect_index(w - 1 + j, w)];
      }
      taps_along(line.data(), wx.data(), kx, w, rows.data() + r * w);
    }
  });
  // Columns: the ky rows around each output row (reflected at the plane's ends), along y.
  parallel_for(planes * h, grain, [&](std::int64_t first, std::int64_t last) {
    std::vector<Acc> acc(static_cast<std::size_t>(w));
    std::vector<const Acc*> taps(static_cast<std::size_t>(ky));
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t p = r / h, y = r % h;
      const Acc* plane = rows.data() + p * h * w;
      for (int i = 0; i < ky; ++i) taps[static_cast<std::size_t>(i)] = plane + kernels::reflect_index(y + i - ry, h) * w;
      taps_across(taps.data(), wy.data(), ky, w, acc.data());
      T* dst = static_cast<T*>(out.data) + (p / out.c) * out.stride_n + (p % out.c) * out.stride_c + y * out.stride_h;
      store(acc.data(), w, dst, out.stride_w);
    }
  });
}

void gaussian_blur(const Tensor& input, const Tensor& output, const ops::GaussianBlurParams& params, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "gaussian_blur", [&](auto tag) {
    blur<typename decltype(tag)::type>(detail::image_batch(input), detail::image_batch(output), params);
  });
}

SV_REGISTER_KERNEL(ops::GaussianBlur, DeviceType::CPU, &gaussian_blur, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
