// CPU engine of resize: loops over kernels/resize_weights.hpp, rows spread over the thread pool.
// Per output value it performs exactly the arithmetic of the CUDA engine, in the same order, so
// the results agree bit for bit; except uint8 bilinear, which follows torchvision's CPU result
// (torch's integer path) where torchvision takes it, and its CUDA result (the float path) elsewhere.
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "core/dtype_dispatch.hpp"
#include "cpu/parallel.hpp"
#include "cpu/resize_uint8.hpp"
#include "cpu/simd.hpp"
#include "core/tensor_views.hpp"
#include "kernels/resize_weights.hpp"
#include "streamvision/functional/resize.hpp"

namespace streamvision::cpu {

namespace {

using kernels::ImageBatch;

// Runs body(plane, oy) for every output row of every plane. Planes of channels-last images share
// their cache lines: there the row's planes run back to back (image, row, channel order), so that
// the second and third pass over a row find it in cache; otherwise plane by plane.
template <class Body>
void for_each_output_row(const ImageBatch& in, const ImageBatch& out, std::int64_t work_per_row, Body&& body) {
  const std::int64_t rows = out.n * out.c * out.h;
  const std::int64_t grain = std::max<std::int64_t>(1, (1 << 16) / std::max<std::int64_t>(work_per_row, 1));
  if (kernels::channels_innermost(in) || kernels::channels_innermost(out)) {
    const std::int64_t c = out.c, hc = out.h * out.c;
    parallel_for(rows, grain, [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t r = first; r < last; ++r) body(r / hc * c + r % c, static_cast<int>(r % hc / c));
    });
    return;
  }
  parallel_for(rows, grain, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t r = first; r < last; ++r) body(r / out.h, static_cast<int>(r % out.h));
  });
}

template <class T>
void resize_nearest(const ImageBatch& in, const ImageBatch& out, bool exact) {
  const float sy = kernels::nearest_scale(in.h, out.h), sx = kernels::nearest_scale(in.w, out.w);
  std::vector<std::int64_t> xs(static_cast<std::size_t>(out.w));
  for (int x = 0; x < out.w; ++x) xs[x] = kernels::nearest_source(x, sx, static_cast<int>(in.w), exact) * in.stride_w;
  for_each_output_row(in, out, out.w, [&](std::int64_t p, int oy) {
    const T* src = kernels::plane_view<T>(in, p).row(kernels::nearest_source(oy, sy, static_cast<int>(in.h), exact));
    const auto dst = kernels::plane_view<T, T*>(out, p);
    for (int x = 0; x < out.w; ++x) dst.at(oy, x) = src[xs[x]];
  });
}

// One output row of the bilinear and bicubic (no antialias) paths: Sampler gives one value from
// the vertical and horizontal taps. The samplers' fma is one instruction in the x86-64-v3 twin
// (cpu/simd.hpp), a glibc call per tap otherwise.
template <class T, class Taps, class Sampler>
struct SampleRow {
  static void impl(const kernels::PlaneView<T>& src, const Taps& yt, const Taps* xt, const kernels::PlaneView<T, T*>& dst,
                   int oy, std::int64_t out_w) {
    for (int x = 0; x < out_w; ++x) dst.at(oy, x) = Sampler{}(src, yt, xt[x]);
  }
  static SV_CPU_V3 void v3(const kernels::PlaneView<T>& src, const Taps& yt, const Taps* xt,
                           const kernels::PlaneView<T, T*>& dst, int oy, std::int64_t out_w) {
    impl(src, yt, xt, dst, oy, out_w);
  }
  static void base(const kernels::PlaneView<T>& src, const Taps& yt, const Taps* xt, const kernels::PlaneView<T, T*>& dst,
                   int oy, std::int64_t out_w) {
    impl(src, yt, xt, dst, oy, out_w);
  }
  static auto pick() { return cpu_is_x86_64_v3() ? &v3 : &base; }
};

