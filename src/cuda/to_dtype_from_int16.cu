// to_dtype on CUDA for input types: std::uint16_t std::int16_t.
#include "cuda/to_dtype.cuh"

namespace streamvision::cuda {
template void to_dtype_from<std::uint16_t>(const Tensor&, const Tensor&, bool, const Stream&);
template void to_dtype_from<std::int16_t>(const Tensor&, const Tensor&, bool, const Stream&);
}  // namespace streamvision::cuda
