// CUDA kernels of erase and permute_channels: strided copies through the elementwise engine on
// carrier types (erase: the image unless in place, then the broadcast value into the window).
#include "core/dtype_dispatch.hpp"
#include "cuda/color_pixels.cuh"
#include "kernels/copy.hpp"
#include "streamvision/functional/augment.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cuda {

namespace {

void copy_tensor(const Tensor& src, const Tensor& dst, const Stream& stream, const char* name) {
  detail::dispatch_itemsize(src.itemsize(), [&](auto tag) {
    launch_map<typename decltype(tag)::type>(src, dst, kernels::CopyOp{}, stream, name);
  });
}

void erase(const Tensor& input, const Tensor& output, const Tensor& value, std::int64_t top, std::int64_t left,
           const Stream& stream) {
  if (output.data() != input.data()) copy_tensor(input, output, stream, "erase");
  if (value.numel() == 0) return;
  const Tensor window = output.slice(-2, top, top + value.size(-2)).slice(-1, left, left + value.size(-1));
  copy_tensor(value, window, stream, "erase");
}

void permute_channels(const Tensor& input, const Tensor& output, const std::vector<std::int64_t>& permutation,
                      const Stream& stream) {
  for (std::size_t k = 0; k < permutation.size(); ++k) {
    copy_tensor(input.select(-3, permutation[k]), output.select(-3, static_cast<std::int64_t>(k)), stream,
                "permute_channels");
  }
}

SV_REGISTER_KERNEL(ops::Erase, DeviceType::CUDA, &erase, DTypeSet::all());
SV_REGISTER_KERNEL(ops::PermuteChannels, DeviceType::CUDA, &permute_channels, DTypeSet::all());

}  // namespace

}  // namespace streamvision::cuda
