// CPU kernels of affine (the affine grid over cpu/warp.hpp) and rotate's right angles (one
// strided copy of a rotated view).
#include "cpu/elementwise.hpp"
#include "cpu/warp.hpp"
#include "streamvision/functional/affine.hpp"

namespace streamvision::cpu {

namespace {

void affine(const Tensor& input, const Tensor& output, const std::array<double, 6>& matrix, InterpolationMode mode,
            const Fill& fill, const Stream&) {
  dispatch_warp("affine", input, output, mode, fill, [&](auto tag, const kernels::ImageBatch& in, const kernels::ImageBatch& out) {
    return kernels::make_affine_grid<typename decltype(tag)::type>(matrix.data(), static_cast<int>(in.w), static_cast<int>(in.h),
                                                                   static_cast<int>(out.w), static_cast<int>(out.h));
  });
}

void rotate(const Tensor& input, const Tensor& output, int quarter_turns, const Stream&) {
  copy_view(kernels::quarter_turned(detail::strided_view(input), quarter_turns), detail::strided_view(output));
}

SV_REGISTER_KERNEL(ops::Affine, DeviceType::CPU, &affine, detail::GeometryDTypes::set);
SV_REGISTER_KERNEL(ops::Rotate, DeviceType::CPU, &rotate, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
