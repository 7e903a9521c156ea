// affine and rotate: torchvision's argument rules, its inverse affine matrix (double precision,
// as Python computes it) and rotate's expand size and fast paths. The warp itself is
// kernels/warp_grid.hpp + kernels/sampling.hpp, iterated by src/cpu/warp.cpp and src/cuda/warp_*.cu.
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "functional/op_context.hpp"
#include "kernels/sampling.hpp"
#include "streamvision/functional/affine.hpp"
#include "streamvision/functional/flip.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Affine)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::Rotate)

namespace streamvision::functional {

namespace {

constexpr double kDegToRad = 3.14159265358979323846 / 180.0;  // math.radians

// Python's float modulo: the result takes the divisor's sign.
double python_mod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0.0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}

// torchvision's _compute_affine_output_size (the tensor version): corners through the matrix in
// float32, shifted by half the size, truncated to 1e-4, then ceil(max) - floor(min).
std::array<std::int64_t, 2> affine_output_size(const std::array<double, 6>& matrix, std::int64_t w, std::int64_t h) {
  const float hw = static_cast<float>(0.5 * static_cast<double>(w)), hh = static_cast<float>(0.5 * static_cast<double>(h));
  const float pts[4][2] = {{-hw, -hh}, {-hw, hh}, {hw, hh}, {hw, -hh}};
  float theta[6];
  for (int k = 0; k < 6; ++k) theta[k] = static_cast<float>(matrix[k]);
  float lo[2] = {0, 0}, hi[2] = {0, 0};
  for (int p = 0; p < 4; ++p) {
    for (int axis = 0; axis < 2; ++axis) {
      const float* t = theta + 3 * axis;
      const float v = kernels::fused_mul_add(pts[p][1], t[1], pts[p][0] * t[0]) + t[2];
      lo[axis] = p == 0 ? v : std::min(lo[axis], v);
      hi[axis] = p == 0 ? v : std::max(hi[axis], v);
    }
  }
  const float halfs[2] = {hw, hh};
  const float inv_tol = static_cast<float>(1.0 / 1e-4), tol = static_cast<float>(1e-4);
  std::array<std::int64_t, 2> size{};
  for (int axis = 0; axis < 2; ++axis) {
    const float cmax = std::ceil(std::trunc((hi[axis] + halfs[axis]) * inv_tol) * tol);
    const float cmin = std::floor(std::trunc((lo[axis] + halfs[axis]) * inv_tol) * tol);
    const float extent = cmax - cmin;
    // A center far outside float32's range makes the corners inf and the extent NaN or inf: an
    // error, not a conversion to int64 (undefined for those values).
    if (!(extent >= 0.0f && extent < 9.0e18f)) {
      throw Error(ErrorKind::Value, "rotate", "center", "a center whose expanded canvas has a finite size",
                  "an expanded canvas of " + format_number(static_cast<double>(extent)) + " pixels along an axis");
    }
    size[axis] = static_cast<std::int64_t>(extent);
  }
  return size;  // w, h
}

std::array<double, 2> pair_of(const char* op, const char* argument, const std::vector<double>& values,
                              const char* expected) {
  if (values.size() != 2) {
    throw Error(ErrorKind::Value, op, argument, expected, std::to_string(values.size()) + " values " + format_list(values));
  }
  detail::check_finite(op, argument, values);
  return {values[0], values[1]};
}

// (c - size / 2) for a user centre in pixels, (0, 0) (the image centre) otherwise.
std::array<double, 2> centred(const char* op, const OptionalList<double>& center, std::int64_t w,
                              std::int64_t h) {
  if (!center) return {0.0, 0.0};
  const auto c = pair_of(op, "center", *center, "two values [cx, cy]");
  return {c[0] - static_cast<double>(w) * 0.5, c[1] - static_cast<double>(h) * 0.5};
}

// Checks of the general warp shared by affine and rotate.
void check_warp(const char* op, const Tensor& image, InterpolationMode interpolation, const Fill& fill) {
  detail::check_grid_interpolation(op, interpolation);
  detail::check_grid_fill(op, fill, image.size(-3));
  detail::check_spatial_size(op, image.size(-2), image.size(-1));
}

// The affine warp of `image` into an out_h x out_w output (affine, and rotate off the right angles).
Tensor warp(const Tensor& image, const std::array<double, 6>& matrix, std::int64_t out_h, std::int64_t out_w,
            InterpolationMode interpolation, const Fill& fill, const std::optional<Stream>& stream) {
  auto [kernel, on, src, out] = detail::prepare<ops::Affine>(
      image, stream,
      {.height = out_h, .width = out_w, .layout = detail::OutputLayout::ChannelsLastOrContiguous, .image_batch = true});
  if (out.numel() > 0) kernel(src, out, matrix, interpolation, fill, on);
  return out;
}

}  // namespace

