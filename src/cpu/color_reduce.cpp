// CPU kernels of the colour ops with a reduction: adjust_contrast (grayscale mean), autocontrast
// (per-channel min / max), equalize (per-channel histograms). Each reduces, finalizes per image
// with the shared functions of src/kernels/, then applies with the same functor as CUDA.
// adjust_contrast's floating-point sums add in exactly the order the CUDA engine uses
// (kernels/reduce.hpp), so both give the same mean.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/byte_table.hpp"
#include "cpu/pixels.hpp"
#include "cpu/simd.hpp"
#include "kernels/color.hpp"
#include "core/dtype_dispatch.hpp"
#include "kernels/color_equalize.hpp"
#include "kernels/reduce.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cpu {

namespace {

using kernels::ImageBatch;

// ---- adjust_contrast --------------------------------------------------------------------------

// Integer images sum their (floored) gray values exactly in 64 bits, so any order gives the CUDA
// engine's sum: rows are summed on their own, in a loop that vectorises (blocks of 4096 pixels in
// 32 bits: 4096 * 65535 < 2^32; the gray value of an integer pixel is within [0, bound], so the
// int32 conversion is the 64-bit one).
template <class T, int C>
SV_FORCE_INLINE std::uint64_t gray_row_sum_impl(const T* src, std::int64_t w, std::int64_t sw, std::int64_t sc) {
  std::uint64_t sum = 0;
  for (std::int64_t x0 = 0; x0 < w; x0 += 4096) {
    const std::int64_t x1 = std::min(w, x0 + 4096);
    std::uint32_t block = 0;
    for (std::int64_t x = x0; x < x1; ++x) {
      T v[C];
      SV_UNROLL
      for (int c = 0; c < C; ++c) v[c] = src[x * sw + c * sc];
      if constexpr (C == 3) {
        block += static_cast<std::uint32_t>(static_cast<std::int32_t>(kernels::blend_gray(v[0], v[1], v[2])));
      } else {
        block += v[0];
      }
    }
    sum += block;
  }
  return sum;
}
template <class T, int C>
SV_CPU_V3 std::uint64_t gray_row_sum_v3(const T* src, std::int64_t w, std::int64_t sw, std::int64_t sc) {
  return sw == 1 ? gray_row_sum_impl<T, C>(src, w, 1, sc) : gray_row_sum_impl<T, C>(src, w, sw, sc);
}
template <class T, int C>
std::uint64_t gray_row_sum_base(const T* src, std::int64_t w, std::int64_t sw, std::int64_t sc) {
  return sw == 1 ? gray_row_sum_impl<T, C>(src, w, 1, sc) : gray_row_sum_impl<T, C>(src, w, sw, sc);
}

template <class T, int C>
std::vector<kernels::opmath_t<T>> integer_contrast_means(const ImageBatch& in) {
  std::vector<std::uint64_t> row_sums(static_cast<std::size_t>(in.n * in.h));
  const auto row_sum = cpu_is_x86_64_v3() ? &gray_row_sum_v3<T, C> : &gray_row_sum_base<T, C>;
  parallel_for(in.n * in.h, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(in.w, 1)),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t r = first; r < last; ++r) {
                   const T* row = static_cast<const T*>(in.data) + (r / in.h) * in.stride_n + (r % in.h) * in.stride_h;
                   row_sums[static_cast<std::size_t>(r)] = row_sum(row, in.w, in.stride_w, in.stride_c);
                 }
               });
  std::vector<kernels::opmath_t<T>> means(static_cast<std::size_t>(in.n));
  for (std::int64_t n = 0; n < in.n; ++n) {
    means[static_cast<std::size_t>(n)] =
        kernels::contrast_mean<T>(&row_sums[static_cast<std::size_t>(n * in.h)], in.h, in.h * in.w);
  }
  return means;
}

template <class T, int C>
void float_contrast(const ImageBatch& in, const ImageBatch& out, double factor);

template <class T, int C>
void contrast(const ImageBatch& in, const ImageBatch& out, double factor) {
  if constexpr (!kernels::is_float_like<T>) {
    const std::vector<kernels::opmath_t<T>> means = integer_contrast_means<T, C>(in);
    const kernels::ContrastApplyOp<T, C> op{kernels::BlendFactors<T>::make(factor), means.data()};
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      if (byte_table_vectorised()) {
        // Each image's blend over the 256 values, then 64-byte lookups (cpu/byte_table.hpp): the
        // blend per value took 2.9 of a 1080p image's 3.1 ms on one thread.
        std::vector<std::uint8_t> tables(static_cast<std::size_t>(in.n * 256));
        for (std::int64_t n = 0; n < in.n; ++n) {
          for (int v = 0; v < 256; ++v) {
            tables[static_cast<std::size_t>(n * 256 + v)] = kernels::blend(static_cast<T>(v), means[static_cast<std::size_t>(n)], op.factors);
          }
        }
        if (lookup_planes(in, out, tables.data(), 256, 0)) return;
      }
    }
    run_pixels<T>(in, out, op);
  } else {
    float_contrast<T, C>(in, out, factor);
  }
}

