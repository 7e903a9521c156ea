// CPU kernel of elastic: the identity grid plus the displacement (read per pixel) over
// cpu/warp.hpp.
#include "cpu/warp.hpp"
#include "streamvision/functional/elastic.hpp"

namespace streamvision::cpu {

namespace {

void elastic(const Tensor& input, const Tensor& output, const Tensor& displacement, InterpolationMode mode,
             const Fill& fill, const Stream&) {
  dispatch_warp("elastic", input, output, mode, fill, [&](auto tag, const kernels::ImageBatch& in, const kernels::ImageBatch&) {
    return kernels::make_elastic_grid<typename decltype(tag)::type>(static_cast<int>(in.w), static_cast<int>(in.h),
                                                                    displacement.data(), displacement.stride(1),
                                                                    displacement.stride(2), displacement.stride(3));
  });
}

SV_REGISTER_KERNEL(ops::Elastic, DeviceType::CPU, &elastic, detail::GeometryDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
