// CUDA color_jitter_batch: ColorJitter with each image's own factors and order, in two passes
// over the batch whatever the order: one reduction for adjust_contrast's means and one pixel pass
// that applies the four ops in each image's order in registers. An image's contrast blends with
// the mean of its state after the ops before contrast in its order; those ops are pointwise, so
// the reduction applies them to each pixel as it reads it (contrast_means' `pre`) instead of
// making that state. The per-image functors are the functionals' own (kernels/color.hpp,
// kernels/color_hsv.hpp), each rounding to T as the functional's output does, and the reduction's
// additions are adjust_contrast's, in the same order: the chain's result, bit for bit.
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

// Op `op` (0 brightness, 1 contrast, 2 saturation, 3 hue) of image n on one pixel, in place.
template <class T>
struct JitterOps {
  const double* factors;              // [N, 4]
  const std::int64_t* order;          // [N, 4]
  const kernels::opmath_t<T>* means;  // contrast means, or null before they exist
  kernels::HueOp<T> hue;              // hue_factor set per image
  unsigned enabled;                   // bit k: op k applies

  SV_HOST_DEVICE SV_FORCE_INLINE void apply(std::int64_t n, std::int64_t op, T (&p)[3]) const {
    if (op < 0 || op > 3 || !((enabled >> op) & 1u)) return;
    const double f = factors[n * 4 + op];
    const T x[3] = {p[0], p[1], p[2]};
    if (op == 0) {
      const kernels::BrightnessOp<T> b{static_cast<kernels::opmath_t<T>>(f)};
      for (int c = 0; c < 3; ++c) p[c] = b(x[c], static_cast<std::uint32_t>(c));
    } else if (op == 1) {
      kernels::ContrastApplyOp<T, 3>{kernels::BlendFactors<T>::make(f), means}(n, x, p);
    } else if (op == 2) {
      kernels::SaturationOp<T>{kernels::BlendFactors<T>::make(f)}(n, x, p);
    } else {
      kernels::HueOp<T> h = hue;
      h.hue_factor = static_cast<float>(f);
      h(n, x, p);
    }
  }
};

// The reduction's `pre`: the ops before the image's (first) contrast step.
template <class T>
struct BeforeContrast {
  JitterOps<T> ops;
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, T (&p)[3]) const {
    for (int k = 0; k < 4; ++k) {
      const std::int64_t op = ops.order[n * 4 + k];
      if (op == 1) return;
      ops.apply(n, op, p);
    }
  }
};

// The pixel pass: all four steps.
template <class T>
struct AllSteps {
  static constexpr int kIn = 3, kOut = 3;
  JitterOps<T> ops;
  SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, const T (&x)[3], T (&y)[3]) const {
    for (int c = 0; c < 3; ++c) y[c] = x[c];
    for (int k = 0; k < 4; ++k) ops.apply(n, ops.order[n * 4 + k], y);
  }
};

template <class T>
void jitter(const Tensor& images, const Tensor& factors, const Tensor& order, const std::array<bool, 4>& enabled,
            const Tensor& output, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(images), out = detail::image_batch(output);
  JitterOps<T> ops{};
  ops.factors = static_cast<const double*>(factors.data());
  ops.order = static_cast<const std::int64_t*>(order.data());
  ops.hue = kernels::make_hue_op<T>(0.0);
  for (int k = 0; k < 4; ++k) ops.enabled |= enabled[static_cast<std::size_t>(k)] ? 1u << k : 0u;
  std::optional<Scratch> scratch;
  if (enabled[1]) {
    scratch.emplace(contrast_means_scratch_bytes<T>(in), images.device(), stream);
    ops.means = contrast_means<T, 3>(in, *scratch, stream, "color_jitter_batch", BeforeContrast<T>{ops});
  }
  launch_pixels<T>(in, out, AllSteps<T>{ops}, stream, "color_jitter_batch");
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
