// CUDA color_jitter_batch: ColorJitter with each image's own factors and order, in two passes
// over the batch whatever the order: one reduction for adjust_contrast's means and one pixel pass
// that applies the four ops in each image's order in registers. An image's contrast blends with
// the mean of its state after the ops before contrast in its order; those ops are pointwise, so
// the reduction applies them to each pixel as it reads it (contrast_means' `pre`) instead of
// making that state. The per-image functors are the functionals' own (kernels/color.hpp,
// kernels/color_hsv.hpp), each rounding to T as the functional's output does, and the reduction's
// additions are adjust_contrast's, in the same order: the chain's result, bit for bit. With a
// tail (the fused Compose chain), the pixel pass also converts and normalizes what it writes. On
// uint8 images brightness and contrast are per-image tables (TableSteps below).
#include <cuda_runtime.h>

#include <type_traits>

#include "core/dtype_dispatch.hpp"
#include "core/tensor_views.hpp"
#include "cuda/batch_tail.cuh"
#include "cuda/contrast_mean.cuh"
#include "cuda/pixels.cuh"
#include "kernels/color.hpp"
#include "kernels/color_hsv.hpp"
#include "streamvision/functional/batch.hpp"

namespace streamvision::cuda {

namespace {

// One image's steps, read from the batch's arrays once per thread (for_image, pixels.cuh): the
// ops in its order (-1 where a step does not apply) and their functors.
template <class T>
struct ImageSteps {
  int op[4];
  kernels::BrightnessOp<T> brightness;
  kernels::BlendFactors<T> contrast;
  kernels::opmath_t<T> mean;  // the image's contrast mean (adjust_contrast's ContrastApplyOp blend)
  kernels::SaturationOp<T> saturation;
  kernels::HueOp<T> hue;

  // Step k on one pixel of image n, in place.
  SV_HOST_DEVICE SV_FORCE_INLINE void step(int k, std::int64_t n, T (&p)[3]) const { apply(op[k], n, p); }

  // Op `which` (0 brightness, 1 contrast, 2 saturation, 3 hue, else none) on one pixel, in place.
  SV_HOST_DEVICE SV_FORCE_INLINE void apply(int which, std::int64_t n, T (&p)[3]) const {
    const T x[3] = {p[0], p[1], p[2]};
    switch (which) {
      case 0:
        for (int c = 0; c < 3; ++c) p[c] = brightness(x[c], static_cast<std::uint32_t>(c));
        break;
      case 1:
        for (int c = 0; c < 3; ++c) p[c] = kernels::blend(x[c], mean, contrast);
        break;
      case 2: saturation(n, x, p); break;
      case 3: hue(n, x, p); break;
      default: break;
    }
  }
};

// The batch's parameters: factors, order and which ops apply.
template <class T>
struct JitterParams {
  const double* factors;              // [N, 4]
  const std::int64_t* order;          // [N, 4]
  const kernels::opmath_t<T>* means;  // contrast means, or null before they exist
  kernels::HueOp<T> hue;              // hue_factor set per image
  unsigned enabled;                   // bit k: op k applies

