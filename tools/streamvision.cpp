// streamvision: runs a preprocessing pipeline over a folder of PNG images, on the GPU when there
// is one (else the CPU), and writes the results: .npy for float results (model inputs), .png for
// uint8 results. --demo writes one PNG per op instead, to look at.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pipeline.hpp"
#include "png.hpp"

namespace fs = std::filesystem;
namespace sv = streamvision;

namespace {

const char* kDefaultPipeline = "resize=256,center_crop=224,horizontal_flip,to_dtype=float32,normalize=imagenet";

void usage(FILE* out) {
  std::fprintf(out,
               "usage: streamvision [options] INPUT OUTPUT_DIR\n"
               "  INPUT                a PNG file or a folder of PNG files\n"
               "  --device D           auto (default: the GPU when there is one), cpu, cuda or cuda:N\n"
               "  --pipeline SPEC      comma-separated steps (default: %s)\n"
               "  --demo               apply each op on its own and write one PNG per op\n"
               "  --repeat N           run the pipeline N times per image (timing)\n"
               "  --version            print streamvision's version and exit\n"
               "steps:\n%s",
               kDefaultPipeline, svtool::pipeline_help().c_str());
}

// An HWC image as a channels_last [C, H, W] tensor view (no copy).
sv::Tensor as_tensor(svtool::Image& image) {
  const std::int64_t c = image.channels, h = image.height, w = image.width;
  return sv::from_blob(image.hwc.data(), {c, h, w}, {1, w * c, c}, sv::DType::UInt8, sv::Device::cpu(), nullptr);
}

svtool::Image to_image(const sv::Tensor& t) {
  const sv::Tensor hwc = sv::to_channels_last(t);  // [C, H, W] with C innermost = HWC bytes
  svtool::Image image;
  image.channels = static_cast<int>(t.size(0));
  image.height = static_cast<int>(t.size(1));
  image.width = static_cast<int>(t.size(2));
  const auto* p = static_cast<const std::uint8_t*>(hwc.data());
  image.hwc.assign(p, p + hwc.numel());
  return image;
}

void write_npy(const std::string& path, const sv::Tensor& t) {
  const sv::Tensor c = sv::contiguous(sv::functional::to_dtype(t, sv::DType::Float32));
  std::string shape = "(";
  for (int d = 0; d < c.dim(); ++d) shape += std::to_string(c.size(d)) + (c.dim() == 1 || d + 1 < c.dim() ? ", " : "");
  shape += ")";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  const char magic[] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.write(magic, 8);
  const std::uint16_t len = static_cast<std::uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&len), 2);
  out << header;
  out.write(static_cast<const char*>(c.data()), static_cast<std::streamsize>(c.nbytes()));
}

void save(const fs::path& out_dir, const std::string& stem, const sv::Tensor& result_any_device) {
  const sv::Tensor result = sv::to_device(result_any_device, sv::Device::cpu());
  if (result.dtype() == sv::DType::UInt8 && result.dim() == 3 && (result.size(0) == 1 || result.size(0) == 3)) {
    svtool::write_png((out_dir / (stem + ".png")).string(), to_image(result));
  } else {
    write_npy((out_dir / (stem + ".npy")).string(), result);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string device_arg = "auto", spec = kDefaultPipeline;
  bool demo = false;
  int repeat = 1;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--device" || a == "--pipeline" || a == "--repeat") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--device") device_arg = v;
      else if (a == "--pipeline") spec = v;
      else repeat = std::max(1, std::atoi(v.c_str()));
    } else if (a == "--demo") {
      demo = true;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else if (a == "--version") {
      std::printf("streamvision %s\n", sv::version());
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "streamvision: unknown option %s\n", a.c_str());
      usage(stderr);
      return 2;
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2) {
    usage(stderr);
    return 2;
  }
  try {
    sv::Device device = sv::Device::cpu();
    if (device_arg == "auto") {
      if (sv::cuda_is_available()) device = sv::Device::cuda(0);
    } else if (device_arg.rfind("cuda", 0) == 0) {
      device = sv::Device::cuda(device_arg.size() > 5 ? std::stoi(device_arg.substr(5)) : 0);
    } else if (device_arg != "cpu") {
      throw std::invalid_argument("--device must be auto, cpu, cuda or cuda:N, got " + device_arg);
    }
    const std::vector<svtool::Step> steps = demo ? svtool::demo_steps() : svtool::parse_pipeline(spec);

    std::vector<fs::path> inputs;
    const fs::path input(positional[0]);
    if (fs::is_directory(input)) {
      for (const auto& e : fs::directory_iterator(input)) {
        if (e.path().extension() == ".png" || e.path().extension() == ".PNG") inputs.push_back(e.path());
      }
      std::sort(inputs.begin(), inputs.end());
    } else {
      inputs.push_back(input);
    }
    if (inputs.empty()) throw std::invalid_argument("no PNG files in " + input.string());
    const fs::path out_dir(positional[1]);
    fs::create_directories(out_dir);

    // All work on one stream of ours; the guard makes it current for every op.
    const sv::Stream stream = device.is_cuda() ? sv::Stream::create(device.index) : sv::Stream();
    std::optional<sv::StreamGuard> guard;
    if (device.is_cuda()) guard.emplace(stream);

    std::printf("streamvision: %zu image(s) on %s, %s: %s\n", inputs.size(), device.str().c_str(),
                demo ? "demo" : "pipeline", demo ? "each op alone" : spec.c_str());
    double total_ms = 0;
    std::size_t processed = 0;
    for (const fs::path& path : inputs) {
      svtool::Image image = svtool::read_png(path.string());
      const sv::Tensor host = as_tensor(image);
      const sv::Tensor x = sv::to_device(host, device);
      const std::string stem = path.stem().string();
      if (demo) {
        for (const auto& step : steps) {
          const sv::Tensor y = step.run(x, stream);
          std::string name = step.spec;
          for (char& ch : name) {
            if (ch == '=' || ch == ':' || ch == '.') ch = '_';
          }
          save(out_dir, stem + "_" + name, y);
        }
        ++processed;
        continue;
      }
      sv::Tensor y;
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < repeat; ++r) {
        y = x;
        for (const auto& step : steps) y = step.run(y, stream);
      }
      if (device.is_cuda()) stream.synchronize();
      total_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      processed += static_cast<std::size_t>(repeat);
      save(out_dir, stem, y);
    }
    if (demo) {
      std::printf("wrote %zu x %zu PNG files to %s\n", processed, steps.size(), out_dir.string().c_str());
    } else {
      std::printf("processed %zu image(s) in %.2f ms of pipeline time (%.0f images/s); results in %s\n", processed,
                  total_ms, processed / (total_ms / 1000.0), out_dir.string().c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamvision: %s\n", e.what());
    return 1;
  }
}