// All planes of one output row of a channels-innermost image, in blocks of kPixelBlock output
// pixels: the first plane's pass over a block brings the block's input lines into L1 for the
// other planes. Plane by plane over whole rows, each plane read both input rows (46 KB for a
// 1080p float32 image) again from L2: 1080p float32 channels_last, one thread, to 224x224 0.41
// against 0.30 ms in blocks, to 512x910 2.64 against 2.11-2.22. (Written with the views passed
// in: a body reading the ImageBatch fields, or calling SampleRow per block, kept the output
// pointer on the stack and ran slower than plane by plane.)
template <class T, class Taps, class Sampler>
SV_FORCE_INLINE void sample_pixel_row(const kernels::PlaneView<T>& src, const Taps& yt, const Taps* xt,
                                      const kernels::PlaneView<T, T*>& dst, int oy, std::int64_t out_w, std::int64_t channels,
                                      std::int64_t in_c, std::int64_t out_c) {
  constexpr std::int64_t kPixelBlock = 32;
  for (std::int64_t x0 = 0; x0 < out_w; x0 += kPixelBlock) {
    const std::int64_t x1 = std::min(out_w, x0 + kPixelBlock);
    for (std::int64_t c = 0; c < channels; ++c) {
      const kernels::PlaneView<T> plane{src.data + c * in_c, src.stride_h, src.stride_w};
      const kernels::PlaneView<T, T*> out{dst.data + c * out_c, dst.stride_h, dst.stride_w};
      for (std::int64_t x = x0; x < x1; ++x) out.at(oy, x) = Sampler{}(plane, yt, xt[x]);
    }
  }
}
template <class T, class Taps, class Sampler>
SV_CPU_V3 void sample_pixel_row_v3(const kernels::PlaneView<T>& src, const Taps& yt, const Taps* xt,
                                   const kernels::PlaneView<T, T*>& dst, int oy, std::int64_t out_w, std::int64_t channels,
                                   std::int64_t in_c, std::int64_t out_c) {
  sample_pixel_row<T, Taps, Sampler>(src, yt, xt, dst, oy, out_w, channels, in_c, out_c);
}
template <class T, class Taps, class Sampler>
void sample_pixel_row_base(const kernels::PlaneView<T>& src, const Taps& yt, const Taps* xt,
                           const kernels::PlaneView<T, T*>& dst, int oy, std::int64_t out_w, std::int64_t channels,
                           std::int64_t in_c, std::int64_t out_c) {
  sample_pixel_row<T, Taps, Sampler>(src, yt, xt, dst, oy, out_w, channels, in_c, out_c);
}

// Every output row of the bilinear and bicubic paths: (image, row) work items of all planes for
// channels-innermost inputs (sample_pixel_row), else (plane, row) items (SampleRow). row_taps(oy)
// gives output row oy's vertical taps; work_per_value weighs the threads' grain.
template <class T, class Sampler, class Taps, class RowTaps>
void sample_rows(const ImageBatch& in, const ImageBatch& out, const std::vector<Taps>& xt, std::int64_t work_per_value,
                 const RowTaps& row_taps) {
  if (kernels::channels_innermost(in)) {
    const auto row = cpu_is_x86_64_v3() ? &sample_pixel_row_v3<T, Taps, Sampler> : &sample_pixel_row_base<T, Taps, Sampler>;
    const std::int64_t grain = std::max<std::int64_t>(1, (1 << 16) / std::max<std::int64_t>(out.w * out.c * work_per_value, 1));
    parallel_for(out.n * out.h, grain, [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t r = first; r < last; ++r) {
        const std::int64_t n = r / out.h;
        const int oy = static_cast<int>(r % out.h);
        row(kernels::plane_view<T>(in, n, 0), row_taps(oy), xt.data(), kernels::plane_view<T, T*>(out, n, 0), oy, out.w, out.c,
            in.stride_c, out.stride_c);
      }
    });
    return;
  }
  const auto row = SampleRow<T, Taps, Sampler>::pick();
  for_each_output_row(in, out, out.w * work_per_value, [&](std::int64_t p, int oy) {
    row(kernels::plane_view<T>(in, p), row_taps(oy), xt.data(), kernels::plane_view<T, T*>(out, p), oy, out.w);
  });
}

struct LinearSampler {
  template <class T, class Taps>
  T operator()(const kernels::PlaneView<T>& src, const Taps& yt, const Taps& xt) const {
    return kernels::linear_resize_sample(src, yt, xt);
  }
};
struct CubicSampler {
  template <class T, class Taps>
  T operator()(const kernels::PlaneView<T>& src, const Taps& yt, const Taps& xt) const {
    return kernels::cubic_resize_sample(src, yt, xt);
  }
};

template <class T>
void resize_linear(const ImageBatch& in, const ImageBatch& out) {
  using A = kernels::acc_t<T>;
  const A sy = kernels::area_scale<A>(in.h, out.h), sx = kernels::area_scale<A>(in.w, out.w);
  std::vector<kernels::LinearTaps<A>> xt(static_cast<std::size_t>(out.w));
  for (int x = 0; x < out.w; ++x) xt[x] = kernels::linear_taps(sx, x, static_cast<int>(in.w), in.stride_w);
  sample_rows<T, LinearSampler>(in, out, xt, 4,
                                [&](int oy) { return kernels::linear_taps(sy, oy, static_cast<int>(in.h), in.stride_h); });
}

