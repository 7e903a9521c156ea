// to_dtype on CUDA for input types: float double.
#include "cuda/to_dtype.cuh"

namespace streamvision::cuda {
template void to_dtype_from<float>(const Tensor&, const Tensor&, bool, const Stream&);
template void to_dtype_from<double>(const Tensor&, const Tensor&, bool, const Stream&);
}  // namespace streamvision::cuda
