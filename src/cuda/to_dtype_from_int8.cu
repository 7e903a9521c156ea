// to_dtype on CUDA for input types: bool std::uint8_t std::int8_t.
#include "cuda/to_dtype.cuh"

namespace streamvision::cuda {
template void to_dtype_from<bool>(const Tensor&, const Tensor&, bool, const Stream&);
template void to_dtype_from<std::uint8_t>(const Tensor&, const Tensor&, bool, const Stream&);
template void to_dtype_from<std::int8_t>(const Tensor&, const Tensor&, bool, const Stream&);
}  // namespace streamvision::cuda
