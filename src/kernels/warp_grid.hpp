// Internal: the sampling grids of the warps (affine, rotate, perspective, elastic), shared by the
// CPU and CUDA engines. Each maps an output pixel to a source pixel coordinate the way
// torchvision builds its grid and grid_sample reads it:
//
//  * the grid lives in the image dtype for float images and in float32 for integer images
//    (16-bit float grids are rounded to 16 bits where torch stores them), except elastic on
//    float16 (see ElasticGrid);
//  * each grid names the dtype the warp samples and blends in (Sample: the image dtype, or
//    float32 where torchvision converts the image first) and warp_output brings the result back;
//  * torchvision's grid is a bmm of a base grid [x, y, 1] with a 3x2 matrix; cuBLAS accumulates
//    it as x*m0, then fma(y, m1, .), then + m2, which we reproduce;
//  * grid_sample unnormalises with ((g + 1) * size - 1) / 2 (fused, see sampling.hpp).
//
// The host builds the per-call parameters (matrices rescaled exactly as torchvision rescales
// them); per pixel only a few multiply-adds remain.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/sampling.hpp"
#include "kernels/strided_view.hpp"

namespace streamvision::kernels {

// Grid values as torch stores them for an image of dtype T (acc_t<T> arithmetic).
template <class T>
SV_HOST_DEVICE SV_FORCE_INLINE acc_t<T> grid_value(acc_t<T> v) {
  return in_image_dtype<T>(v);
}

// A Python float turned into a tensor of the grid dtype (double -> float -> 16 bits for half).
template <class T>
inline acc_t<T> to_grid_dtype(double v) {
  using A = acc_t<T>;
  if constexpr (sizeof(A) == 8) {
    return v;
  } else {
    return grid_value<T>(static_cast<A>(static_cast<float>(v)));
  }
}

// affine / rotate (torchvision _affine_grid): base (x, y) = (i - (ow-1)/2, j - (oh-1)/2),
// theta rescaled by (w/2, h/2) of the input.
template <class T>
struct AffineGrid {
  using Sample = T;
  using A = acc_t<T>;
  A m[6] = {};          // rescaled theta: gx = x m0 + y m1 + m2, gy = x m3 + y m4 + m5
  A x_offset = 0, y_offset = 0;  // (ow - 1) / 2, (oh - 1) / 2
  int in_w = 0, in_h = 0;

  SV_HOST_DEVICE SV_FORCE_INLINE void source(int ox, int oy, A& ix, A& iy) const {
    const A x = grid_value<T>(static_cast<A>(ox) - x_offset);
    const A y = grid_value<T>(static_cast<A>(oy) - y_offset);
    const A gx = grid_value<T>(fused_mul_add(y, m[1], x * m[0]) + m[2]);
    const A gy = grid_value<T>(fused_mul_add(y, m[4], x * m[3]) + m[5]);
    ix = unnormalize(gx, in_w);
    iy = unnormalize(gy, in_h);
  }
};

// `matrix` is torchvision's inverse affine matrix (double, centred coordinates).
template <class T>
inline AffineGrid<T> make_affine_grid(const double matrix[6], int in_w, int in_h, int out_w, int out_h) {
  using A = acc_t<T>;
  AffineGrid<T> g;
  const A half_w = grid_value<T>(static_cast<A>(0.5 * in_w));
  const A half_h = grid_value<T>(static_cast<A>(0.5 * in_h));
  for (int k = 0; k < 3; ++k) {
    g.m[k] = grid_value<T>(to_grid_dtype<T>(matrix[k]) / half_w);
    g.m[3 + k] = grid_value<T>(to_grid_dtype<T>(matrix[3 + k]) / half_h);
  }
  g.x_offset = static_cast<A>(static_cast<float>((out_w - 1.0) * 0.5));
  g.y_offset = static_cast<A>(static_cast<float>((out_h - 1.0) * 0.5));
  g.in_w = in_w;
  g.in_h = in_h;
  return g;
}

// perspective (torchvision _perspective_grid): base (x, y) = (i + 0.5, j + 0.5);
// g = (theta1 [x y 1] / (w/2, h/2)) / (c6 x + c7 y + 1) - 1.
template <class T>
struct PerspectiveGrid {
  using Sample = T;
  using A = acc_t<T>;
  A num[6] = {};   // rescaled theta1
  A den[2] = {};   // c6, c7
  int in_w = 0, in_h = 0;

