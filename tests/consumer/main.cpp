// Flips, normalizes and resizes a small image through the installed library and checks the
// values; checks that the headers, the library and the file VERSION agree on the version.
#include <cstdio>
#include <cstring>
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
  // Braced sizes: {h, w} and {shorter edge}.
  const sv::Tensor r = sv::functional::resize(out, {4, 6}, sv::InterpolationMode::Nearest);
  const sv::Tensor e = sv::functional::resize(out, {4}, sv::InterpolationMode::Nearest);
  if (r.size(1) != 4 || r.size(2) != 6 || e.size(1) != 4 || e.size(2) != 6) {
    std::printf("consumer: resize gave the wrong size\n");
    return 1;
  }
  if (std::strcmp(STREAMVISION_VERSION, SV_EXPECTED_VERSION) != 0 || std::strcmp(sv::version(), SV_EXPECTED_VERSION) != 0) {
    std::printf("consumer: versions differ: header %s, library %s, VERSION %s\n", STREAMVISION_VERSION, sv::version(),
                SV_EXPECTED_VERSION);
    return 1;
  }
  std::printf("consumer: streamvision %s found through find_package; built with CUDA: %s; ops OK\n",
              sv::version(), sv::built_with_cuda() ? "yes" : "no");
  return 0;
}
