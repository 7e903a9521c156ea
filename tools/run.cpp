#include "run.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include <streamvision/io/image_io.hpp>
#include <streamvision/streamvision.hpp>

#include "contact_sheet.hpp"
#include "inputs.hpp"
#include "outputs.hpp"
#include "pipeline.hpp"
#include "progress.hpp"

namespace svtool {

namespace sv = streamvision;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_signal(int) { g_interrupted = true; }

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

sv::Device parse_device(const std::string& arg) {
  if (arg == "auto") return sv::cuda_is_available() ? sv::Device::cuda(0) : sv::Device::cpu();
  if (arg == "cpu") return sv::Device::cpu();
  int index = -1;
  if (arg == "cuda") index = 0;
  if (arg.rfind("cuda:", 0) == 0) {
    try {
      std::size_t used = 0;
      const int parsed = std::stoi(arg.substr(5), &used);
      if (used == arg.size() - 5 && parsed >= 0) index = parsed;
    } catch (const std::exception&) {
    }
  }
  if (index < 0) throw std::invalid_argument("--device must be auto, cpu, cuda or cuda:N, got '" + arg + "'");
  if (!sv::built_with_cuda()) throw std::invalid_argument("--device " + arg + ": this build has no CUDA engine");
  if (index >= sv::cuda_device_count()) {
    throw std::invalid_argument("--device " + arg + ": there are " + std::to_string(sv::cuda_device_count()) +
                                " CUDA device(s) here");
  }
  return sv::Device::cuda(index);
}

// Fails at start, before any work, when outputs could not be written.
void check_output_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create the output directory '" + dir.string() + "': " + ec.message());
  if (!fs::is_directory(dir)) throw std::runtime_error("the output path '" + dir.string() + "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw std::runtime_error("the output directory '" + dir.string() + "' is not writable");
  }
}

// Temporary files of an earlier, interrupted run (".NAME.tmp-PID-N").
void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos) {
      std::error_code ignore;
      fs::remove(it->path(), ignore);
    }
  }
}

std::optional<fs::path> existing_output(const fs::path& out_dir, const std::string& relative) {
  for (const char* ext : {".npy", ".png", ".jpg"}) {
    const fs::path p = out_dir / (relative + ext);
    if (fs::exists(p)) return p;
  }
  return std::nullopt;
}

struct Decoded {
  bool ready = false;
  sv::Tensor bytes;  // kept for GPU decoding
  sv::Tensor image;  // CPU-decoded uint8 [C, H, W]
  std::string error;
};

struct Stages {
  std::atomic<std::int64_t> read_us{0}, decode_us{0}, compute_us{0}, write_us{0};
  static void add(std::atomic<std::int64_t>& a, Clock::time_point t0) {
    a += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
  }
};

// Reads (and on the CPU path decodes) inputs on `workers` threads, at most `window` images ahead
// of the consumer; the consumer takes them in input order.
class DecodePool {
 public:
  DecodePool(const std::vector<Input>& inputs, int workers, std::size_t window, bool decode, Stages& stages)
      : inputs_(inputs), slots_(inputs.size()), window_(window), decode_(decode), stages_(stages) {
    for (int w = 0; w < workers; ++w) threads_.emplace_back([this] { work(); });
  }
  ~DecodePool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    space_.notify_all();
    for (auto& t : threads_) t.join();
  }
  Decoded take(std::size_t i) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return slots_[i].ready; });
    Decoded d = std::move(slots_[i]);
    slots_[i] = Decoded();
    consumed_ = i + 1;
    space_.notify_all();
    return d;
  }

 private:
  void work() {
    for (;;) {
      const std::size_t i = next_++;
      if (i >= inputs_.size()) return;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        space_.wait(lock, [&] { return stop_ || i < consumed_ + window_; });
        if (stop_) return;
      }
      Decoded d;
      try {
        auto t0 = Clock::now();
        d.bytes = sv::io::read_file(inputs_[i].path.string());
        Stages::add(stages_.read_us, t0);
        if (decode_) {
          t0 = Clock::now();
          d.image = sv::io::decode_image(d.bytes, sv::io::ImageReadMode::RGB, /*apply_exif_orientation=*/true);
          Stages::add(stages_.decode_us, t0);
          d.bytes = sv::Tensor();
        }
      } catch (const std::exception& e) {
        d.error = e.what();
        d.bytes = sv::Tensor();
      }
      d.ready = true;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        slots_[i] = std::move(d);
      }
      ready_.notify_all();
    }
  }

  const std::vector<Input>& inputs_;
  std::vector<Decoded> slots_;
  std::size_t window_;
  bool decode_;
  Stages& stages_;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::atomic<std::size_t> next_{0};
  std::size_t consumed_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Encodes and writes results on its own thread, so the device keeps computing meanwhile.