// Float images sum in double, in exactly the CUDA engine's order (kernels/reduce.hpp): chunk q of
// image n is summed by 256 "threads", each over its groups in order, then combined as a tree.
template <class T, int C>
SV_FORCE_INLINE kernels::ContrastAcc<T> float_contrast_chunk_impl(const ImageBatch& in, const kernels::PixelGroups& g,
                                                                  std::int64_t n, std::int64_t q) {
  using Acc = kernels::ContrastAcc<T>;
  constexpr int kThreads = kernels::kReduceThreads;
  constexpr int kPerThread = kernels::kContrastGroupsPerThread;
  const T* image = static_cast<const T*>(in.data) + n * in.stride_n;
  Acc acc[kThreads] = {};
  for (int k = 0; k < kPerThread; ++k) {
    for (int t = 0; t < kThreads; ++t) {
      const std::int64_t group = (q * kPerThread + k) * kThreads + t;
      if (group >= g.count) continue;
      std::int64_t y, x0, count;
      group_at(g, group, y, x0, count);
      for (std::int64_t x = x0; x < x0 + count; ++x) {
        T v[C];
        load_pixel(image + y * in.stride_h + x * in.stride_w, in.stride_c, v);
        acc[t] += kernels::contrast_value<T, C>(v);
      }
    }
  }
  for (int s = kThreads / 2; s > 0; s /= 2) {
    for (int t = 0; t < s; ++t) acc[t] += acc[t + s];
  }
  return acc[0];
}
// The gray value's fma is one instruction in the x86-64-v3 twin, a glibc call in the other.
template <class T, int C>
SV_CPU_V3 kernels::ContrastAcc<T> float_contrast_chunk_v3(const ImageBatch& in, const kernels::PixelGroups& g,
                                                          std::int64_t n, std::int64_t q) {
  return float_contrast_chunk_impl<T, C>(in, g, n, q);
}
template <class T, int C>
kernels::ContrastAcc<T> float_contrast_chunk_base(const ImageBatch& in, const kernels::PixelGroups& g, std::int64_t n,
                                                  std::int64_t q) {
  return float_contrast_chunk_impl<T, C>(in, g, n, q);
}

template <class T, int C>
void float_contrast(const ImageBatch& in, const ImageBatch& out, double factor) {
  const kernels::PixelGroups g = kernels::PixelGroups::make(in.h, in.w, kernels::pixel_group_size<T>());
  const std::int64_t chunks = g.chunks(kernels::kContrastGroupsPerThread);
  std::vector<kernels::ContrastAcc<T>> partials(static_cast<std::size_t>(in.n * chunks));
  const auto chunk_sum = cpu_is_x86_64_v3() ? &float_contrast_chunk_v3<T, C> : &float_contrast_chunk_base<T, C>;
  parallel_for(in.n * chunks, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t index = first; index < last; ++index) {
      partials[static_cast<std::size_t>(index)] = chunk_sum(in, g, index / chunks, index % chunks);
    }
  });
  std::vector<kernels::opmath_t<T>> means(static_cast<std::size_t>(in.n));
  for (std::int64_t n = 0; n < in.n; ++n) {
    means[static_cast<std::size_t>(n)] = kernels::contrast_mean<T>(&partials[static_cast<std::size_t>(n * chunks)],
                                                                   chunks, in.h * in.w);
  }
  run_pixels<T>(in, out, kernels::ContrastApplyOp<T, C>{kernels::BlendFactors<T>::make(factor), means.data()});
}

void adjust_contrast(const Tensor& input, const Tensor& output, double factor, const Stream&) {
  const ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  detail::ColorDTypes::dispatch(input.dtype(), "adjust_contrast", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (in.c == 3) {
      contrast<T, 3>(in, out, factor);
    } else {
      contrast<T, 1>(in, out, factor);
    }
  });
}

// ---- autocontrast -----------------------------------------------------------------------------

