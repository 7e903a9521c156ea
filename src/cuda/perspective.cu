// CUDA perspective: the perspective grid over warp.cuh.
#include "cuda/warp.cuh"
#include "streamvision/functional/perspective.hpp"

namespace streamvision::cuda {

namespace {

void perspective(const Tensor& input, const Tensor& output, const std::array<double, 8>& coefficients, InterpolationMode mode,
                 const Fill& fill, const Stream& stream) {
  detail::GeometryDTypes::dispatch(input.dtype(), "perspective", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto grid = kernels::make_perspective_grid<T>(coefficients.data(), static_cast<int>(input.size(-1)),
                                                        static_cast<int>(input.size(-2)));
    launch_warp<T>(input, output, grid, mode, fill, stream, "perspective");
  });
}

SV_REGISTER_KERNEL(ops::Perspective, DeviceType::CUDA, &perspective, detail::GeometryDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
