// CUDA elastic: the identity grid plus the displacement (read per pixel) over warp.cuh.
#include "cuda/warp.cuh"
#include "streamvision/functional/elastic.hpp"

namespace streamvision::cuda {

namespace {

void elastic(const Tensor& input, const Tensor& output, const Tensor& displacement, InterpolationMode mode, const Fill& fill,
             const Stream& stream) {
  dispatch_warp_dtype(input.dtype(), "elastic", [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto grid = kernels::make_elastic_grid<T>(static_cast<int>(input.size(-1)), static_cast<int>(input.size(-2)));
    using D = typename kernels::ElasticGrid<T>::D;
    grid.displacement = static_cast<const D*>(displacement.data());
    grid.d_sy = displacement.stride(1);
    grid.d_sx = displacement.stride(2);
    grid.d_sc = displacement.stride(3);
    launch_warp<T>(input, output, grid, mode, fill, stream, "elastic");
  });
}

SV_REGISTER_KERNEL(ops::Elastic, DeviceType::CUDA, &elastic, detail::kGeometryDTypes);

}  // namespace

}  // namespace streamvision::cuda
