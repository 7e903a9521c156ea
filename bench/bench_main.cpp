// streamvision_bench [filter] [--json FILE]: runs every registered case (or those whose group or
// name contains `filter`) and prints the table. See bench.hpp.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>

#include "bench.hpp"

namespace svbench {

namespace {

std::vector<std::pair<std::string, CaseFactory>>& groups() {
  static std::vector<std::pair<std::string, CaseFactory>> g;
  return g;
}

constexpr int kWarmup = 5;
constexpr int kRuns = 30;

double median_ms(const std::function<void(const Stream&)>& run, const Stream& stream) {
  for (int i = 0; i < kWarmup; ++i) run(stream);
  std::vector<Event> start(kRuns), stop(kRuns);
  for (int i = 0; i < kRuns; ++i) {
    start[i] = Event::create(stream.device_index(), true);
    stop[i] = Event::create(stream.device_index(), true);
  }
  for (int i = 0; i < kRuns; ++i) {
    start[i].record(stream);
    run(stream);
    stop[i].record(stream);
  }
  stream.synchronize();
  std::vector<double> ms(kRuns);
  for (int i = 0; i < kRuns; ++i) ms[i] = start[i].elapsed_ms(stop[i]);
  std::sort(ms.begin(), ms.end());
  return ms[kRuns / 2];
}

}  // namespace

int register_cases(const std::string& group, CaseFactory factory) {
  groups().emplace_back(group, std::move(factory));
  return static_cast<int>(groups().size());
}

std::string shape_str(const Dims& shape) {
  std::string s;
  for (int i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

Tensor random_image(const Dims& shape, DType dtype, MemoryFormat format, const Stream& stream) {
  // Random bytes on the host, converted on the device: cheap, and never zeros.
  Tensor bytes_cpu = empty(shape, DType::UInt8, Device::cpu(), format);
  std::mt19937 rng(42);
  auto* p = static_cast<std::uint8_t*>(bytes_cpu.data());
  for (std::int64_t i = 0; i < bytes_cpu.numel(); ++i) p[i] = static_cast<std::uint8_t>(rng() >> 24);
  const Tensor bytes = to_device(bytes_cpu, Device::cuda(stream.device_index()), stream);
  return dtype == DType::UInt8 ? bytes : functional::to_dtype(bytes, dtype, /*scale=*/true, stream);
}

}  // namespace svbench

int main(int argc, char** argv) {
  using namespace svbench;
  std::string filter, json_path;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_path = argv[++i];
    else filter = argv[i];
  }
  if (!cuda_is_available()) {
    std::printf("no CUDA device: nothing to benchmark\n");
    return 0;
  }
  const Stream stream = Stream::create(0);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);

  // The ceiling: a large device-to-device copy, counting bytes read plus bytes written.
  const std::size_t copy_bytes = std::size_t{1} << 31;
  void *a = nullptr, *b = nullptr;
  cudaMalloc(&a, copy_bytes);
  cudaMalloc(&b, copy_bytes);
  cudaMemset(a, 1, copy_bytes);
  const double copy_ms = median_ms(
      [&](const Stream& s) { cudaMemcpyAsync(b, a, copy_bytes, cudaMemcpyDeviceToDevice, s.handle()); }, stream);
  cudaFree(a);
  cudaFree(b);
  const double copy_gbs = 2.0 * copy_bytes / copy_ms / 1e6;

  std::printf("device: %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
  std::printf("device-to-device copy (cudaMemcpyAsync, 2 GiB): %.3f ms, %.0f GB/s (read + write)\n\n", copy_ms, copy_gbs);
  std::printf("%-26s %-40s %10s %10s %8s\n", "op", "input", "ms", "GB/s", "of copy");
  std::ofstream json;
  if (!json_path.empty()) {
    json.open(json_path);
    json << "{\"device\": \"" << prop.name << "\", \"copy_gbs\": " << copy_gbs << ", \"cases\": [\n";
  }
  bool first = true;
  for (auto& [group, factory] : groups()) {
    std::vector<Case> cases = factory(stream);
    for (Case& c : cases) {
      if (!filter.empty() && group.find(filter) == std::string::npos && c.name.find(filter) == std::string::npos) continue;
      const double ms = median_ms(c.run, stream);
      const double gbs = c.bytes / ms / 1e6;
      std::printf("%-26s %-40s %10.4f %10.0f %7.1f%%\n", c.name.c_str(), c.detail.c_str(), ms, gbs, 100.0 * gbs / copy_gbs);
      std::fflush(stdout);
      if (json.is_open()) {
        json << (first ? "" : ",\n") << "  {\"group\": \"" << group << "\", \"op\": \"" << c.name << "\", \"input\": \""
             << c.detail << "\", \"ms\": " << ms << ", \"gbs\": " << gbs << ", \"of_copy\": " << gbs / copy_gbs << "}";
        first = false;
      }
    }
  }
  if (json.is_open()) json << "\n]}\n";

  // Host time per call of the C++ API on a small image (no Python): batches small enough never
  // to fill the launch queue, median over batches.
  {
    const Tensor small = random_image({3, 224, 224}, DType::UInt8, MemoryFormat::Contiguous, stream);
    const Tensor small_f = functional::to_dtype(small, DType::Float32, true, stream);
    auto host_us = [&](auto&& fn) {
      for (int i = 0; i < 100; ++i) fn();
      stream.synchronize();
      std::vector<double> us;
      for (int rep = 0; rep < 15; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 400; ++i) fn();
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 400);
        stream.synchronize();
      }
      std::sort(us.begin(), us.end());
      return us[us.size() / 2];
    };
    const std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
    std::printf("\nC++ host time per call, 3x224x224: horizontal_flip uint8 %.2f us, normalize float32 %.2f us\n",
                host_us([&] { functional::horizontal_flip(small, stream); }),
                host_us([&] { functional::normalize(small_f, mean, std, false, stream); }));
    // Where that time goes: the output allocation (pool alloc + stream-ordered free) and the
    // driver's floor for one asynchronous operation on the stream (a 1-byte memset).
    std::printf("  of which: empty_like (stream-ordered alloc + free) %.2f us, cudaMemsetAsync 1 byte %.2f us\n",
                host_us([&] { (void)empty_like(small, std::nullopt, stream); }),
                host_us([&] { (void)cudaMemsetAsync(small.data(), 0, 1, stream.handle()); }));
  }
  return 0;
}