  SV_HOST_DEVICE ImageSteps<T> at(std::int64_t n) const {
    ImageSteps<T> s;
    const double* f = factors + n * 4;
    // adjust_hue's factor is in [-0.5, 0.5] (HueOp's remainder counts on it); the device cannot
    // raise, so a hue factor outside (or NaN) leaves the image as it is at that step, as an order
    // entry that is not 0-3 does (functional/batch.hpp).
    const bool hue_ok = f[3] >= -0.5 && f[3] <= 0.5;
    for (int k = 0; k < 4; ++k) {
      const std::int64_t op = order[n * 4 + k];
      s.op[k] = op >= 0 && op <= 3 && ((enabled >> op) & 1u) && (op != 3 || hue_ok) ? static_cast<int>(op) : -1;
    }
    s.brightness = kernels::BrightnessOp<T>{static_cast<kernels::opmath_t<T>>(f[0])};
    s.contrast = kernels::BlendFactors<T>::make(f[1]);
    s.mean = means != nullptr ? means[n] : kernels::opmath_t<T>(0);
    s.saturation = kernels::SaturationOp<T>{kernels::BlendFactors<T>::make(f[2])};
    s.hue = hue;
    s.hue.hue_factor = static_cast<float>(f[3]);
    return s;
  }
};

// The reduction's `pre`: the steps before the image's (first) contrast step.
template <class T>
struct BeforeContrast {
  JitterParams<T> params;
  struct Bound {
    ImageSteps<T> s;
    int steps;  // how many steps come before contrast
    SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, T (&p)[3]) const {
      for (int k = 0; k < steps; ++k) s.step(k, n, p);
    }
  };
  SV_HOST_DEVICE Bound at(std::int64_t n) const {
    Bound b{params.at(n), 4};
    for (int k = 3; k >= 0; --k) {
      if (params.order[n * 4 + k] == 1) b.steps = k;
    }
    return b;
  }
};

// The pixel passes are built for three blocks per SM (up to 80 registers): at four (64) the
// four steps spilled on uint8 images.
constexpr int kJitterMinBlocks = 3;

// The pixel pass: all four steps.
template <class T>
struct AllSteps {
  static constexpr int kIn = 3, kOut = 3;
  static constexpr int kMinBlocks = kJitterMinBlocks;
  JitterParams<T> params;
  struct Bound {
    ImageSteps<T> s;
    SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, const T (&x)[3], T (&y)[3]) const {
      for (int c = 0; c < 3; ++c) y[c] = x[c];
      for (int k = 0; k < 4; ++k) s.step(k, n, y);
    }
  };
  SV_HOST_DEVICE Bound at(std::int64_t n) const { return {params.at(n)}; }
};

// The pixel pass with a tail: the four steps, then to_dtype (T -> O) and normalize
// (batch_tail.cuh), in registers: ColorJitter -> ToDtype -> Normalize in one pass.
template <class T, class O>
struct AllStepsThenTail {
  static constexpr int kIn = 3, kOut = 3;
  static constexpr int kMinBlocks = kJitterMinBlocks;
  using Out = O;
  AllSteps<T> steps;
  ConvertNormalize<T, O, 3> tail;
  struct Bound {
    typename AllSteps<T>::Bound steps;
    ConvertNormalize<T, O, 3> tail;
    SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, const T (&x)[3], O (&y)[3]) const {
      T v[3];
      steps(n, x, v);
      for (int c = 0; c < 3; ++c) y[c] = tail(v[c], c);
    }
  };
  SV_HOST_DEVICE Bound at(std::int64_t n) const { return {steps.at(n), tail}; }
};

template <class T, class O>
AllStepsThenTail<T, O> with_tail(const JitterParams<T>& params, const BatchTail& tail) {
  return {AllSteps<T>{params}, ConvertNormalize<T, O, 3>::make(tail)};
}

// ---- uint8 images: brightness and contrast as tables ----------------------------------------------
// On uint8 images brightness and contrast map each value through a function of that value alone
// (the image's factor; contrast's mean is the image's), so each run of them between the other
// two steps is one 256-entry table per image, made once per batch by jitter_tables_kernel with
// the same functors; the pixel pass looks values up and computes only saturation and hue. The
// tail (to_dtype, normalize) of a uint8 value is a table per channel too. The same results, bit
// for bit; the pass did the arithmetic of every step for every pixel and was compute-bound.
constexpr int kRuns = 3;  // runs of table steps around at most two other steps
constexpr int kValues = 256;