// The bounds of rows [y0, y1) of each of an image's C channels. Integer images compare in their own
// type, exactly (converting afterwards keeps the order); float images in opmath with min_value /
// max_value, which skip NaN (the bounds are exact in any order but for the sign of a zero).
// Planar rows are reduced channel by channel, integers in a loop GCC vectorises, floats in
// kLanes independent lanes (the compare of one value waited for the previous one's); other
// layouts (channels_last) pixel by pixel, the channels side by side. One image reduced pixel by
// pixel in floats on one thread took 7 ms for 1080p uint8 (torchvision 7.2; an AVX-512 EPYC).
template <class T, int C>
SV_FORCE_INLINE void image_bounds_impl(const T* image, const ImageBatch& in, std::int64_t y0, std::int64_t y1,
                                       kernels::MinMax<T>* out) {
  using F = kernels::opmath_t<T>;
  constexpr F kInf = std::numeric_limits<F>::infinity();
  const std::int64_t w = in.w, sh = in.stride_h, sw = in.stride_w, sc = in.stride_c;
  for (int c = 0; c < C; ++c) out[c] = {kInf, -kInf};  // as the CUDA engine
  if (y1 <= y0 || w == 0) return;
  if constexpr (std::is_integral_v<T>) {
    T lo[C], hi[C];
    for (int c = 0; c < C; ++c) {
      lo[c] = std::numeric_limits<T>::max();
      hi[c] = std::numeric_limits<T>::lowest();
    }
    if (sw == 1) {
      for (int c = 0; c < C; ++c) {
        T l = lo[c], h = hi[c];
        for (std::int64_t y = y0; y < y1; ++y) {
          const T* row = image + c * sc + y * sh;
          for (std::int64_t x = 0; x < w; ++x) {
            l = std::min(l, row[x]);
            h = std::max(h, row[x]);
          }
        }
        lo[c] = l;
        hi[c] = h;
      }
    } else {
      for (std::int64_t y = y0; y < y1; ++y) {
        for (std::int64_t x = 0; x < w; ++x) {
          SV_UNROLL
          for (int c = 0; c < C; ++c) {
            const T v = image[c * sc + y * sh + x * sw];
            lo[c] = std::min(lo[c], v);
            hi[c] = std::max(hi[c], v);
          }
        }
      }
    }
    for (int c = 0; c < C; ++c) out[c] = {static_cast<F>(lo[c]), static_cast<F>(hi[c])};
  } else {
    if (sw == 1) {
      constexpr int kLanes = 16;
      for (int c = 0; c < C; ++c) {
        F lo[kLanes], hi[kLanes];
        for (int l = 0; l < kLanes; ++l) {
          lo[l] = kInf;
          hi[l] = -kInf;
        }
        for (std::int64_t y = y0; y < y1; ++y) {
          const T* row = image + c * sc + y * sh;
          std::int64_t x = 0;
          for (; x + kLanes <= w; x += kLanes) {
            SV_UNROLL
            for (int l = 0; l < kLanes; ++l) {
              const F v = kernels::to_opmath(row[x + l]);
              lo[l] = kernels::min_value(lo[l], v);
              hi[l] = kernels::max_value(hi[l], v);
            }
          }
          for (; x < w; ++x) {
            const F v = kernels::to_opmath(row[x]);
            lo[0] = kernels::min_value(lo[0], v);
            hi[0] = kernels::max_value(hi[0], v);
          }
        }
        for (int l = 0; l < kLanes; ++l) {
          out[c].lo = kernels::min_value(out[c].lo, lo[l]);
          out[c].hi = kernels::max_value(out[c].hi, hi[l]);
        }
      }
    } else {
      F lo[C], hi[C];  // locals: `out` may alias a float image, so its fields were stored every pixel
      for (int c = 0; c < C; ++c) {
        lo[c] = kInf;
        hi[c] = -kInf;
      }
      for (std::int64_t y = y0; y < y1; ++y) {
        for (std::int64_t x = 0; x < w; ++x) {
          SV_UNROLL
          for (int c = 0; c < C; ++c) {
            const F v = kernels::to_opmath(image[c * sc + y * sh + x * sw]);
            lo[c] = kernels::min_value(lo[c], v);
            hi[c] = kernels::max_value(hi[c], v);
          }
        }
      }
      for (int c = 0; c < C; ++c) out[c] = {lo[c], hi[c]};
    }
  }
}
template <class T, int C>
SV_CPU_V3 void image_bounds_v3(const T* image, const ImageBatch& in, std::int64_t y0, std::int64_t y1,
                               kernels::MinMax<T>* out) {
  image_bounds_impl<T, C>(image, in, y0, y1, out);
}
template <class T, int C>
void image_bounds_base(const T* image, const ImageBatch& in, std::int64_t y0, std::int64_t y1, kernels::MinMax<T>* out) {
  image_bounds_impl<T, C>(image, in, y0, y1, out);
}

