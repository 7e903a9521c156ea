// CPU kernel of erase: a copy of the image unless in place, then the broadcast value copied into
// the window.
#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "streamvision/functional/erase.hpp"

namespace streamvision::cpu {

namespace {

void erase(const Tensor& input, const Tensor& output, const Tensor& value, std::int64_t top, std::int64_t left,
           const Stream&) {
  if (output.data() != input.data()) copy_view(detail::strided_view(input), detail::strided_view(output));
  if (value.numel() == 0) return;
  const Tensor window = output.slice(-2, top, top + value.size(-2)).slice(-1, left, left + value.size(-1));
  copy_view(detail::strided_view(value), detail::strided_view(window));
}

SV_REGISTER_KERNEL(ops::Erase, DeviceType::CPU, &erase, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