std::array<double, 6> inverse_affine_matrix(const std::array<double, 2>& center, double angle,
                                            const std::array<double, 2>& translate, double scale,
                                            const std::array<double, 2>& shear) {
  const double rot = angle * kDegToRad;
  const double sx = shear[0] * kDegToRad;
  const double sy = shear[1] * kDegToRad;
  const double cx = center[0], cy = center[1];
  const double tx = translate[0], ty = translate[1];
  const double cos_sy = std::cos(sy);
  const double tan_sx = std::tan(sx);
  const double rot_minus_sy = rot - sy;
  const double cx_plus_tx = cx + tx;
  const double cy_plus_ty = cy + ty;
  const double a = std::cos(rot_minus_sy) / cos_sy;
  const double b = -(a * tan_sx + std::sin(rot));
  const double c = std::sin(rot_minus_sy) / cos_sy;
  const double d = std::cos(rot) - c * tan_sx;
  std::array<double, 6> m = {d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0};
  m[2] = m[2] + (cx - m[0] * cx_plus_tx - m[1] * cy_plus_ty);
  m[5] = m[5] + (cy - m[3] * cx_plus_tx - m[4] * cy_plus_ty);
  return m;
}

Tensor affine(const Tensor& image, double angle, const std::vector<double>& translate, double scale,
              const std::vector<double>& shear, InterpolationMode interpolation, const Fill& fill,
              const OptionalList<double>& center, const std::optional<Stream>& stream) {
  constexpr const char* op = "affine";
  detail::check_image(op, image, 3);
  detail::check_finite(op, "angle", angle);
  const auto t = pair_of(op, "translate", translate, "a sequence of length 2 (Argument translate should be a sequence of length 2)");
  detail::check_finite(op, "scale", scale);
  if (scale <= 0.0) throw Error(ErrorKind::Value, op, "scale", "a positive value (Argument scale should be positive)", std::to_string(scale));
  std::array<double, 2> sh{};
  if (shear.size() == 1) {
    sh = {shear[0], shear[0]};
  } else if (shear.size() == 2) {
    sh = {shear[0], shear[1]};
  } else {
    throw Error(ErrorKind::Value, op, "shear", "a sequence containing one or two values", format_list(shear));
  }
  detail::check_finite(op, "shear", shear);
  const std::int64_t h = image.size(-2), w = image.size(-1);
  const auto c = centred(op, center, w, h);
  check_warp(op, image, interpolation, fill);
  const std::array<double, 6> matrix = inverse_affine_matrix(c, angle, t, scale, sh);
  for (double v : matrix) detail::check_finite(op, "matrix", v);
  return warp(image, matrix, h, w, interpolation, fill, stream);
}

Tensor rotate(const Tensor& image, double angle, InterpolationMode interpolation, bool expand,
              const OptionalList<double>& center, const Fill& fill, const std::optional<Stream>& stream) {
  constexpr const char* op = "rotate";
  detail::check_image(op, image, 3);
  detail::check_finite(op, "angle", angle);
  const double a = python_mod(angle, 360.0);
  const std::int64_t h = image.size(-2), w = image.size(-1);
  int quarter_turns = -1;
  if (!center) {
    if (a == 0.0) quarter_turns = 0;
    if (a == 180.0) quarter_turns = 2;
    if ((expand || h == w) && a == 90.0) quarter_turns = 1;
    if ((expand || h == w) && a == 270.0) quarter_turns = 3;
  }
  std::array<double, 6> matrix{};
  std::int64_t out_h = h, out_w = w;
  if (quarter_turns >= 0) {
    if (quarter_turns % 2 == 1) std::swap(out_h, out_w);
  } else {
    const auto c = centred(op, center, w, h);
    check_warp(op, image, interpolation, fill);
    detail::check_kernel_dtype<ops::Affine>(op, image);  // off the right angles rotate is affine's warp
    // torchvision rotates by -angle: affine's angle is clockwise, rotate's counter-clockwise.
    matrix = inverse_affine_matrix(c, -a, {0.0, 0.0}, 1.0, {0.0, 0.0});
    if (expand) {
      const auto size = affine_output_size(matrix, w, h);
      out_w = size[0];
      out_h = size[1];
      detail::check_spatial_size(op, out_h, out_w);
    }
  }
  std::int64_t planes = 1;
  for (int d = 0; d < image.dim() - 2; ++d) planes *= image.size(d);
  if (planes > 0 && (h == 0 || w == 0) && out_h > 0 && out_w > 0) {
    // An expanded rotation of planes without pixels has nothing to sample (torchvision's reshape fails).
    throw Error(ErrorKind::Runtime, op, "image", "an image with pixels when expand gives a non-empty output",
                "shape " + Dims(image.shape()).str() + " and output " + std::to_string(out_h) + " x " + std::to_string(out_w));
  }
  if (quarter_turns < 0) return warp(image, matrix, out_h, out_w, interpolation, fill, stream);
  if (quarter_turns % 2 == 1) {
    // torch.rot90, which torchvision returns: a flip (of W for 90, of H for 270), handed back as
    // its transposed view. The flip runs at the copy bandwidth with the flips' own kernels, where
    // a transposing copy into a dense [.., W, H] read one value per input row; the result has
    // torchvision's strides.
    const Tensor flipped = quarter_turns == 1 ? horizontal_flip(image, stream) : vertical_flip(image, stream);
    std::vector<int> dims(static_cast<std::size_t>(flipped.dim()));
    std::iota(dims.begin(), dims.end(), 0);
    std::swap(dims[dims.size() - 2], dims[dims.size() - 1]);
    return flipped.permute(dims);
  }
  // 0 and 180: torchvision's clone and torch.flip of both axes, dense in the input's order.
  auto [kernel, on, src, out] = detail::prepare<ops::Rotate>(image, stream, {.layout = detail::OutputLayout::SameOrder});
  if (out.numel() > 0) kernel(src, out, quarter_turns, on);
  return out;
}

}  // namespace streamvision::functional
