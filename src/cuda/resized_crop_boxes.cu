// CUDA resized_crop_boxes: one thread per image applies kernels::resized_crop_box to its row of
// uniform numbers. The images' sizes travel in the kernel's arguments (kMaxImages per launch), so
// nothing is copied from the host and a graph capture records the launches alone.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/launch.hpp"
#include "kernels/resized_crop_boxes.hpp"
#include "streamvision/functional/batch.hpp"

namespace streamvision::cuda {

namespace {

constexpr int kMaxImages = 1024;  // 16 KB of sizes: within CUDA 12.1+'s 32 KB of kernel parameters

struct SizeTable {
  std::int64_t hw[kMaxImages][2];
};

__global__ void boxes_kernel(const SizeTable sizes, const float* random, std::int64_t columns, int count,
                             const kernels::CropBoxRule rule, std::int64_t* boxes) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= count) return;
  kernels::resized_crop_box(rule, random + i * columns, sizes.hw[i][0], sizes.hw[i][1], boxes + 4 * i);
}

void resized_crop_boxes(const Tensor& random, const std::vector<std::array<std::int64_t, 2>>& sizes,
                        const std::array<double, 2>& scale, const std::array<double, 2>& ratio, const Tensor& boxes,
                        const Stream& stream) {
  const std::int64_t columns = random.size(1);
  const kernels::CropBoxRule rule =
      kernels::make_crop_box_rule(static_cast<int>((columns - 2) / 2), scale[0], scale[1], ratio[0], ratio[1]);
  const auto total = static_cast<std::int64_t>(sizes.size());
  LaunchScope scope(stream, "resized_crop_boxes");
  for (std::int64_t first = 0; first < total; first += kMaxImages) {
    const int count = static_cast<int>(std::min<std::int64_t>(kMaxImages, total - first));
    SizeTable table;
    for (int i = 0; i < count; ++i) {
      table.hw[i][0] = sizes[static_cast<std::size_t>(first + i)][0];
      table.hw[i][1] = sizes[static_cast<std::size_t>(first + i)][1];
    }
    boxes_kernel<<<blocks_for(count, 128), 128, 0, scope.handle()>>>(
        table, static_cast<const float*>(random.data()) + first * columns, columns, count, rule,
        static_cast<std::int64_t*>(boxes.data()) + 4 * first);
    scope.check_launch();
  }
}

SV_REGISTER_KERNEL(ops::ResizedCropBoxes, DeviceType::CUDA, &resized_crop_boxes, (DTypeSet{DType::Float32}));

}  // namespace

}  // namespace streamvision::cuda
