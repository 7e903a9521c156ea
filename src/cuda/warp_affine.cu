// CUDA affine and rotate: the affine grid over warp.cuh; rotate's right-angle fast paths are one
// strided copy through the elementwise engine (16-byte stores).
#include "cuda/elementwise.cuh"
#include "cuda/warp.cuh"
#include "kernels/copy.hpp"
#include "streamvision/functional/affine.hpp"
#include "streamvision/functional/rotate.hpp"

namespace streamvision::cuda {

namespace {

void affine(const Tensor& input, const Tensor& output, const std::array<double, 6>& matrix, InterpolationMode mode,
            const Fill& fill, const Stream& stream) {
  dispatch_warp_dtype(input.dtype(), "affine", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto grid = kernels::make_affine_grid<T>(matrix.data(), static_cast<int>(input.size(-1)), static_cast<int>(input.size(-2)),
                                                   static_cast<int>(output.size(-1)), static_cast<int>(output.size(-2)));
    launch_warp<T>(input, output, grid, mode, fill, stream, "affine");
  });
}

void rotate(const Tensor& input, const Tensor& output, int quarter_turns, const std::array<double, 6>& matrix,
            InterpolationMode mode, const Fill& fill, const Stream& stream) {
  if (quarter_turns < 0) {
    dispatch_warp_dtype(input.dtype(), "rotate", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto grid = kernels::make_affine_grid<T>(matrix.data(), static_cast<int>(input.size(-1)), static_cast<int>(input.size(-2)),
                                                     static_cast<int>(output.size(-1)), static_cast<int>(output.size(-2)));
      launch_warp<T>(input, output, grid, mode, fill, stream, "rotate");
    });
    return;
  }
  const kernels::StridedView view = kernels::quarter_turn_view(input, quarter_turns);
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(view, kernels::StridedView::of(output));
  detail::dispatch_itemsize(input.itemsize(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    launch_elementwise<true>(plan, static_cast<const C*>(view.data), static_cast<C*>(output.data()), kernels::CopyOp{}, stream, "rotate");
  });
}

SV_REGISTER_KERNEL(ops::Affine, DeviceType::CUDA, &affine, detail::kGeometryDTypes);
SV_REGISTER_KERNEL(ops::Rotate, DeviceType::CUDA, &rotate, DTypeSet::all());

}  // namespace

}  // namespace streamvision::cuda
