// Flips and normalizes a small image through the installed library and checks the values.
#include <cstdio>
#include <vector>

#include <streamvision/streamvision.hpp>

int main() {
  namespace sv = streamvision;
  std::vector<float> pixels = {0.0f, 0.25f, 0.5f, 1.0f, 0.75f, 0.5f};  // [C=1, H=2, W=3]
  const sv::Tensor image = sv::from_blob(pixels.data(), {1, 2, 3}, {6, 3, 1}, sv::DType::Float32, sv::Device::cpu(), nullptr);
  const sv::Tensor flipped = sv::functional::horizontal_flip(image);
  const sv::Tensor out = sv::functional::normalize(flipped, {0.5}, {0.5});
  const float* p = out.data_as<float>();
  const float expected[] = {0.0f, -0.5f, -1.0f, 0.0f, 0.5f, 1.0f};
  for (int i = 0; i < 6; ++i) {
    if (p[i] != expected[i]) {
      std::printf("consumer: element %d is %f, expected %f\n", i, p[i], expected[i]);
      return 1;
    }
  }
  std::printf("consumer: streamvision found through find_package; built with CUDA: %s; ops OK\n",
              sv::built_with_cuda() ? "yes" : "no");
  return 0;
}
