// Internal: what every front end shares. A front end checks its arguments with torchvision's
// error kinds, then makes one call:
//
//   auto [kernel, on, src, out] = detail::prepare<ops::X>(image, stream, {.height = h, ...});
//   if (out.numel() > 0) kernel(src, out, ..., on);
//
// prepare looks the kernel up (the registry alone decides which devices and dtypes are
// supported), resolves the stream, gives the kernel an input it can take and allocates the
// output on that stream. All checks happen before anything is allocated, so a failing call
// changes nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor_views.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/core/registry.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"

namespace streamvision::detail {

// ---- arguments --------------------------------------------------------------------------------

// Throws unless `t` is defined and has at least `min_rank` dims ("expected a tensor with at
// least 3 dims ([..., C, H, W]), got shape [5, 7]").
void check_image(const char* op, const Tensor& t, int min_rank);

// Throws Error(kind, op, argument, expected, format_number(value)) unless `ok`. torchvision_words:
// torchvision's own sentence for the error, appended in parentheses so that code matching
// torchvision's messages (its tests do) matches ours.
void check_value(bool ok, ErrorKind kind, const char* op, const char* argument, const char* expected, double value,
                 const char* torchvision_words = nullptr);

// ValueError unless `v` is finite ("op: argument 'arg': expected a finite value, got inf").
void check_finite(const char* op, const char* argument, double v);
void check_finite(const char* op, const char* argument, const std::vector<double>& values);

// torchvision's TypeError for ops that need 1 or 3 channels (the image has >= 3 dims).
void check_one_or_three_channels(const char* op, const Tensor& image);

// Spatial sizes the kernels index with 32-bit integers: H and W below 2^31.
void check_spatial_size(const char* op, std::int64_t height, std::int64_t width);

// The grid ops take nearest and bilinear only (ValueError naming the mode otherwise).
void check_grid_interpolation(const char* op, InterpolationMode mode);

// A grid op's fill: None, one value, or one per channel (ValueError otherwise, torchvision's
// message); at most kernels::kMaxFillValues values.
void check_grid_fill(const char* op, const Fill& fill, std::int64_t channels);

// For an op that runs another op's kernel (resized_crop runs resize's, rotate affine's): the
// image's dtype checked against that kernel under the public op's own name, before any work.
template <class KernelOp>
void check_kernel_dtype(const char* op, const Tensor& image) {
  const DTypeSet supported = kernel_table<KernelOp>().dtypes(image.device().type);
  if (!supported.contains(image.dtype())) throw_unsupported(op, image.device(), image.dtype(), !supported.empty(), supported);
}

// The channel count of an image [..., C, H, W] (1 for a 2-D image).
inline std::int64_t channels_of(const Tensor& image) { return image.dim() >= 3 ? image.size(-3) : 1; }

// ---- stream, input, output ----------------------------------------------------------------------

// The stream an op on `input` runs on: the explicit one (which must be on the input's
// device), else Stream::current(input's device). CPU inputs get no stream.
Stream op_stream(const char* op, const Tensor& input, const std::optional<Stream>& stream);

// How an output's strides are chosen (its values never depend on it).
enum class OutputLayout : std::uint8_t {
  // Dense in the input's stride order, contiguous and then channels_last preferred where a
  // shape is both (TensorIterator's rule): elementwise, colour and filter ops.
  SameOrder,
  // channels_last when the input keeps its channels innermost, else contiguous (torch's
  // interpolate and grid_sample): resize, pad, the warps.
  ChannelsLastOrContiguous,
};

struct OutputSpec {
  std::int64_t channels = -1, height = -1, width = -1;  // -1: the input's
  std::optional<DType> dtype = std::nullopt;            // the input's when nullopt
  OutputLayout layout = OutputLayout::SameOrder;
  bool in_place = false;  // the output is the input itself
  // The kernel takes an ImageBatch: an input whose leading dims do not merge into one batch dim
  // is copied to a contiguous tensor first (the elementwise kernels take any strides).
  bool image_batch = false;
};

template <class Kernel>
struct Prepared {
  Kernel kernel;
  Stream stream;  // the op's stream (no stream for CPU)
  Tensor src;     // what the kernel reads: the input or its contiguous copy
  Tensor out;
};

// A tensor an op writes must not repeat an element (a dim of size > 1 with stride 0): the
// result would depend on the write order, which differs between threads and engines. torch's
// RuntimeError and sentence.
void check_no_internal_overlap(const char* op, const char* argument, const Tensor& t);

// A new output for `input` as `spec` says, on `stream`.
Tensor new_output(const Tensor& input, const OutputSpec& spec, const Stream& stream);

// `image` itself when its leading dims merge into one batch dim, else a contiguous copy.
Tensor batchable(const Tensor& image, const Stream& stream);

template <class Op>
Prepared<typename Op::Kernel> prepare(const Tensor& image, const std::optional<Stream>& stream,
                                      const OutputSpec& spec = {}) {
  const auto kernel = kernel_table<Op>().get(image.device(), image.dtype());
  if (spec.in_place) check_no_internal_overlap(Op::name, "image", image);
  const Stream on = op_stream(Op::name, image, stream);
  Tensor src = spec.image_batch ? batchable(image, on) : image;
  Tensor out = spec.in_place ? image : new_output(src, spec, on);
  return {kernel, on, std::move(src), std::move(out)};
}

}  // namespace streamvision::detail
