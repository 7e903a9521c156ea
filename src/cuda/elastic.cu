// CUDA elastic: the identity grid plus the displacement (read per pixel) over warp.cuh.
#include "cuda/warp.cuh"
#include "streamvision/functional/elastic.hpp"

namespace streamvision::cuda {

namespace {

void elastic(const Tensor& input, const Tensor& output, const Tensor& displacement, InterpolationMode mode, const Fill& fill,
             const Stream& stream) {
  detail::GeometryDTypes::dispatch(input.dtype(), "elastic", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto grid = kernels::make_elastic_grid<T>(static_cast<int>(input.size(-1)), static_cast<int>(input.size(-2)),
                                                    displacement.data(), displacement.stride(1), displacement.stride(2),
                                                    displacement.stride(3));
    launch_warp<T, /*MayStage=*/false>(input, output, grid, mode, fill, stream, "elastic");
  });
}

SV_REGISTER_KERNEL(ops::Elastic, DeviceType::CUDA, &elastic, detail::GeometryDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