template <class T>
void resize_cubic(const ImageBatch& in, const ImageBatch& out) {
  using A = kernels::acc_t<T>;
  const A sy = kernels::area_scale<A>(in.h, out.h), sx = kernels::area_scale<A>(in.w, out.w);
  const int iw = static_cast<int>(in.w), ih = static_cast<int>(in.h);
  std::vector<kernels::CubicTaps<A>> xt(static_cast<std::size_t>(out.w));
  for (int x = 0; x < out.w; ++x) xt[x] = kernels::cubic_taps(sx, x, iw, in.stride_w);
  sample_rows<T, CubicSampler>(in, out, xt, 16, [&](int oy) { return kernels::cubic_taps(sy, oy, ih, in.stride_h); });
}

// Antialiased weights of every output index of one dimension.
template <class A>
struct AaTable {
  std::vector<int> xmin, xsize;
  std::vector<A> w;
  int taps = 0;
};

template <class A>
AaTable<A> aa_table(std::int64_t in_size, std::int64_t out_size, kernels::ResampleFilter filter) {
  const kernels::AaDim<A> d = kernels::make_aa_dim<A>(in_size, out_size, filter);
  AaTable<A> t;
  t.taps = d.max_taps;
  t.xmin.resize(static_cast<std::size_t>(out_size));
  t.xsize.resize(static_cast<std::size_t>(out_size));
  t.w.resize(static_cast<std::size_t>(out_size * d.max_taps));
  for (int i = 0; i < out_size; ++i) kernels::aa_weights(d, i, t.xmin[i], t.xsize[i], t.w.data() + i * d.max_taps);
  return t;
}

// column[x] = sum_j src[ymin + j][x] * w[j] for x in [x_begin, x_end), in weighted_sum's order.
template <class T, class A>
inline void vertical_taps_impl(const kernels::PlaneView<T>& src, const A* w, int ymin, int taps, int x_begin, int x_end,
                               A* column) {
  const std::int64_t sw = src.stride_w;
  const T* r = src.row(ymin);
  if (sw == 1) {
    for (int x = x_begin; x < x_end; ++x) column[x] = kernels::load_as<A>(r[x]) * w[0];
    for (int j = 1; j < taps; ++j) {
      r = src.row(ymin + j);
      const A wj = w[j];
      for (int x = x_begin; x < x_end; ++x) column[x] = kernels::fused_mul_add(kernels::load_as<A>(r[x]), wj, column[x]);
    }
  } else {
    for (int x = x_begin; x < x_end; ++x) column[x] = kernels::load_as<A>(r[x * sw]) * w[0];
    for (int j = 1; j < taps; ++j) {
      r = src.row(ymin + j);
      const A wj = w[j];
      for (int x = x_begin; x < x_end; ++x) column[x] = kernels::fused_mul_add(kernels::load_as<A>(r[x * sw]), wj, column[x]);
    }
  }
}

SV_CPU_CLONES void vertical_taps(const kernels::PlaneView<float>& src, const float* w, int ymin, int taps, int x_begin,
                                 int x_end, float* column) {
  vertical_taps_impl(src, w, ymin, taps, x_begin, x_end, column);
}
SV_CPU_CLONES void vertical_taps(const kernels::PlaneView<double>& src, const double* w, int ymin, int taps, int x_begin,
                                 int x_end, double* column) {
  vertical_taps_impl(src, w, ymin, taps, x_begin, x_end, column);
}
// out[x] = sum_j column[xmin[x] + j] * w[x][j] for every output x, in weighted_sum's order.
template <class A>
inline void horizontal_taps_impl(const A* w, int taps, const int* xmin, const int* xsize, const A* column, int out_w, A* out) {
  for (int x = 0; x < out_w; ++x) out[x] = kernels::weighted_sum(w + x * taps, 1, xsize[x], column + xmin[x], 1);
}
SV_CPU_CLONES void horizontal_taps(const float* w, int taps, const int* xmin, const int* xsize, const float* column,
                                   int out_w, float* out) {
  horizontal_taps_impl(w, taps, xmin, xsize, column, out_w, out);
}
SV_CPU_CLONES void horizontal_taps(const double* w, int taps, const int* xmin, const int* xsize, const double* column,
                                   int out_w, double* out) {
  horizontal_taps_impl(w, taps, xmin, xsize, column, out_w, out);
}
template <class A>
void horizontal_taps(const A* w, int taps, const int* xmin, const int* xsize, const A* column, int out_w, A* out) {
  horizontal_taps_impl(w, taps, xmin, xsize, column, out_w, out);
}

