// CPU kernel of perspective: the perspective grid over cpu/warp.hpp.
#include "cpu/warp.hpp"
#include "streamvision/functional/perspective.hpp"

namespace streamvision::cpu {

namespace {

void perspective(const Tensor& input, const Tensor& output, const std::array<double, 8>& coefficients,
                 InterpolationMode mode, const Fill& fill, const Stream&) {
  dispatch_warp("perspective", input, output, mode, fill, [&](auto tag, const kernels::ImageBatch& in, const kernels::ImageBatch&) {
    return kernels::make_perspective_grid<typename decltype(tag)::type>(coefficients.data(), static_cast<int>(in.w),
                                                                        static_cast<int>(in.h));
  });
}

SV_REGISTER_KERNEL(ops::Perspective, DeviceType::CPU, &perspective, detail::GeometryDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