class Writer {
 public:
  explicit Writer(Stages& stages) : stages_(stages), thread_([this] { work(); }) {}
  ~Writer() { close(); }
  void push(std::size_t index, fs::path path, sv::Tensor result, OutputFormat format) {
    std::unique_lock<std::mutex> lock(mutex_);
    space_.wait(lock, [&] { return queue_.size() < 64; });
    queue_.push_back({index, std::move(path), std::move(result), format});
    ready_.notify_one();
  }
  // Waits for every queued write; returns index -> error message for failed writes.
  std::map<std::size_t, std::string> close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_one();
    if (thread_.joinable()) thread_.join();
    return errors_;
  }

 private:
  struct Job {
    std::size_t index;
    fs::path path;
    sv::Tensor result;
    OutputFormat format;
  };
  void work() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return closed_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
        space_.notify_one();
      }
      const auto t0 = Clock::now();
      try {
        write_atomically(job.path, encode_output(job.result, job.format));
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex_);
        errors_[job.index] = std::string("writing ") + job.path.string() + ": " + e.what();
      }
      Stages::add(stages_.write_us, t0);
    }
  }
  Stages& stages_;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<Job> queue_;
  bool closed_ = false;
  std::map<std::size_t, std::string> errors_;
  std::thread thread_;
};

std::string call_list(const CallLog& log) {
  std::string s = "[";
  for (std::size_t i = 0; i < log.size(); ++i) s += (i ? ", " : "") + log[i];
  return s + "]";
}

}  // namespace

