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

#include "batch_transfer.hpp"
#include "contact_sheet.hpp"
#include "inputs.hpp"
#include "outputs.hpp"
#include "pinned_pool.hpp"
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
  sv::Tensor bytes;  // a JPEG kept for the GPU decoder
  sv::Tensor image;  // uint8 [C, H, W], decoded on the CPU (or on the device by the GPU decoder)
  std::string error;
};

// Host time per stage, as the summary names them. On CUDA "staging" is copying decoded images
// into page-locked memory and queueing their upload, and "pipeline" (compute_us) is queueing the
// steps and the downloads, waiting for a batch's results and handing them on: the device's time
// shows there only where the host waits for it.
struct Stages {
  std::atomic<std::int64_t> read_us{0}, decode_us{0}, staging_us{0}, compute_us{0}, write_us{0};
  static void add(std::atomic<std::int64_t>& a, Clock::time_point t0) {
    a += std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
  }
};

// Reads and decodes inputs on `workers` threads, at most `window` images ahead of the consumer;
// the consumer takes them in input order. With `leave_jpegs` JPEGs stay encoded, for the GPU
// decoder to take as a batch; the other images are decoded here all the same.
class DecodePool {
 public:
  DecodePool(const std::vector<Input>& inputs, int workers, std::size_t window, bool leave_jpegs, Stages& stages)
      : inputs_(inputs), slots_(inputs.size()), window_(window), leave_jpegs_(leave_jpegs), stages_(stages) {
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
        if (!leave_jpegs_ || sv::io::sniff_image_format(d.bytes) != sv::io::ImageFormat::JPEG) {
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
  bool leave_jpegs_;
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

// One batch, from taking its inputs to handing its results on.
struct Batch {
  struct Result {
    std::size_t i;           // position in the inputs
    sv::Tensor value;        // the pipeline's output; on CUDA, its host copy once downloads are queued
    sv::Tensor sheet_input;  // the input image, for the contact sheet (undefined when not on it)
  };
  std::size_t b0 = 0, b1 = 0;  // positions [b0, b1) of the inputs
  std::vector<Decoded> items;  // items[k] is input b0 + k
  std::vector<Result> results;
  sv::Tensor staging;          // CUDA: the pinned block its upload reads, held until `done`
  sv::Event done;              // CUDA: recorded after its downloads; the host reads results after it
};

// A host copy of a tensor in page-locked memory, so that its block goes back to the pool.
sv::Tensor pageable_copy(const sv::Tensor& t) {
  const sv::Tensor out = sv::empty_like(t);
  sv::copy_(out, t);
  return out;
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
  // The device's start-up (driver, context) is timed on its own: on a small job it can be most
  // of the wall time, and the summary should say so rather than blame the pipeline.
  const auto t_device = Clock::now();
  const sv::Stream stream = device.is_cuda() ? sv::Stream::create(device.index) : sv::Stream();
  const double device_startup = seconds_since(t_device);
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
  // When the first batch was handed on: what comes after is the steady rate of a long job.
  Clock::time_point t_first_batch = t_start;
  std::size_t first_batch_images = 0;
  {
    DecodePool pool(inputs, workers, std::max<std::size_t>(2 * o.batch, 4 * workers), /*leave_jpegs=*/gpu_decode, stages);
    Writer writer(stages);
    PinnedPool pinned;

    // --shard-size: results of one shape stacked into shard_NNNNN.npy, in input order, each
    // copied into the shard's rows as it comes.
    sv::Tensor shard_rows;
    std::vector<std::size_t> shard_positions;
    int shards_written = 0;
    auto flush_shard = [&] {
      if (shard_positions.empty()) return;
      const auto n = static_cast<std::int64_t>(shard_positions.size());
      const sv::Tensor stacked = n == shard_rows.size(0) ? shard_rows : shard_rows.slice(0, 0, n);
      char name[32];
      std::snprintf(name, sizeof(name), "shard_%05d.npy", shards_written++);
      for (std::size_t k = 0; k < shard_positions.size(); ++k) {
        std::string& line = manifest[shard_positions[k]];
        line.replace(line.find("%OUTPUT%"), 8, json_string(name) + ", \"shard_index\": " + std::to_string(k));
      }
      writer.push(shard_positions.front(), out_dir / name, stacked, OutputFormat::Npy);
      shard_rows = sv::Tensor();
      shard_positions.clear();
    };
    auto add_to_shard = [&](std::size_t i, const sv::Tensor& host) {
      if (!shard_rows.defined()) {
        // No more rows than inputs are left.
        sv::Dims shape{static_cast<std::int64_t>(std::min<std::size_t>(o.shard_size, inputs.size() - i))};
        for (int d = 0; d < host.dim(); ++d) shape.push_back(host.size(d));
        shard_rows = sv::empty(shape, host.dtype(), sv::Device::cpu());
      }
      const sv::Tensor row = shard_rows.select(0, static_cast<std::int64_t>(shard_positions.size()));
      if (!(sv::Dims(row.shape()) == sv::Dims(host.shape()) && row.dtype() == host.dtype())) {
        throw std::runtime_error("result " + sv::Dims(host.shape()).str() + " differs from the shard's " +
                                 sv::Dims(row.shape()).str() + " (shards need a pipeline with a fixed output size)");
      }
      sv::copy_(row, host);
      shard_positions.push_back(i);
      if (shard_positions.size() == static_cast<std::size_t>(o.shard_size)) flush_shard();
    };

    std::size_t sheet_reserved = 0;  // results picked for the contact sheet so far
    auto take = [&](std::size_t b0) {
      Batch batch;
      batch.b0 = b0;
      batch.b1 = std::min(inputs.size(), b0 + static_cast<std::size_t>(o.batch));
      for (std::size_t i = b0; i < batch.b1; ++i) batch.items.push_back(pool.take(i));
      return batch;
    };
    // Runs the steps on x[k], the image of input b0 + k on the device (on CUDA they queue their
    // work on the stream). A step that fails skips that image only.
    auto compute = [&](Batch& batch, const std::vector<sv::Tensor>& x) {
      for (std::size_t k = 0; k < batch.items.size(); ++k) {
        const std::size_t i = batch.b0 + k;
        if (!batch.items[k].error.empty()) {
          failures[i] = batch.items[k].error;
          continue;
        }
        try {
          SampleRandom random(o.seed, todo[i]);
          CallLog log;
          sv::Tensor y = x[k];
          for (const Step& step : steps) y = step.run(y, stream, random, log);
          Batch::Result result{i, y, sv::Tensor()};
          if (sheet_reserved < sheet_count) {
            result.sheet_input = batch.items[k].image;
            ++sheet_reserved;
          }
          batch.results.push_back(std::move(result));
          manifest[i] = "{\"index\": " + std::to_string(todo[i]) + ", \"input\": " + json_string(inputs[i].path.string()) +
                        ", \"output\": %OUTPUT%" + (inputs[i].label >= 0 ? ", \"label\": " + std::to_string(inputs[i].label) : "") +
                        ", \"calls\": " + call_list(log) + "}";
        } catch (const std::exception& e) {
          failures[i] = std::string("pipeline: ") + e.what();
        }
      }
    };
    // Host results to the contact sheet and to the writer (one file each, or a shard's row).
    auto hand_off = [&](Batch& batch) {
      for (Batch::Result& r : batch.results) {
        const std::size_t i = r.i;
        try {
          if (r.sheet_input.defined()) {
            // On CUDA both live in buffers that go back to their pools: the sheet keeps copies.
            sheet.push_back({inputs[i].path.filename().string(), device.is_cuda() ? pageable_copy(r.sheet_input) : r.sheet_input,
                             device.is_cuda() ? pageable_copy(r.value) : r.value});
          }
          if (o.shard_size > 0) {
            add_to_shard(i, r.value);
            continue;
          }
          const OutputFormat f = resolve_format(format, r.value);
          const std::string name = inputs[i].relative + extension(f);
          manifest[i].replace(manifest[i].find("%OUTPUT%"), 8, json_string(name));
          writer.push(i, out_dir / name, r.value, f);
        } catch (const std::exception& e) {
          failures[i] = e.what();
          manifest[i].clear();
        }
      }
      if (finished == 0) {
        t_first_batch = Clock::now();
        first_batch_images = batch.b1;
      }
      finished = batch.b1;
      progress.update(finished, failures.size());
    };

    // CUDA, two batches deep: a batch's GPU decode (host-side work), upload, steps and downloads
    // are queued on the stream, then the previous batch's results, whose downloads were queued
    // before, are waited for and handed on while the device works on this one.
    auto start_on_device = [&](Batch& batch) {
      if (gpu_decode) {
        // The JPEGs in one nvJPEG batch on the stream; the pool decoded the rest.
        std::vector<sv::Tensor> bytes;
        std::vector<std::size_t> where;
        for (std::size_t k = 0; k < batch.items.size(); ++k) {
          if (batch.items[k].error.empty() && batch.items[k].bytes.defined()) {
            bytes.push_back(batch.items[k].bytes);
            where.push_back(k);
          }
        }
        if (!bytes.empty()) {
          const auto t0 = Clock::now();
          std::vector<std::string> errors;
          const auto images = sv::io::decode_image(bytes, sv::io::ImageReadMode::RGB, true, device, sv::io::OnError::Skip,
                                                   &errors, stream);
          Stages::add(stages.decode_us, t0);
          for (std::size_t k = 0; k < where.size(); ++k) {
            batch.items[where[k]].image = images[k];
            batch.items[where[k]].bytes = sv::Tensor();
            if (!errors[k].empty()) batch.items[where[k]].error = errors[k];
          }
        }
      }
      // The CPU-decoded images in one pinned block, one transfer.
      const auto t_staging = Clock::now();
      std::vector<sv::Tensor> x(batch.items.size()), on_host;
      std::vector<std::size_t> where;
      for (std::size_t k = 0; k < batch.items.size(); ++k) {
        if (!batch.items[k].error.empty()) continue;
        x[k] = batch.items[k].image;
        if (x[k].device().is_cpu()) {
          on_host.push_back(x[k]);
          where.push_back(k);
        }
      }
      try {
        Upload up = upload(on_host, device, stream, pinned);
        for (std::size_t j = 0; j < where.size(); ++j) x[where[j]] = up.images[j];
        batch.staging = std::move(up.staging);
      } catch (const std::exception& e) {
        for (const std::size_t k : where) batch.items[k].error = std::string("pipeline: ") + e.what();
      }
      Stages::add(stages.staging_us, t_staging);
      const auto t_compute = Clock::now();
      compute(batch, x);
      batch.items.clear();  // uploaded; the results keep what the contact sheet needs
      // Downloads into one pinned block: the results, and device inputs that go on the sheet.
      std::vector<sv::Tensor> on_device;
      for (const Batch::Result& r : batch.results) {
        on_device.push_back(r.value);
        if (r.sheet_input.defined() && r.sheet_input.device().is_cuda()) on_device.push_back(r.sheet_input);
      }
      try {
        const std::vector<sv::Tensor> host = queue_download(on_device, stream, pinned);
        std::size_t next = 0;
        for (Batch::Result& r : batch.results) {
          r.value = host[next++];
          if (r.sheet_input.defined() && r.sheet_input.device().is_cuda()) r.sheet_input = host[next++];
        }
      } catch (const std::exception& e) {
        for (const Batch::Result& r : batch.results) {
          failures[r.i] = e.what();
          manifest[r.i].clear();
        }
        batch.results.clear();
      }
      batch.done = sv::Event::create(device.index);
      batch.done.record(stream);
      Stages::add(stages.compute_us, t_compute);
    };
    auto finish_on_device = [&](Batch& batch) {
      const auto t0 = Clock::now();
      batch.done.synchronize();
      batch.staging = sv::Tensor();  // its upload has run: the block may be reused
      hand_off(batch);
      Stages::add(stages.compute_us, t0);
    };

    std::optional<Batch> in_flight;  // CUDA: the batch whose downloads are queued
    for (std::size_t b0 = 0; b0 < inputs.size() && !g_interrupted; b0 += o.batch) {
      Batch batch = take(b0);
      if (device.is_cuda()) {
        start_on_device(batch);
        if (in_flight) finish_on_device(*in_flight);
        in_flight = std::move(batch);
        continue;
      }
      const auto t_compute = Clock::now();
      std::vector<sv::Tensor> x;
      for (const Decoded& d : batch.items) x.push_back(d.image);
      compute(batch, x);
      hand_off(batch);
      Stages::add(stages.compute_us, t_compute);
    }
    if (in_flight) finish_on_device(*in_flight);
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
  char staging[48] = "";  // no staging on the CPU
  if (device.is_cuda()) std::snprintf(staging, sizeof(staging), ", staging %.3f s", stages.staging_us / 1e6);
  std::printf("  stage time (summed over threads): read %.3f s, decode %.3f s%s, pipeline %.3f s, encode+write %.3f s\n",
              stages.read_us / 1e6, stages.decode_us / 1e6, staging, stages.compute_us / 1e6, stages.write_us / 1e6);
  // Start-up (reading the input list, the device, the decoders, the first batch through every
  // stage) against the rate after it.
  const double after_first = std::chrono::duration<double>(Clock::now() - t_first_batch).count();
  if (finished > first_batch_images && after_first > 0) {
    char device_part[48] = "";  // the device's own start-up, on CUDA
    if (device.is_cuda()) std::snprintf(device_part, sizeof(device_part), " (device start-up %.3f s)", device_startup);
    std::printf("  start-up: first batch out after %.3f s%s; after it %.1f images/s\n",
                std::chrono::duration<double>(t_first_batch - t_start).count(), device_part,
                (finished - first_batch_images) / after_first);
  }
  for (const auto& [i, message] : failures) std::printf("  skipped %s: %s\n", inputs[i].path.string().c_str(), message.c_str());
  if (!o.contact_sheet.empty() && !sheet.empty()) std::printf("  contact sheet: %s\n", o.contact_sheet.c_str());
  std::printf("  outputs in %s (manifest.jsonl lists each output, its label and the calls made)\n", out_dir.string().c_str());
  if (g_interrupted) return 130;
  if (processed == 0 && !inputs.empty()) return 1;
  if (o.strict && !failures.empty()) return 1;
  return 0;
}

}  // namespace svtool
