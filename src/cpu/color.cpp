// CPU kernels of the elementwise colour ops: brightness, invert, posterize, solarize, gamma
// (the elementwise engine over the functors of kernels/color.hpp) and permute_channels (copies).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "core/tensor_views.hpp"
#include "cpu/byte_table.hpp"
#include "cpu/elementwise.hpp"
#include "cpu/parallel.hpp"
#include "kernels/color.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cpu {

namespace {

// An integer op over every value of T, then a table lookup (as the CUDA engine); uint8 tables go
// 64 bytes at a time where the CPU has AVX-512 VBMI (cpu/byte_table.hpp).
template <class T, class Op>
void run_tabulated(const Tensor& input, const Tensor& output, const Op& op) {
  std::vector<T> lut(static_cast<std::size_t>(kernels::ColorBound<T>::value) + 1);
  for (std::size_t v = 0; v < lut.size(); ++v) lut[v] = op(static_cast<T>(v), 0u);
  run_map<T>(input, output, kernels::LutOp<T>{lut.data()});
}

void adjust_brightness(const Tensor& input, const Tensor& output, double factor, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_brightness", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const kernels::BrightnessOp<T> op{static_cast<kernels::opmath_t<T>>(factor)};
    // uint8 through the table only where the lookup is vectorised: the float arithmetic took 2.47
    // ms for a 1080p image on one thread, the table 0.16; a scalar lookup would not gain.
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (byte_table_vectorised()) return run_tabulated<T>(input, output, op);
    }
    run_map<T>(input, output, op);
  });
}

void invert(const Tensor& input, const Tensor& output, const Stream&) {
  detail::LevelsDTypes::dispatch(input.dtype(), "invert", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_map<T>(input, output, kernels::InvertOp<T>{});
  });
}

void posterize(const Tensor& input, const Tensor& output, int bits, const Stream&) {
  detail::LevelsDTypes::dispatch(input.dtype(), "posterize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto op = kernels::make_posterize_op<T>(bits);
    run_map<T>(input, output, op);
  });
}

// solarize of 1- and 2-byte integers with SolarizeOp's integer level compared in the image's own
// type (x > level - 1), so that the loop runs in byte or 16-bit lanes: compared in int32, GCC
// widened every byte to four lanes (uint8 1080p, one thread: 0.52 ms, invert 0.15).
template <class T>
struct SolarizeAboveOp {
  static constexpr bool kUsesChannel = false;
  T above;  // values above it invert
  T operator()(T x, std::uint32_t) const { return x > above ? kernels::invert_value(x) : x; }
};

void solarize(const Tensor& input, const Tensor& output, double threshold, const Stream&) {
  detail::LevelsDTypes::dispatch(input.dtype(), "solarize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto op = kernels::make_solarize_op<T>(threshold);
    if constexpr (kernels::SolarizeOp<T>::kIntegerLevel) {
      constexpr std::int32_t lowest = std::numeric_limits<T>::lowest(), highest = std::numeric_limits<T>::max();
      if (op.level <= lowest) {
        run_map<T>(input, output, kernels::InvertOp<T>{});  // every value is at least the level
      } else {
        // level - 1 >= lowest; a level above every value inverts none (x > highest never holds).
        run_map<T>(input, output, SolarizeAboveOp<T>{static_cast<T>(std::min(op.level - 1, highest))});
      }
    } else {
      run_map<T>(input, output, op);
    }
  });
}

// GammaOp's kind kPow for float images, every step a select (pmath::pow_select, the gain): the
// same bits, in a loop GCC vectorises. GammaOp itself, with its per-value choice of kind and its
// fields read through the op, was not vectorised (float32 ran at 0.2x torchvision's CPU speed).
template <class T>
struct GammaPowOp {
  static constexpr bool kUsesChannel = false;
  // Compute-bound: also run in AVX-512's 16 lanes where the CPU has them (cpu/simd.hpp), the same
  // bits. torchvision's pow is SLEEF's AVX-512 one; with AVX2 only, a float32 1080p image took
  // 1.37x as long.
  static constexpr bool kWideVectors = true;
  using F = kernels::opmath_t<T>;
  F gamma, gain;
  // As int: with a bool field GCC's vectoriser found no vector type for its load in the
  // x86-64-v3 twin (cpu/simd.hpp) and left the loop scalar.
  int use_gain;