template <class T, int C>
void autocontrast_image(const ImageBatch& in, const ImageBatch& out) {
  // Each image in chunks of about 64K pixels: partial [n][chunk][c], combined per image by
  // autocontrast_finalize.
  const std::int64_t rows_per_chunk = std::max<std::int64_t>(1, (std::int64_t{1} << 16) / std::max<std::int64_t>(in.w, 1));
  const std::int64_t chunks = std::max<std::int64_t>(1, (in.h + rows_per_chunk - 1) / rows_per_chunk);
  std::vector<kernels::MinMax<T>> partials(static_cast<std::size_t>(in.n * chunks * C));
  const auto bounds = cpu_is_x86_64_v3() ? &image_bounds_v3<T, C> : &image_bounds_base<T, C>;
  parallel_for(in.n * chunks, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t index = first; index < last; ++index) {
      const std::int64_t q = index % chunks, n = index / chunks;
      bounds(static_cast<const T*>(in.data) + n * in.stride_n, in, q * rows_per_chunk,
             std::min(in.h, (q + 1) * rows_per_chunk), &partials[static_cast<std::size_t>(index * C)]);
    }
  });
  std::vector<kernels::AutocontrastChannel<T>> params(static_cast<std::size_t>(in.n * C));
  for (std::int64_t n = 0; n < in.n; ++n) {
    for (int c = 0; c < C; ++c) {
      params[static_cast<std::size_t>(n * C + c)] =
          kernels::autocontrast_finalize<T>(&partials[static_cast<std::size_t>(n * chunks * C)], chunks, C, c);
    }
  }
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    // uint8: each channel's 256 results, computed by the same function, looked up (equalize's
    // lookup pass): the float arithmetic per pixel took 2.5 of the 2.9 ms of a 1080p image.
    std::vector<std::uint8_t> luts(static_cast<std::size_t>(in.n * C * 256));
    for (std::size_t k = 0; k < params.size(); ++k) {
      for (int v = 0; v < 256; ++v) {
        luts[k * 256 + static_cast<std::size_t>(v)] = kernels::autocontrast_value(static_cast<std::uint8_t>(v), params[k]);
      }
    }
    if (!lookup_planes(in, out, luts.data(), C * 256, 256)) run_pixels<T>(in, out, kernels::make_equalize_apply_op<T, C>(luts.data(), C * 256));
  } else {
    run_pixels<T>(in, out, kernels::AutocontrastApplyOp<T, C>{params.data()});
  }
}

void autocontrast(const Tensor& input, const Tensor& output, const Stream&) {
  const ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  detail::LevelsDTypes::dispatch(input.dtype(), "autocontrast", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (in.c == 3) {
      autocontrast_image<T, 3>(in, out);
    } else {
      autocontrast_image<T, 1>(in, out);
    }
  });
}

// ---- equalize -----------------------------------------------------------------------------------

// One channel at a time (any number of channels): histogram, table, lookup.
template <class T>
void equalize_image(const ImageBatch& in, const ImageBatch& out) {
  constexpr int kBins = kernels::kEqualizeBins;
  const std::int64_t planes = in.n * in.c;
  std::vector<std::uint8_t> luts(static_cast<std::size_t>(planes * kBins));
  const auto to_u8 = kernels::make_equalize_apply_op<T, 1>(nullptr, 0).to_u8;
  parallel_for(planes, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t p = first; p < last; ++p) {
      const std::int64_t n = p / in.c, c = p % in.c;
      const T* plane = static_cast<const T*>(in.data) + n * in.stride_n + c * in.stride_c;
      std::uint32_t hist[kBins] = {};
      for (std::int64_t y = 0; y < in.h; ++y) {
        for (std::int64_t x = 0; x < in.w; ++x) ++hist[to_u8(plane[y * in.stride_h + x * in.stride_w], 0u)];
      }
      kernels::equalize_lut(hist, &luts[static_cast<std::size_t>(p * kBins)]);
    }
  });
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    if (lookup_planes(in, out, luts.data(), in.c * kBins, kBins)) return;
  }
  for (std::int64_t c = 0; c < in.c; ++c) {
    run_pixels<T>(channel_of(in, c, sizeof(T)), channel_of(out, c, sizeof(T)),
                  kernels::make_equalize_apply_op<T, 1>(luts.data() + c * kBins, in.c * kBins));
  }
}

void equalize(const Tensor& input, const Tensor& output, const Stream&) {
  detail::ColorDTypes::dispatch(input.dtype(), "equalize", [&](auto tag) {
    equalize_image<typename decltype(tag)::type>(detail::image_batch(input), detail::image_batch(output));
  });
}

SV_REGISTER_KERNEL(ops::AdjustContrast, DeviceType::CPU, &adjust_contrast, detail::ColorDTypes::set);
SV_REGISTER_KERNEL(ops::Autocontrast, DeviceType::CPU, &autocontrast, detail::LevelsDTypes::set);
SV_REGISTER_KERNEL(ops::Equalize, DeviceType::CPU, &equalize, detail::ColorDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