// Block n < images: image n's kRuns tables ([n][run][value]); block `images`: the tail's
// table ([channel][value]) when there is one.
template <class O>
__global__ void __launch_bounds__(kValues)
    jitter_tables_kernel(JitterParams<std::uint8_t> params, std::int64_t images, std::uint8_t* tables,
                         ConvertNormalize<std::uint8_t, O, 3> tail, O* tail_table) {
  const int v = static_cast<int>(threadIdx.x);
  const std::int64_t n = blockIdx.x;
  if (n == images) {
    if (tail_table != nullptr) {
      for (int c = 0; c < 3; ++c) tail_table[c * kValues + v] = tail(static_cast<std::uint8_t>(v), c);
    }
    return;
  }
  const ImageSteps<std::uint8_t> s = params.at(n);
  std::uint8_t* const out = tables + n * kRuns * kValues + v;
  int run = 0;
  std::uint8_t p[3] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v)};
  for (int k = 0; k < 4; ++k) {
    if (s.op[k] == 0 || s.op[k] == 1) {
      s.step(k, n, p);
    } else if (s.op[k] >= 2) {
      out[run++ * kValues] = p[0];
      p[0] = p[1] = p[2] = static_cast<std::uint8_t>(v);
    }
  }
  for (; run < kRuns; ++run) {
    out[run * kValues] = p[0];
    p[0] = static_cast<std::uint8_t>(v);
  }
}

// The uint8 pixel pass: table runs, saturation and hue in the image's order, then the tail's table
// (O other than uint8) or the value itself.
template <class O>
struct TableSteps {
  static constexpr int kIn = 3, kOut = 3;
  static constexpr int kMinBlocks = kJitterMinBlocks;
  using Out = O;
  JitterParams<std::uint8_t> params;
  const std::uint8_t* tables;  // [N][kRuns][256]
  const O* tail;               // [3][256], or null: O is uint8 and the value is written as is

  struct Bound {
    ImageSteps<std::uint8_t> s;
    const std::uint8_t* table;  // the image's runs
    const O* tail;
    int other[kRuns - 1];       // the steps between the runs (2 or 3), or -1
    bool lookup[kRuns];         // run r has a step

    SV_HOST_DEVICE SV_FORCE_INLINE void operator()(std::int64_t n, const std::uint8_t (&x)[3], O (&y)[3]) const {
      std::uint8_t p[3] = {x[0], x[1], x[2]};
      if (lookup[0]) {
        for (int c = 0; c < 3; ++c) p[c] = table[p[c]];
      }
      for (int r = 1; r < kRuns; ++r) {
        if (other[r - 1] < 0) break;
        s.apply(other[r - 1], n, p);
        if (lookup[r]) {
          for (int c = 0; c < 3; ++c) p[c] = table[r * kValues + p[c]];
        }
      }
      for (int c = 0; c < 3; ++c) {
        if constexpr (std::is_same_v<O, std::uint8_t>) {
          y[c] = tail != nullptr ? tail[c * kValues + p[c]] : p[c];
        } else {
          y[c] = tail[c * kValues + p[c]];
        }
      }
    }
  };

  SV_HOST_DEVICE Bound at(std::int64_t n) const {
    Bound b{params.at(n), tables + n * kRuns * kValues, tail, {-1, -1}, {false, false, false}};
    int run = 0;
    for (int k = 0; k < 4; ++k) {
      const int op = b.s.op[k];
      if (op == 0 || op == 1) b.lookup[run] = true;
      if (op >= 2) b.other[run++] = op;
    }
    return b;
  }
};

// Makes the tables on the stream and launches the pass writing O (uint8 without a tail).
template <class O>
void launch_tables(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const JitterParams<std::uint8_t>& params,
                   const ConvertNormalize<std::uint8_t, O, 3>& tail, bool with_tail, Device device, const Stream& stream) {
  Scratch scratch(Scratch::aligned_bytes<std::uint8_t>(in.n * kRuns * kValues) + Scratch::aligned_bytes<O>(3 * kValues),
                  device, stream);
  std::uint8_t* const tables = scratch.take<std::uint8_t>(in.n * kRuns * kValues);
  O* const tail_table = with_tail ? scratch.take<O>(3 * kValues) : nullptr;
  {
    LaunchScope scope(stream, "color_jitter_batch");
    jitter_tables_kernel<O><<<static_cast<unsigned>(in.n + 1), kValues, 0, scope.handle()>>>(params, in.n, tables, tail,
                                                                                              tail_table);
    scope.check_launch();
  }
  launch_pixels<std::uint8_t>(in, out, TableSteps<O>{params, tables, tail_table}, stream, "color_jitter_batch");
}

