// CPU kernel of erase: a copy of the image (unless in place), then the broadcast value copied
// into the window. Both are strided copies of the elementwise engine on carrier types.
#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "kernels/copy.hpp"
#include "streamvision/functional/augment.hpp"

namespace streamvision::cpu {

namespace {

void copy_tensor(const Tensor& src, const Tensor& dst) {
  const kernels::ElementwisePlan plan =
      kernels::plan_elementwise(kernels::StridedView::of(src), kernels::StridedView::of(dst));
  detail::dispatch_itemsize(src.itemsize(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_elementwise(plan, static_cast<const T*>(src.data()), static_cast<T*>(dst.data()), kernels::CopyOp{});
  });
}

void erase(const Tensor& input, const Tensor& output, const Tensor& value, std::int64_t top, std::int64_t left,
           const Stream&) {
  if (output.data() != input.data()) copy_tensor(input, output);
  if (value.numel() == 0) return;
  const Tensor window = output.slice(-2, top, top + value.size(-2)).slice(-1, left, left + value.size(-1));
  copy_tensor(value, window);
}

SV_REGISTER_KERNEL(ops::Erase, DeviceType::CPU, &erase, DTypeSet::all());

}  // namespace

}  // namespace streamvision::cpu