int run(const RunOptions& o) {
  const auto t_start = Clock::now();
  sv::Device device;
  std::vector<Step> steps;
  OutputFormat format;
  InputSet all;
  const fs::path out_dir(o.output_dir);
  try {
    if (o.batch < 1) throw std::invalid_argument("--batch must be at least 1");
    if (o.workers < 0) throw std::invalid_argument("--workers must be 0 (automatic) or more");
    device = parse_device(o.device);
    steps = parse_pipeline(o.pipeline);
    format = parse_output_format(o.format);
    if (o.shard_size < 0) throw std::invalid_argument("--shard-size must be 0 (one file per image) or more");
    if (o.shard_size > 0 && o.resume) throw std::invalid_argument("--resume cannot be combined with --shard-size");
    if (o.shard_size > 0 && format != OutputFormat::Auto && format != OutputFormat::Npy) {
      throw std::invalid_argument("--shard-size writes .npy shards: use --format npy");
    }
    all = collect_inputs(o.inputs);
    if (all.items.empty()) throw std::invalid_argument("no JPEG or PNG files found in the inputs");
    check_output_dir(out_dir);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamvision run: %s\n", e.what());
    return 2;
  }
  remove_stale_temporaries(out_dir);

  // --resume: inputs whose output exists are done. Random parameters depend on the index in the
  // full input list, so resumed samples get the parameters a full run would give them.
  std::vector<std::size_t> todo;
  std::size_t already = 0;
  for (std::size_t i = 0; i < all.items.size(); ++i) {
    if (o.resume && existing_output(out_dir, all.items[i].relative)) {
      ++already;
    } else {
      todo.push_back(i);
    }
  }
  std::vector<Input> inputs;
  for (const std::size_t i : todo) inputs.push_back(all.items[i]);

  const bool gpu_decode = device.is_cuda() && sv::io::gpu_decoder_available();
  const int workers = o.workers > 0 ? o.workers : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 8);
  const sv::Stream stream = device.is_cuda() ? sv::Stream::create(device.index) : sv::Stream();
  std::optional<sv::StreamGuard> guard;
  if (device.is_cuda()) guard.emplace(stream);

  std::fprintf(stderr, "streamvision run: %zu input(s)%s on %s (%s decode, %d worker(s), batch %d), pipeline: %s\n",
               inputs.size(), already ? (" (" + std::to_string(already) + " already done)").c_str() : "",
               device.str().c_str(), gpu_decode ? "GPU" : "CPU", workers, o.batch, o.pipeline.c_str());
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  Stages stages;
  std::map<std::size_t, std::string> failures;  // position in `inputs` -> reason
  std::vector<std::string> manifest(inputs.size());
  std::vector<SheetEntry> sheet;
  const std::size_t sheet_count = o.contact_sheet.empty() ? 0 : static_cast<std::size_t>(std::max(0, o.contact_sheet_count));
  Progress progress(inputs.size(), ::isatty(STDERR_FILENO) != 0);
  std::size_t finished = 0;
  // --shard-size: results of one shape stacked into shard_NNNNN.npy, in input order.
  std::vector<std::pair<std::size_t, sv::Tensor>> shard;
  int shards_written = 0;
  {
    DecodePool pool(inputs, workers, std::max<std::size_t>(2 * o.batch, 4 * workers), !gpu_decode, stages);
    Writer writer(stages);
    auto flush_shard = [&] {
      if (shard.empty()) return;
      const sv::Tensor& first = shard.front().second;
      sv::Dims shape{static_cast<std::int64_t>(shard.size())};
      for (int d = 0; d < first.dim(); ++d) shape.push_back(first.size(d));
      const sv::Tensor stacked = sv::empty(shape, first.dtype(), sv::Device::cpu());
      for (std::size_t k = 0; k < shard.size(); ++k) sv::copy_(stacked.select(0, static_cast<std::int64_t>(k)), shard[k].second);
      char name[32];
      std::snprintf(name, sizeof(name), "shard_%05d.npy", shards_written++);
      for (std::size_t k = 0; k < shard.size(); ++k) {
        std::string& line = manifest[shard[k].first];
        line.replace(line.find("%OUTPUT%"), 8, json_string(name) + ", \"shard_index\": " + std::to_string(k));
      }
      writer.push(shard.front().first, out_dir / name, stacked, OutputFormat::Npy);
      shard.clear();
    };
    for (std::size_t b0 = 0; b0 < inputs.size() && !g_interrupted; b0 += o.batch) {
      const std::size_t b1 = std::min(inputs.size(), b0 + static_cast<std::size_t>(o.batch));
      std::vector<Decoded> batch;
      for (std::size_t i = b0; i < b1; ++i) batch.push_back(pool.take(i));
      if (gpu_decode) {
        // One nvJPEG batch (PNGs on the CPU, then moved), on our stream.
        std::vector<sv::Tensor> bytes;
        std::vector<std::size_t> where;
        for (std::size_t k = 0; k < batch.size(); ++k) {
          if (batch[k].error.empty()) {
            bytes.push_back(batch[k].bytes);
            where.push_back(k);
          }
        }
        const auto t0 = Clock::now();
        std::vector<std::string> errors;
        const auto images = sv::io::decode_image(bytes, sv::io::ImageReadMode::RGB, true, device, sv::io::OnError::Skip,
                                                 &errors, stream);
        Stages::add(stages.decode_us, t0);
        for (std::size_t k = 0; k < where.size(); ++k) {
          batch[where[k]].image = images[k];
          if (!errors[k].empty()) batch[where[k]].error = errors[k];
        }
      }
      const auto t_compute = Clock::now();
      std::vector<std::pair<std::size_t, sv::Tensor>> results;
      for (std::size_t k = 0; k < batch.size(); ++k) {
        const std::size_t i = b0 + k;
        if (!batch[k].error.empty()) {
          failures[i] = batch[k].error;
          continue;
        }
        try {
          SampleRandom random(o.seed, todo[i]);
          CallLog log;
          sv::Tensor x = sv::to_device(batch[k].image, device, stream);
          for (const Step& step : steps) x = step.run(x, stream, random, log);
          results.emplace_back(i, x);
          manifest[i] = "{\"index\": " + std::to_string(todo[i]) + ", \"input\": " + json_string(inputs[i].path.string()) +
                        ", \"output\": %OUTPUT%" + (inputs[i].label >= 0 ? ", \"label\": " + std::to_string(inputs[i].label) : "") +
                        ", \"calls\": " + call_list(log) + "}";
        } catch (const std::exception& e) {
          failures[i] = std::string("pipeline: ") + e.what();
        }
      }
      if (device.is_cuda()) stream.synchronize();
      for (auto& [i, y] : results) {
        try {
          const sv::Tensor host = sv::to_device(y, sv::Device::cpu(), stream);
          if (sheet.size() < sheet_count) {
            sheet.push_back({inputs[i].path.filename().string(), sv::to_device(batch[i - b0].image, sv::Device::cpu()), host});
          }
          if (o.shard_size > 0) {
            if (!shard.empty() && !(sv::Dims(shard.front().second.shape()) == sv::Dims(host.shape()) &&
                                    shard.front().second.dtype() == host.dtype())) {
              throw std::runtime_error("result " + sv::Dims(host.shape()).str() + " differs from the shard's " +
                                       sv::Dims(shard.front().second.shape()).str() +
                                       " (shards need a pipeline with a fixed output size)");
            }
            shard.emplace_back(i, host);
            if (shard.size() == static_cast<std::size_t>(o.shard_size)) flush_shard();
            continue;
          }
          const OutputFormat f = resolve_format(format, host);
          const std::string name = inputs[i].relative + extension(f);
          manifest[i].replace(manifest[i].find("%OUTPUT%"), 8, json_string(name));
          writer.push(i, out_dir / name, host, f);
        } catch (const std::exception& e) {
          failures[i] = e.what();
          manifest[i].clear();
        }
      }
      Stages::add(stages.compute_us, t_compute);
      finished = b1;
      progress.update(finished, failures.size());
    }
    flush_shard();
    for (auto& [i, message] : writer.close()) {
      failures[i] = message;
      manifest[i].clear();
    }
  }
  for (auto& [i, message] : failures) manifest[i].clear();
  progress.finish(finished, failures.size());

  // The manifest (one JSON line per output: input, label, the calls made), kept across --resume.
  try {
    std::string text;
    if (o.resume) {
      // Keep the earlier runs' lines, except for outputs this run wrote again.
      std::set<std::string> rewritten;
      for (const std::string& line : manifest) {
        const std::size_t at = line.find("\"output\": ");
        if (at != std::string::npos) rewritten.insert(line.substr(at, line.find(',', at) - at));
      }
      std::ifstream old(out_dir / "manifest.jsonl");
      std::string line;
      while (std::getline(old, line)) {
        const std::size_t at = line.find("\"output\": ");
        if (at == std::string::npos || !rewritten.count(line.substr(at, line.find(',', at) - at))) text += line + "\n";
      }
    }
    for (const std::string& line : manifest) {
      if (!line.empty()) text += line + "\n";
    }
    write_atomically(out_dir / "manifest.jsonl", text);
    if (!all.class_names.empty()) {
      std::string classes;
      for (const std::string& c : all.class_names) classes += c + "\n";
      write_atomically(out_dir / "classes.txt", classes);
    }
    if (!o.contact_sheet.empty() && !sheet.empty()) write_contact_sheet(o.contact_sheet, sheet);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "streamvision run: %s\n", e.what());
    return 1;
  }

  const std::size_t processed = finished - failures.size();
  const double wall = seconds_since(t_start);
  std::printf("streamvision run: %zu processed, %zu skipped%s, %zu already done; %.2f s wall, %.1f images/s\n",
              processed, failures.size(), g_interrupted ? " (interrupted)" : "", already, wall,
              wall > 0 ? processed / wall : 0.0);
  std::printf("  stage time (summed over threads): read %.3f s, decode %.3f s, pipeline %.3f s, encode+write %.3f s\n",
              stages.read_us / 1e6, stages.decode_us / 1e6, stages.compute_us / 1e6, stages.write_us / 1e6);
  for (const auto& [i, message] : failures) std::printf("  skipped %s: %s\n", inputs[i].path.string().c_str(), message.c_str());
  if (!o.contact_sheet.empty() && !sheet.empty()) std::printf("  contact sheet: %s\n", o.contact_sheet.c_str());
  std::printf("  outputs in %s (manifest.jsonl lists each output, its label and the calls made)\n", out_dir.string().c_str());
  if (g_interrupted) return 130;
  if (processed == 0 && !inputs.empty()) return 1;
  if (o.strict && !failures.empty()) return 1;
  return 0;
}

}  // namespace svtool