  explicit GammaPowOp(const kernels::GammaOp<T>& op) : gamma(op.gamma), gain(op.gain), use_gain(op.use_gain) {}

  SV_FORCE_INLINE T operator()(T x, std::uint32_t) const {
    const F p = kernels::mat<T>(kernels::pmath::pow_select(kernels::to_opmath(x), gamma));
    const F gained = kernels::clamp_value(kernels::mat<T>(p * gain), F(0), F(1));
    return kernels::to_image<T>(use_gain != 0 ? gained : p);
  }
};

void adjust_gamma(const Tensor& input, const Tensor& output, double gamma, double gain, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_gamma", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const kernels::GammaOp<T> op = kernels::make_gamma_op<T>(gamma, gain);
    if constexpr (kernels::is_float_like<T>) {
      if (op.kind == kernels::GammaOp<T>::kPow) {
        run_map<T>(input, output, GammaPowOp<T>(op));
      } else {
        run_map<T>(input, output, op);
      }
    } else {
      run_tabulated<T>(input, output, op);
    }
  });
}

// Channels-last pixels, dense (C values each) in and out: every pixel's values permuted in one
// pass over rows, where copying channel by channel read and wrote the image C times, strided
// (a float32 HWC 1080p image ran at 0.70-0.80x torchvision's CPU speed).
template <class T>
void permute_pixels(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const std::vector<std::int64_t>& perm) {
  const std::int64_t c = in.c, w = in.w;
  parallel_for(in.n * in.h, std::max<std::int64_t>(1, (1 << 15) / std::max<std::int64_t>(w * c, 1)), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t r = first; r < last; ++r) {
      const T* src = static_cast<const T*>(in.data) + (r / in.h) * in.stride_n + (r % in.h) * in.stride_h;
      T* dst = static_cast<T*>(out.data) + (r / out.h) * out.stride_n + (r % out.h) * out.stride_h;
      if (c == 3) {
        const std::int64_t p0 = perm[0], p1 = perm[1], p2 = perm[2];
        for (std::int64_t x = 0; x < w; ++x) {
          const T a = src[3 * x + p0], b = src[3 * x + p1], d = src[3 * x + p2];
          dst[3 * x] = a;
          dst[3 * x + 1] = b;
          dst[3 * x + 2] = d;
        }
      } else {
        for (std::int64_t x = 0; x < w; ++x) {
          for (std::int64_t k = 0; k < c; ++k) dst[x * c + k] = src[x * c + perm[static_cast<std::size_t>(k)]];
        }
      }
    }
  });
}

void permute_channels(const Tensor& input, const Tensor& output, const std::vector<std::int64_t>& permutation,
                      const Stream&) {
  const kernels::ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  auto pixels = [](const kernels::ImageBatch& b) { return b.c > 1 && b.stride_c == 1 && b.stride_w == b.c; };
  if (pixels(in) && pixels(out) && in.data != out.data && static_cast<std::int64_t>(permutation.size()) == in.c) {
    switch (itemsize(input.dtype())) {
      case 1: return permute_pixels<std::uint8_t>(in, out, permutation);
      case 2: return permute_pixels<std::uint16_t>(in, out, permutation);
      case 4: return permute_pixels<std::uint32_t>(in, out, permutation);
      case 8: return permute_pixels<std::uint64_t>(in, out, permutation);
      default: break;
    }
  }
  for (std::size_t k = 0; k < permutation.size(); ++k) {
    copy_view(detail::strided_view(input.select(-3, permutation[k])),
              detail::strided_view(output.select(-3, static_cast<std::int64_t>(k))));
  }
}

SV_REGISTER_KERNEL(ops::AdjustBrightness, DeviceType::CPU, &adjust_brightness, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::Invert, DeviceType::CPU, &invert, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::Posterize, DeviceType::CPU, &posterize, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::Solarize, DeviceType::CPU, &solarize, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::AdjustGamma, DeviceType::CPU, &adjust_gamma, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::PermuteChannels, DeviceType::CPU, &permute_channels, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
