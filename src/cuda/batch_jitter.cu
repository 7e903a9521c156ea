// CUDA color_jitter_batch: ColorJitter with each image's own factors and order, four pixel-engine
// launches for the whole batch (step k applies, to image n, the op order[n][k]), each preceded by
// adjust_contrast's mean reduction over the current images when contrast is enabled (an image
// whose contrast comes at step k blends with the mean of its state after steps 0..k-1, as the
// functionals' chain does). The per-image functors are the functionals' own (kernels/color.hpp,
// kernels/color_hsv.hpp), built per pixel from the image's factor: the same arithmetic, bit for
// bit. Steps after the first run in place on the output.
#include <cuda_runtime.h>

#include "core/dtype_dispatch.hpp"
#include "core/tensor_views.hpp"
#include "cuda/contrast_mean.cuh"
#include "cuda/pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/color_hsv.hpp"
#include "streamvision/functional/batch.hpp"

namespace streamvision::cuda {

namespace {

template <class T>
struct JitterStepOp {
  static constexpr int kIn = 3, kOut = 3;
  const double* factors;       // [N, 4]
  const std::int64_t* order;   // [N, 4]
  const kernels::opmath_t<T>* means;  // contrast means of this step's input, or null
  kernels::HueOp<T> hue;       // hue_factor set per image
  int step;
  unsigned enabled;            // bit k: op k applies

  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, const T (&x)[3], T (&y)[3]) const {
    const std::int64_t op = order[n * 4 + step];
    if (op < 0 || op > 3 || !((enabled >> op) & 1u)) {
      for (int c = 0; c < 3; ++c) y[c] = x[c];
      return;
    }
    const double f = factors[n * 4 + op];
    if (op == 0) {
      const kernels::BrightnessOp<T> b{static_cast<kernels::opmath_t<T>>(f)};
      for (int c = 0; c < 3; ++c) y[c] = b(x[c], static_cast<std::uint32_t>(c));
    } else if (op == 1) {
      kernels::ContrastApplyOp<T, 3>{kernels::BlendFactors<T>::make(f), means}(n, x, y);
    } else if (op == 2) {
      kernels::SaturationOp<T>{kernels::BlendFactors<T>::make(f)}(n, x, y);
    } else {
      kernels::HueOp<T> h = hue;
      h.hue_factor = static_cast<float>(f);
      h(n, x, y);
    }
  }
};

template <class T>
void jitter(const Tensor& images, const Tensor& factors, const Tensor& order, const std::array<bool, 4>& enabled,
            const Tensor& output, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(images), out = detail::image_batch(output);
  JitterStepOp<T> op{};
  op.factors = static_cast<const double*>(factors.data());
  op.order = static_cast<const std::int64_t*>(order.data());
  op.hue = kernels::make_hue_op<T>(0.0);
  for (int k = 0; k < 4; ++k) op.enabled |= enabled[static_cast<std::size_t>(k)] ? 1u << k : 0u;
  std::optional<Scratch> scratch;
  if (enabled[1]) scratch.emplace(4 * contrast_means_scratch_bytes<T>(in), images.device(), stream);
  for (int step = 0; step < 4; ++step) {
    const kernels::ImageBatch& src = step == 0 ? in : out;
    op.step = step;
    op.means = enabled[1] ? contrast_means<T, 3>(src, *scratch, stream, "color_jitter_batch") : nullptr;
    launch_pixels<T>(src, out, op, stream, "color_jitter_batch");
  }
}

void color_jitter_batch(const Tensor& images, const Tensor& factors, const Tensor& order, const std::array<bool, 4>& enabled,
                        const Tensor& output, const Stream& stream) {
  detail::ColorDTypes::dispatch(images.dtype(), "color_jitter_batch", [&](auto tag) {
    jitter<typename decltype(tag)::type>(images, factors, order, enabled, output, stream);
  });
}

SV_REGISTER_KERNEL(ops::ColorJitterBatch, DeviceType::CUDA, &color_jitter_batch, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