  SV_HOST_DEVICE SV_FORCE_INLINE void source(int ox, int oy, A& ix, A& iy) const {
    const A x = grid_value<T>(static_cast<A>(ox) + A(0.5));
    const A y = grid_value<T>(static_cast<A>(oy) + A(0.5));
    const A nx = grid_value<T>(fused_mul_add(y, num[1], x * num[0]) + num[2]);
    const A ny = grid_value<T>(fused_mul_add(y, num[4], x * num[3]) + num[5]);
    const A d = grid_value<T>(fused_mul_add(y, den[1], x * den[0]) + A(1));
    const A gx = grid_value<T>(grid_value<T>(nx / d) - A(1));
    const A gy = grid_value<T>(grid_value<T>(ny / d) - A(1));
    ix = unnormalize(gx, in_w);
    iy = unnormalize(gy, in_h);
  }
};

template <class T>
inline PerspectiveGrid<T> make_perspective_grid(const double coeffs[8], int w, int h) {
  using A = acc_t<T>;
  PerspectiveGrid<T> g;
  const A half_w = grid_value<T>(static_cast<A>(0.5 * w));
  const A half_h = grid_value<T>(static_cast<A>(0.5 * h));
  for (int k = 0; k < 3; ++k) {
    g.num[k] = grid_value<T>(to_grid_dtype<T>(coeffs[k]) / half_w);
    g.num[3 + k] = grid_value<T>(to_grid_dtype<T>(coeffs[3 + k]) / half_h);
  }
  g.den[0] = to_grid_dtype<T>(coeffs[6]);
  g.den[1] = to_grid_dtype<T>(coeffs[7]);
  g.in_w = w;
  g.in_h = h;
  return g;
}

// torch.linspace(start, end, steps) as its CUDA kernel computes it: the step on the host in A,
// start + step * i for the first half, end - step * (steps - 1 - i) for the second (fused).
template <class A>
struct Linspace {
  A start = 0, end = 0, step = 0;
  int steps = 1;
  SV_HOST_DEVICE SV_FORCE_INLINE A at(int i) const {
    if (steps == 1) return start;
    if (i < steps / 2) return fused_mul_add(step, static_cast<A>(i), start);
    return fused_mul_add(-step, static_cast<A>(steps - i - 1), end);
  }
};

template <class A>
inline Linspace<A> make_linspace(double start, double end, int steps) {
  Linspace<A> l;
  l.start = static_cast<A>(start);
  l.end = static_cast<A>(end);
  l.steps = steps;
  l.step = steps > 1 ? (l.end - l.start) / static_cast<A>(steps - 1) : A(0);
  return l;
}

// elastic (torchvision _create_identity_grid + displacement): the identity grid of
// align_corners=False, linspace((1 - s) / s, (s - 1) / s, s) per axis, plus the displacement
// (already in the grid dtype), added in the grid dtype. On the CPU, torchvision's elastic_image
// converts a float16 image to float32 (its "(cpu, f16)" patch): grid, sampling and fill blend
// run in float32 and only the result is rounded to float16, ten times closer to the float32
// result than a float16 grid (torch's CUDA path). Both engines follow the CPU path, so that they
// agree. bfloat16 has no such patch and stays in bfloat16 throughout.
template <class T>
using elastic_sample_t = std::conditional_t<std::is_same_v<T, Half>, float, T>;

template <class T>
struct ElasticGrid {
  using Sample = elastic_sample_t<T>;
  using A = acc_t<Sample>;
  using D = std::conditional_t<is_half_like<Sample>, Sample, A>;  // displacement element type
  Linspace<A> xs, ys;
  const D* displacement = nullptr;
  std::int64_t d_sy = 0, d_sx = 0, d_sc = 0;  // element strides of displacement[0, y, x, c]
  int in_w = 0, in_h = 0;

  SV_HOST_DEVICE SV_FORCE_INLINE void source(int ox, int oy, A& ix, A& iy) const {
    const D* d = displacement + oy * d_sy + ox * d_sx;
    const A gx = grid_value<Sample>(grid_value<Sample>(xs.at(ox)) + static_cast<A>(to_opmath(d[0])));
    const A gy = grid_value<Sample>(grid_value<Sample>(ys.at(oy)) + static_cast<A>(to_opmath(d[d_sc])));
    ix = unnormalize(gx, in_w);
    iy = unnormalize(gy, in_h);
  }
};

// `displacement` [1, H, W, 2] of element type ElasticGrid<T>::D, element strides (y, x, c).
template <class T>
inline ElasticGrid<T> make_elastic_grid(int w, int h, const void* displacement, std::int64_t stride_y,
                                        std::int64_t stride_x, std::int64_t stride_c) {
  using A = typename ElasticGrid<T>::A;
  ElasticGrid<T> g;
  g.displacement = static_cast<const typename ElasticGrid<T>::D*>(displacement);
  g.d_sy = stride_y;
  g.d_sx = stride_x;
  g.d_sc = stride_c;
  g.xs = make_linspace<A>((-w + 1.0) / w, (w - 1.0) / w, w);
  g.ys = make_linspace<A>((-h + 1.0) / h, (h - 1.0) / h, h);
  g.in_w = w;
  g.in_h = h;
  return g;
}

// A warp's output pixel for image dtype T from what it sampled in the grid's Sample dtype S
// (acc_t<S> values): torchvision's fill blend in S, then S -> T when they differ.
template <class T, class S, class A>
SV_HOST_DEVICE SV_FORCE_INLINE T warp_output(A sampled, A mask, bool nearest, bool has_fill, A fill) {
  static_assert(std::is_same_v<A, acc_t<S>> && std::is_same_v<acc_t<S>, acc_t<T>>, "a warp accumulates in acc_t<T>");
  if constexpr (std::is_same_v<S, T>) {
    return blend_fill<T>(sampled, mask, nearest, has_fill, fill);
  } else {
    return to_image_dtype<T>(blend_fill<S>(sampled, mask, nearest, has_fill, fill));
  }
}

// rotate's fast paths (torch.rot90 over the last two dims, counter-clockwise): a view of the
// input whose elements, copied in order, are the rotated image ([.., W, H] for odd turns).
inline StridedView quarter_turned(StridedView v, int quarter_turns) {
  const int h = v.rank - 2, w = v.rank - 1;
  switch (quarter_turns & 3) {
    case 1:  // out[i][j] = in[j][W-1-i]
      v = v.flipped(w);
      break;
    case 2:  // out[i][j] = in[H-1-i][W-1-j]
      return v.flipped(h).flipped(w);
    case 3:  // out[i][j] = in[H-1-j][i]
      v = v.flipped(h);
      break;
    default:
      return v;
  }
  const std::int64_t size = v.shape[h], stride = v.strides[h];
  v.shape[h] = v.shape[w];
  v.strides[h] = v.strides[w];
  v.shape[w] = size;
  v.strides[w] = stride;
  return v;
}

}  // namespace streamvision::kernels
