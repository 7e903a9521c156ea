// CUDA's elementwise row path (cuda/elementwise.cuh: plans of rank 1 or 2 with a linear output
// and input rows of stride +1 or -1, each row a whole number of 16-byte output chunks) equals
// the CPU bit for bit, and so do the neighbours that must take the general kernel instead: rows
// that are not a whole number of chunks, inputs off the vector grid, windows whose rows are
// longer than the walk. Skipped without a GPU.
#include "test_utils.hpp"

namespace svt {
namespace {

// Shapes whose last dim is a multiple of 16 (rows of whole chunks for every element size) and
// neighbours that are not.
const Dims kShapes[] = {{2, 3, 5, 64}, {1, 3, 2, 16}, {3, 4, 48}, {2, 3, 7, 32}, {2, 1, 3, 80}, {2, 3, 5, 72}, {1, 2, 4, 17}};

// A view of `src` on the GPU whose rows start `offset` elements into rows `extra` elements longer:
// offset 0 or 16 keeps the vectors aligned (row stride != row length: the row path over a
// window), offset 1 does not (the general kernel).
Tensor window_of(const Tensor& src, std::int64_t offset, std::int64_t extra, std::uint64_t seed) {
  Dims big(src.shape());
  big[src.dim() - 1] += extra;
  Tensor buffer = random_cpu(big, src.dtype(), seed);
  Tensor view = buffer.slice(src.dim() - 1, offset, offset + src.shape()[src.dim() - 1]);
  for_each_index(src.shape(), [&](const std::int64_t* idx) { store_bits(view, idx, load_bits(src, idx)); });
  return to_device(buffer, kGpu).slice(src.dim() - 1, offset, offset + src.shape()[src.dim() - 1]);
}

template <class Fn>
void expect_cuda_equals_cpu(const Tensor& src, const Tensor& gpu_in, Fn&& op) {
  EXPECT_TRUE(bitwise_equal(op(src), op(gpu_in)));
  EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
}

TEST(ElementwiseRows, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 7000;
  for (const Dims& shape : kShapes) {
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (const auto& [offset, extra] : {std::pair<std::int64_t, std::int64_t>{0, 0}, {16, 32}, {1, 20}, {0, 16}}) {
        SCOPED_TRACE(describe(shape, dtype, Layout::Contiguous) + " window offset " + std::to_string(offset) + " extra " +
                     std::to_string(extra));
        const Tensor gpu_in = extra == 0 ? to_device(src, kGpu) : window_of(src, offset, extra, seed++);
        expect_cuda_equals_cpu(src, gpu_in, [](const Tensor& x) { return functional::horizontal_flip(x); });
        expect_cuda_equals_cpu(src, gpu_in, [](const Tensor& x) { return functional::vertical_flip(x); });
        expect_cuda_equals_cpu(src, gpu_in, [](const Tensor& x) { return streamvision::contiguous(x); });
        const bool scale = dtype != DType::Bool;  // bool has no value bits to scale
        for (DType to : {DType::Float32, DType::UInt8, DType::Float16}) {
          expect_cuda_equals_cpu(src, gpu_in, [to, scale](const Tensor& x) { return functional::to_dtype(x, to, scale); });
        }
        if (dtype == DType::UInt8 || dtype == DType::Float32) {
          expect_cuda_equals_cpu(src, gpu_in, [](const Tensor& x) { return functional::invert(x); });
          const std::int64_t channels = shape[shape.size() - 3];
          if (channels == 1 || channels == 3) {
            expect_cuda_equals_cpu(src, gpu_in, [](const Tensor& x) { return functional::adjust_brightness(x, 1.3); });
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace svt
