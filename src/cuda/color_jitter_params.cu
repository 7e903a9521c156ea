// CUDA color_jitter_params: one thread per image applies kernels::color_jitter_draw to its row of
// uniform numbers; the ranges travel in the kernel's arguments.
#include <cuda_runtime.h>

#include "cuda/launch.hpp"
#include "kernels/color_jitter_params.hpp"
#include "streamvision/functional/batch.hpp"

namespace streamvision::cuda {

namespace {

__global__ void jitter_params_kernel(const kernels::JitterDraw draw, const float* random, std::int64_t n, double* factors,
                                     std::int64_t* order) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  kernels::color_jitter_draw(draw, random + 8 * i, factors + 4 * i, order + 4 * i);
}

void color_jitter_params(const Tensor& random, const std::array<std::optional<std::array<double, 2>>, 4>& ranges,
                         const Tensor& factors, const Tensor& order, const Stream& stream) {
  const std::int64_t n = random.size(0);
  LaunchScope scope(stream, "color_jitter_params");
  jitter_params_kernel<<<blocks_for(n, 128), 128, 0, scope.handle()>>>(
      kernels::make_jitter_draw(ranges), static_cast<const float*>(random.data()), n, static_cast<double*>(factors.data()),
      static_cast<std::int64_t*>(order.data()));
  scope.check_launch();
}

SV_REGISTER_KERNEL(ops::ColorJitterParams, DeviceType::CUDA, &color_jitter_params, (DTypeSet{DType::Float32}));

}  // namespace

}  // namespace streamvision::cuda
