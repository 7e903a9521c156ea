// to_dtype on CUDA for input types: std::int32_t std::int64_t.
#include "cuda/to_dtype.cuh"

namespace streamvision::cuda {
template void to_dtype_from<std::int32_t>(const Tensor&, const Tensor&, bool, const Stream&);
template void to_dtype_from<std::int64_t>(const Tensor&, const Tensor&, bool, const Stream&);
}  // namespace streamvision::cuda
