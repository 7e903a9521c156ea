// perspective: coefficients from points (torchvision's _get_perspective_coeffs: LAPACK's dgels) or given.
#include "streamvision/functional/perspective.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "functional/op_context.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Perspective)

namespace streamvision::functional {

namespace {

constexpr const char* kOp = "perspective";
constexpr int kN = 8;  // unknowns and equations

// torch.tensor(list) is int64 when every entry is an int (exact below 2^63) and float32 otherwise.
bool is_integral(double v) { return std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9.2e18; }

// The least-squares system of torchvision's _get_perspective_coeffs, column-major as LAPACK holds
// it (a[column][row]).
struct System {
  double a[kN][kN];
  double b[kN];
};

// A row keeps its exact values only when all its inputs are integers (int64 -> float64, where
// torch refuses products beyond int64 with a ValueError and a zero is +0); otherwise it goes
// through float32.
void store_row(System& s, int row, const double (&values)[kN], bool integral) {
  for (int k = 0; k < kN; ++k) {
    const double v = values[k];
    if (integral && !(std::fabs(v) < 9223372036854775808.0)) {
      throw Error(ErrorKind::Value, kOp, "startpoints/endpoints", "integer points whose products fit in int64",
                  "a product of " + format_list(std::vector<double>{v}) + " (Overflow when unpacking long long)");
    }
    s.a[k][row] = integral ? v + 0.0 : static_cast<double>(static_cast<float>(v));
  }
}

// torch.linalg.lstsq(driver="gels") runs LAPACK's dgels: the Householder QR of dgeqr2 (dlarfg
// per column, dlarf on the trailing columns), Q^T b (dormqr), then dtrtrs, which fails only on
// an exactly zero diagonal element of R, and dtrsm's column-oriented back substitution. The
// steps below follow LAPACK's conventions and, where LAPACK leaves the order of a sum to the
// BLAS, the order that torch's x86 builds (MKL) use for this 8x8 system, measured against its
// results: the double solution is then bit-identical, so that singular systems fail, and
// nearly singular ones give the same (large) solution, where torchvision's do.

// dnrm2 as dlarfg uses it: the scaled sum of squares of the reference BLAS.
double norm2(const double* x, int n) {
  double scale = 0.0, ssq = 1.0;
  for (int i = 0; i < n; ++i) {
    if (x[i] == 0.0) continue;
    const double ax = std::fabs(x[i]);
    if (scale < ax) {
      const double r = scale / ax;
      ssq = 1.0 + ssq * (r * r);
      scale = ax;
    } else {
      const double r = ax / scale;
      ssq += r * r;
    }
  }
  return scale * std::sqrt(ssq);
}

// dlapy2: sqrt(x^2 + y^2) without overflow.
double lapy2(double x, double y) {
  const double w = std::fmax(std::fabs(x), std::fabs(y)), z = std::fmin(std::fabs(x), std::fabs(y));
  if (z == 0.0) return w;
  const double r = z / w;
  return w * std::sqrt(1.0 + r * r);
}

// dlarfg: the reflector H = I - tau [1; v] [1, v^T] with H [alpha; x] = [beta; 0]. alpha becomes
// beta and x (n - 1 values) becomes v; tau = 0 (H = I) when x is zero.
double make_reflector(double& alpha, double* x, int n) {
  if (n <= 1) return 0.0;
  double xnorm = norm2(x, n - 1);
  if (xnorm == 0.0) return 0.0;
  double beta = -std::copysign(lapy2(alpha, xnorm), alpha);
  const double safmin = std::numeric_limits<double>::min() / std::numeric_limits<double>::epsilon();
  int rescaled = 0;
  if (std::fabs(beta) < safmin) {
    // beta may have lost accuracy: scale x and alpha up and recompute (at most 20 times).
    const double rsafmn = 1.0 / safmin;
    do {
      ++rescaled;
      for (int i = 0; i < n - 1; ++i) x[i] *= rsafmn;
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (std::fabs(beta) < safmin && rescaled < 20);
    xnorm = norm2(x, n - 1);
    beta = -std::copysign(lapy2(alpha, xnorm), alpha);
  }
  const double tau = (beta - alpha) / beta;
  const double scale = 1.0 / (alpha - beta);
  for (int i = 0; i < n - 1; ++i) x[i] *= scale;
  for (int j = 0; j < rescaled; ++j) beta *= safmin;
  alpha = beta;
  return tau;
}

// w = [1, v^T] c over n rows (v[0] stands for the implicit 1 and is not read) as the QR's dlarf
// sums it: two interleaved partial sums (even and odd rows) added together, then the odd last row.
double dot_interleaved(const double* v, const double* c, int n) {
  if (n == 1) return c[0];
  double even = c[0], odd = c[1] * v[1];
  int k = 2;
  for (; k + 1 < n; k += 2) {
    even += c[k] * v[k];
    odd += c[k + 1] * v[k + 1];
  }
  double w = even + odd;
  if (k < n) w += c[k] * v[k];
  return w;
}

// The same product as dormqr sums it for Q^T b: the rows below the first in order, then the first.
double dot_tail_first(const double* v, const double* c, int n) {
  if (n == 1) return c[0];
  double w = c[1] * v[1];
  for (int k = 2; k < n; ++k) w += c[k] * v[k];
  return w + c[0];
}

// dlarf from the left on one column c (n values) given w = [1, v^T] c: c -= tau [1; v] w (dger's
// rank-1 update, skipped when w is zero).
void apply_reflector(const double* v, double tau, double w, double* c, int n) {
  if (w == 0.0) return;
  const double t = -tau * w;
  c[0] += t;
  for (int i = 1; i < n; ++i) c[i] += v[i] * t;
}

std::array<double, kN> solve_gels(System& s) {
  double tau[kN];
  for (int i = 0; i < kN; ++i) {
    double* v = s.a[i] + i;
    tau[i] = make_reflector(v[0], v + 1, kN - i);
    if (tau[i] == 0.0) continue;
    for (int j = i + 1; j < kN; ++j) {
      double* c = s.a[j] + i;
      apply_reflector(v, tau[i], dot_interleaved(v, c, kN - i), c, kN - i);
    }
  }
  for (int i = 0; i < kN; ++i) {
    if (tau[i] == 0.0) continue;
    const double* v = s.a[i] + i;
    double* c = s.b + i;
    apply_reflector(v, tau[i], dot_tail_first(v, c, kN - i), c, kN - i);
  }
  for (int i = 0; i < kN; ++i) {
    if (s.a[i][i] == 0.0) {
      throw Error(ErrorKind::Runtime, kOp, "startpoints/endpoints", "points that define a perspective transform",
                  "a degenerate set of points (torch.linalg.lstsq: The least squares solution could not be computed "
                  "because the input matrix does not have full rank (error code: " + std::to_string(i + 1) + "))");
    }
  }
  std::array<double, kN> x{};
  std::copy(s.b, s.b + kN, x.begin());
  for (int k = kN - 1; k >= 0; --k) {
    if (x[k] == 0.0) continue;
    x[k] /= s.a[k][k];
    for (int i = 0; i < k; ++i) x[i] -= x[k] * s.a[k][i];
  }
  return x;
}

}  // namespace

std::array<double, 8> perspective_coefficients(const Points& startpoints, const Points& endpoints) {
  if (startpoints.size() != 4 || endpoints.size() != 4) {
    throw Error(ErrorKind::Value, kOp, "startpoints/endpoints", "exactly four corners each (Please provide exactly four corners)",
                std::to_string(startpoints.size()) + " startpoints and " + std::to_string(endpoints.size()) + " endpoints");
  }
  for (const Points* points : {&startpoints, &endpoints}) {
    for (const auto& p : *points) {
      if (p.size() != 2) {
        throw Error(ErrorKind::Value, kOp, "startpoints/endpoints", "points of two values [x, y]", format_list(p));
      }
    }
  }
  System s;
  for (int i = 0; i < 4; ++i) {
    const auto& p1 = endpoints[i];
    const auto& p2 = startpoints[i];
    const double r0[kN] = {p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]};
    const double r1[kN] = {0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]};
    store_row(s, 2 * i, r0, is_integral(p1[0]) && is_integral(p1[1]) && is_integral(p2[0]));
    store_row(s, 2 * i + 1, r1, is_integral(p1[0]) && is_integral(p1[1]) && is_integral(p2[1]));
    s.b[2 * i] = p2[0];
    s.b[2 * i + 1] = p2[1];
  }
  // torch's LAPACK refuses NaN in its input and scales infinity into a rank error (a RuntimeError
  // either way); a float32 row overflows to infinity where its products exceed float32's range.
  const double* first = &s.a[0][0];
  if (!std::all_of(first, first + kN * kN, [](double v) { return std::isfinite(v); }) ||
      !std::all_of(s.b, s.b + kN, [](double v) { return std::isfinite(v); })) {
    throw Error(ErrorKind::Runtime, kOp, "startpoints/endpoints", "points whose perspective system is finite",
                "NaN or infinity in the system (torch.linalg.lstsq rejects it)");
  }
  std::array<double, kN> x = solve_gels(s);
  for (double& v : x) v = static_cast<double>(static_cast<float>(v));  // torchvision: .solution.to(torch.float32)
  return x;
}

