// to_dtype on CUDA: dispatch on the input dtype; the instantiations live in to_dtype_from_*.cu.
#include "cuda/to_dtype.cuh"
#include "streamvision/functional/to_dtype.hpp"

namespace streamvision::cuda {

extern template void to_dtype_from<bool>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<std::uint8_t>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<std::int8_t>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<std::uint16_t>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<std::int16_t>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<std::int32_t>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<std::int64_t>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<Half>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<BFloat16>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<float>(const Tensor&, const Tensor&, bool, const Stream&);
extern template void to_dtype_from<double>(const Tensor&, const Tensor&, bool, const Stream&);

namespace {

void to_dtype(const Tensor& input, const Tensor& output, bool scale, const Stream& stream) {
  detail::AllDTypes::dispatch(input.dtype(), "to_dtype", [&](auto tag) {
    to_dtype_from<typename decltype(tag)::type>(input, output, scale, stream);
  });
}

SV_REGISTER_KERNEL(ops::ToDtype, DeviceType::CUDA, &to_dtype, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
