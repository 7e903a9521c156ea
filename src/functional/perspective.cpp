// perspective: coefficients from points (torchvision's _get_perspective_coeffs) or given.
#include "streamvision/functional/perspective.hpp"

#include <cmath>
#include <string>

#include "functional/geometry_utils.hpp"
#include "functional/op_context.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Perspective)

namespace streamvision::functional {

namespace {

constexpr const char* kOp = "perspective";

bool is_integral(double v) { return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.0e15; }

// torch.tensor(list) is int64 when every entry is an int and float32 otherwise; a row of the
// least-squares system therefore keeps its exact values only when all its inputs are integers.
void store_row(double* row, const double (&values)[8], bool integral) {
  for (int k = 0; k < 8; ++k) row[k] = integral ? values[k] : static_cast<double>(static_cast<float>(values[k]));
}

}  // namespace

std::array<double, 8> perspective_coefficients(const Points& startpoints, const Points& endpoints) {
  if (startpoints.size() != 4 || endpoints.size() != 4) {
    throw Error(ErrorKind::Value, kOp, "startpoints/endpoints", "exactly four corners each",
                std::to_string(startpoints.size()) + " startpoints and " + std::to_string(endpoints.size()) + " endpoints");
  }
  for (const Points* points : {&startpoints, &endpoints}) {
    for (const auto& p : *points) {
      if (p.size() != 2) {
        throw Error(ErrorKind::Value, kOp, "startpoints/endpoints", "points of two values [x, y]", detail::join_values(p));
      }
      detail::check_finite(kOp, "startpoints/endpoints", p);
    }
  }
  double a[8][8], b[8];
  for (int i = 0; i < 4; ++i) {
    const auto& p1 = endpoints[i];
    const auto& p2 = startpoints[i];
    const double r0[8] = {p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]};
    const double r1[8] = {0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]};
    store_row(a[2 * i], r0, is_integral(p1[0]) && is_integral(p1[1]) && is_integral(p2[0]));
    store_row(a[2 * i + 1], r1, is_integral(p1[0]) && is_integral(p1[1]) && is_integral(p2[1]));
    b[2 * i] = p2[0];
    b[2 * i + 1] = p2[1];
  }
  // The system is square: Gaussian elimination with partial pivoting in double (torchvision's
  // least squares gives the same solution up to rounding far below the float32 result).
  for (int col = 0; col < 8; ++col) {
    int pivot = col;
    for (int r = col + 1; r < 8; ++r) {
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    }
    if (a[pivot][col] == 0.0) {
      throw Error(ErrorKind::Value, kOp, "startpoints/endpoints", "points that define a perspective transform",
                  "a degenerate set of points (singular system)");
    }
    if (pivot != col) {
      for (int k = 0; k < 8; ++k) std::swap(a[pivot][k], a[col][k]);
      std::swap(b[pivot], b[col]);
    }
    for (int r = col + 1; r < 8; ++r) {
      const double f = a[r][col] / a[col][col];
      for (int k = col; k < 8; ++k) a[r][k] -= f * a[col][k];
      b[r] -= f * b[col];
    }
  }
  std::array<double, 8> x{};
  for (int r = 7; r >= 0; --r) {
    double s = b[r];
    for (int k = r + 1; k < 8; ++k) s -= a[r][k] * x[k];
    x[r] = s / a[r][r];
  }
  for (double& v : x) {
    if (!std::isfinite(v)) {
      throw Error(ErrorKind::Value, kOp, "startpoints/endpoints", "points that define a perspective transform",
                  "points whose coefficients are not finite");
    }
    v = static_cast<double>(static_cast<float>(v));  // torchvision: .solution.to(torch.float32)
  }
  return x;
}

Tensor perspective(const Tensor& image, const std::optional<Points>& startpoints, const std::optional<Points>& endpoints,
                   InterpolationMode interpolation, const Fill& fill, const std::optional<std::vector<double>>& coefficients,
                   const std::optional<Stream>& stream) {
  detail::check_image(kOp, image, 3);
  std::array<double, 8> coeffs{};
  if (coefficients) {
    if (startpoints && endpoints) {
      throw Error(ErrorKind::Value, kOp, "coefficients", "either startpoints/endpoints or coefficients",
                  "both (The startpoints/endpoints and the coefficients shouldn't be defined concurrently.)");
    }
    if (coefficients->size() != 8) {
      throw Error(ErrorKind::Value, kOp, "coefficients", "8 float values", std::to_string(coefficients->size()) + " values");
    }
    detail::check_finite(kOp, "coefficients", *coefficients);
    for (int k = 0; k < 8; ++k) coeffs[k] = (*coefficients)[k];
  } else if (startpoints && endpoints) {
    coeffs = perspective_coefficients(*startpoints, *endpoints);
  } else {
    throw Error(ErrorKind::Value, kOp, "startpoints/endpoints", "startpoints and endpoints, or coefficients", "None");
  }
  detail::check_grid_interpolation(kOp, interpolation);
  detail::check_grid_fill(kOp, fill, image.size(-3));
  detail::check_dtype(kOp, image.dtype(), detail::kGeometryDTypes);
  detail::check_spatial_size(kOp, image.size(-2), image.size(-1));
  const auto kernel = kernel_table<ops::Perspective>().get(image.device(), image.dtype());
  const Stream on = detail::op_stream(kOp, image, stream);
  const Tensor src = detail::batchable(image, on);
  Tensor out = detail::empty_image_like(src, Dims(src.shape()), on);
  if (out.numel() > 0) kernel(src, out, coeffs, interpolation, fill, on);
  return out;
}

}  // namespace streamvision::functional