Tensor perspective(const Tensor& image, const std::optional<Points>& startpoints, const std::optional<Points>& endpoints,
                   InterpolationMode interpolation, const Fill& fill, const OptionalList<double>& coefficients,
                   const std::optional<Stream>& stream) {
  detail::check_image(kOp, image, 3);
  std::array<double, 8> coeffs{};
  if (coefficients) {
    if (startpoints && endpoints) {
      throw Error(ErrorKind::Value, kOp, "coefficients", "either startpoints/endpoints or coefficients",
                  "both (The startpoints/endpoints and the coefficients shouldn't be defined concurrently.)");
    }
    if (coefficients->size() != 8) {
      throw Error(ErrorKind::Value, kOp, "coefficients", "8 float values (Argument coefficients should have 8 float values)",
                  std::to_string(coefficients->size()) + " values");
    }
    detail::check_finite(kOp, "coefficients", *coefficients);
    for (int k = 0; k < 8; ++k) coeffs[k] = (*coefficients)[k];
  } else if (startpoints && endpoints) {
    coeffs = perspective_coefficients(*startpoints, *endpoints);
  } else {
    throw Error(ErrorKind::Value, kOp, "startpoints/endpoints",
                "startpoints and endpoints, or coefficients (Either the startpoints/endpoints or the coefficients must "
                "have non `None` values.)",
                "None");
  }
  detail::check_grid_interpolation(kOp, interpolation);
  detail::check_grid_fill(kOp, fill, image.size(-3));
  detail::check_spatial_size(kOp, image.size(-2), image.size(-1));
  auto [kernel, on, src, out] = detail::prepare<ops::Perspective>(
      image, stream, {.layout = detail::OutputLayout::ChannelsLastOrContiguous, .image_batch = true});
  if (out.numel() > 0) kernel(src, out, coeffs, interpolation, fill, on);
  return out;
}

}  // namespace streamvision::functional
