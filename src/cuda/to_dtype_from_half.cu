// to_dtype on CUDA for input types: Half BFloat16.
#include "cuda/to_dtype.cuh"

namespace streamvision::cuda {
template void to_dtype_from<Half>(const Tensor&, const Tensor&, bool, const Stream&);
template void to_dtype_from<BFloat16>(const Tensor&, const Tensor&, bool, const Stream&);
}  // namespace streamvision::cuda