template <class T>
void jitter(const Tensor& images, const Tensor& factors, const Tensor& order, const std::array<bool, 4>& enabled,
            const BatchTail& tail, const Tensor& output, const Stream& stream) {
  const kernels::ImageBatch in = detail::image_batch(images), out = detail::image_batch(output);
  JitterParams<T> params{};
  params.factors = static_cast<const double*>(factors.data());
  params.order = static_cast<const std::int64_t*>(order.data());
  params.hue = kernels::make_hue_op<T>(0.0);
  for (int k = 0; k < 4; ++k) params.enabled |= enabled[static_cast<std::size_t>(k)] ? 1u << k : 0u;
  std::optional<Scratch> scratch;
  if (enabled[1]) {
    scratch.emplace(contrast_means_scratch_bytes<T>(in), images.device(), stream);
    params.means = contrast_means<T, 3>(in, *scratch, stream, "color_jitter_batch", BeforeContrast<T>{params});
  }
  const bool has_tail = tail.dtype || !tail.mean.empty();
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (in.n < (std::int64_t{1} << 31) - 1) {
      switch (output.dtype()) {
        case DType::UInt8:
          return launch_tables<std::uint8_t>(in, out, params, ConvertNormalize<T, std::uint8_t, 3>::make(tail), has_tail,
                                             images.device(), stream);
        case DType::Float32:
          return launch_tables<float>(in, out, params, ConvertNormalize<T, float, 3>::make(tail), true, images.device(), stream);
        case DType::Float16:
          return launch_tables<Half>(in, out, params, ConvertNormalize<T, Half, 3>::make(tail), true, images.device(), stream);
        case DType::BFloat16:
          return launch_tables<BFloat16>(in, out, params, ConvertNormalize<T, BFloat16, 3>::make(tail), true, images.device(),
                                         stream);
        default: break;
      }
    }
  }
  if (!has_tail) {
    launch_pixels<T>(in, out, AllSteps<T>{params}, stream, "color_jitter_batch");
    return;
  }
  // The fused tail is built for the images the fused Compose chain makes (uint8, float32); the
  // functional layer runs other dtypes' tails as separate ops (functional/batch.cpp).
  if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, float>) {
    switch (output.dtype()) {
      case DType::Float32: return launch_pixels<T>(in, out, with_tail<T, float>(params, tail), stream, "color_jitter_batch");
      case DType::Float16: return launch_pixels<T>(in, out, with_tail<T, Half>(params, tail), stream, "color_jitter_batch");
      case DType::BFloat16: return launch_pixels<T>(in, out, with_tail<T, BFloat16>(params, tail), stream, "color_jitter_batch");
      default:
        if (output.dtype() == dtype_of<T>) return launch_pixels<T>(in, out, with_tail<T, T>(params, tail), stream, "color_jitter_batch");
        break;
    }
  }
  throw Error(ErrorKind::Runtime, "color_jitter_batch", "dtype", "a fused tail for uint8 or float32 images to a float dtype",
              std::string(dtype_name(images.dtype())) + " -> " + dtype_name(output.dtype()));
}

void color_jitter_batch(const Tensor& images, const Tensor& factors, const Tensor& order, const std::array<bool, 4>& enabled,
                        const BatchTail& tail, const Tensor& output, const Stream& stream) {
  detail::ColorDTypes::dispatch(images.dtype(), "color_jitter_batch", [&](auto tag) {
    jitter<typename decltype(tag)::type>(images, factors, order, enabled, tail, output, stream);
  });
}

SV_REGISTER_KERNEL(ops::ColorJitterBatch, DeviceType::CUDA, &color_jitter_batch, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