template <class T, class A>
void vertical_taps(const kernels::PlaneView<T>& src, const A* w, int ymin, int taps, int x_begin, int x_end, A* column) {
  vertical_taps_impl(src, w, ymin, taps, x_begin, x_end, column);
}

template <class T>
void resize_antialias(const ImageBatch& in, const ImageBatch& out, kernels::ResampleFilter filter) {
  using A = kernels::acc_t<T>;
  const AaTable<A> tx = aa_table<A>(in.w, out.w, filter), ty = aa_table<A>(in.h, out.h, filter);
  // Input columns any output column reads.
  const int x_begin = tx.xmin.front();
  const int x_end = tx.xmin.back() + tx.xsize.back();
  for_each_output_row(in, out, (x_end - x_begin) * ty.taps + out.w * tx.taps, [&](std::int64_t p, int oy) {
    thread_local std::vector<A> column;
    column.resize(static_cast<std::size_t>(in.w));
    const kernels::PlaneView<T> src = kernels::plane_view<T>(in, p);
    const A* wy = ty.w.data() + oy * ty.taps;
    // kernels::weighted_sum's operations per column, taps outermost: contiguous inner loops.
    vertical_taps(src, wy, ty.xmin[oy], ty.xsize[oy], x_begin, x_end, column.data());
    thread_local std::vector<A> row;
    row.resize(static_cast<std::size_t>(out.w));
    horizontal_taps(tx.w.data(), tx.taps, tx.xmin.data(), tx.xsize.data(), column.data(), static_cast<int>(out.w), row.data());
    const auto dst = kernels::plane_view<T, T*>(out, p);
    for (int x = 0; x < out.w; ++x) dst.at(oy, x) = kernels::resize_output<T>(row[x]);
  });
}

// Whether torchvision hands a uint8 bilinear image to torch as is (_do_native_uint8_resize_on_cpu:
// torch's CPU capability is AVX2 or AVX512); otherwise it resizes a float32 copy and rounds, as
// our float path does. torch takes the capability from ATEN_CPU_CAPABILITY when that names one
// ("default", "avx2", "avx512"), else from the CPU: AVX2 needs AVX2 and FMA, and every CPU it
// rates AVX512 has both. Read once, as torch does.
bool torchvision_native_uint8_bilinear() {
  static const bool native = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    if (const char* env = std::getenv("ATEN_CPU_CAPABILITY")) {
      const std::string_view v(env);
      if (v == "default") return false;
      if (v == "avx2" || v == "avx512") return true;
    }
    __builtin_cpu_init();  // in case the first resize runs from a static constructor
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;  // torchvision resizes uint8 bilinear in float32 off x86
#endif
  }();
  return native;
}

void resize(const Tensor& input, const Tensor& output, InterpolationMode mode, bool antialias, const Stream&) {
  const ImageBatch in = detail::image_batch(input), out = detail::image_batch(output);
  if (mode == InterpolationMode::Nearest || mode == InterpolationMode::NearestExact) {
    detail::dispatch_itemsize(input.itemsize(), [&](auto tag) {
      resize_nearest<typename decltype(tag)::type>(in, out, mode == InterpolationMode::NearestExact);
    });
    return;
  }
  if (input.dtype() == DType::UInt8 &&
      (mode == InterpolationMode::Bicubic || (mode == InterpolationMode::Bilinear && torchvision_native_uint8_bilinear()))) {
    resize_uint8_int16(in, out, antialias,
                       mode == InterpolationMode::Bilinear ? kernels::ResampleFilter::Triangle : kernels::ResampleFilter::Cubic);
    return;
  }
  detail::GeometryDTypes::dispatch(input.dtype(), "resize", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (antialias) {
      resize_antialias<T>(in, out,
                          mode == InterpolationMode::Bilinear ? kernels::ResampleFilter::Triangle : kernels::ResampleFilter::Cubic);
    } else if (mode == InterpolationMode::Bilinear) {
      resize_linear<T>(in, out);
    } else {
      resize_cubic<T>(in, out);
    }
  });
}

SV_REGISTER_KERNEL(ops::Resize, DeviceType::CPU, &resize, detail::GeometryDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
