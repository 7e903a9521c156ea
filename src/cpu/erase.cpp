// CPU kernels of erase (a copy of the image unless in place, then the broadcast value copied into
// the window) and permute_channels: strided copies of the elementwise engine on carrier types.
#include "core/dtype_dispatch.hpp"
#include "cpu/color_pixels.hpp"
#include "kernels/copy.hpp"
#include "streamvision/functional/augment.hpp"
#include "streamvision/functional/color.hpp"

namespace streamvision::cpu {

namespace {

void copy_tensor(const Tensor& src, const Tensor& dst) {
  detail::dispatch_itemsize(src.itemsize(),
                           [&](auto tag) { run_map<typename decltype(tag)::type>(src, dst, kernels::CopyOp{}); });
}

void erase(const Tensor& input, const Tensor& output, const Tensor& value, std::int64_t top, std::int64_t left,
           const Stream&) {
  if (output.data() != input.data()) copy_tensor(input, output);
  if (value.numel() == 0) return;
  const Tensor window = output.slice(-2, top, top + value.size(-2)).slice(-1, left, left + value.size(-1));
  copy_tensor(value, window);
}

void permute_channels(const Tensor& input, const Tensor& output, const std::vector<std::int64_t>& permutation,
                      const Stream&) {
  for (std::size_t k = 0; k < permutation.size(); ++k) {
    copy_tensor(input.select(-3, permutation[k]), output.select(-3, static_cast<std::int64_t>(k)));
  }
}

SV_REGISTER_KERNEL(ops::Erase, DeviceType::CPU, &erase, DTypeSet::all());
SV_REGISTER_KERNEL(ops::PermuteChannels, DeviceType::CPU, &permute_channels, DTypeSet::all());

}  // namespace

}  // namespace streamvision::cpu
