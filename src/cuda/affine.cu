// CUDA kernels of affine (the affine grid over warp.cuh) and rotate's right angles (one strided
// copy of a rotated view, 16-byte stores).
#include "cuda/elementwise.cuh"
#include "cuda/warp.cuh"
#include "streamvision/functional/affine.hpp"

namespace streamvision::cuda {

namespace {

void affine(const Tensor& input, const Tensor& output, const std::array<double, 6>& matrix, InterpolationMode mode,
            const Fill& fill, const Stream& stream) {
  detail::GeometryDTypes::dispatch(input.dtype(), "affine", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto grid = kernels::make_affine_grid<T>(matrix.data(), static_cast<int>(input.size(-1)), static_cast<int>(input.size(-2)),
                                                   static_cast<int>(output.size(-1)), static_cast<int>(output.size(-2)));
    launch_warp<T>(input, output, grid, mode, fill, stream, "affine");
  });
}

void rotate(const Tensor& input, const Tensor& output, int quarter_turns, const Stream& stream) {
  copy_view(kernels::quarter_turned(detail::strided_view(input), quarter_turns), detail::strided_view(output), stream,
            "rotate");
}

SV_REGISTER_KERNEL(ops::Affine, DeviceType::CUDA, &affine, detail::GeometryDTypes::set);
SV_REGISTER_KERNEL(ops::Rotate, DeviceType::CUDA, &rotate, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
