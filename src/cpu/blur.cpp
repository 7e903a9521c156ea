// CPU kernel of gaussian_blur (separable: rows into a buffer, then columns). The tap order and the
// fma accumulation match the CUDA engine.
#include <vector>

#include "cpu/pixels.hpp"
#include "kernels/blur.hpp"
#include "core/dtype_dispatch.hpp"
#include "streamvision/functional/blur.hpp"

namespace streamvision::cpu {

namespace {

using kernels::ImageBatch;

template <class T>
void blur(const ImageBatch& in, const ImageBatch& out, const ops::GaussianBlurParams& params) {
  using Acc = kernels::BlurAcc<T>;
  const int kx = static_cast<int>(params.kernel_x), ky = static_cast<int>(params.kernel_y);
  const std::int64_t rx = kx / 2, ry = ky / 2;
  std::vector<Acc> wx(static_cast<std::size_t>(kx)), wy(static_cast<std::size_t>(ky));
  kernels::gaussian_weights<T>(kx, params.sigma_x, wx.data());
  kernels::gaussian_weights<T>(ky, params.sigma_y, wy.data());
  const std::int64_t planes = in.n * in.c, h = in.h, w = in.w;
  std::vector<Acc> rows(static_cast<std::size_t>(planes * h * w));
  const std::int64_t grain = std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(w, 1));
  // Rows: rows[p][y][x] = sum_j wx[j] * in[p][y][reflect(x + j - rx)].
  parallel_for(planes * h, grain, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t p = r / h, y = r % h;
      const T* src = static_cast<const T*>(in.data) + (p / in.c) * in.stride_n + (p % in.c) * in.stride_c + y * in.stride_h;
      Acc* dst = rows.data() + r * w;
      for (std::int64_t x = 0; x < w; ++x) {
        Acc acc = 0;
        for (int j = 0; j < kx; ++j) {
          const Acc v = kernels::blur_input(src[kernels::reflect_index(x + j - rx, w) * in.stride_w]);
          acc = kernels::pmath::fma_(wx[static_cast<std::size_t>(j)], v, acc);
        }
        dst[x] = acc;
      }
    }
  });
  // Columns: out[p][y][x] = sum_i wy[i] * rows[p][reflect(y + i - ry)][x].
  parallel_for(planes * h, grain, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t p = r / h, y = r % h;
      const Acc* plane = rows.data() + p * h * w;
      T* dst = static_cast<T*>(out.data) + (p / out.c) * out.stride_n + (p % out.c) * out.stride_c + y * out.stride_h;
      for (std::int64_t x = 0; x < w; ++x) {
        Acc acc = 0;
        for (int i = 0; i < ky; ++i) {
          acc = kernels::pmath::fma_(wy[static_cast<std::size_t>(i)], plane[kernels::reflect_index(y + i - ry, h) * w + x],
                                     acc);
        }
        dst[x * out.stride_w] = kernels::blur_output<T>(acc);
      }
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
