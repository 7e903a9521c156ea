#include "progress.hpp"

#include <string>

namespace svtool {

using Clock = std::chrono::steady_clock;

Progress::Progress(std::size_t total, bool terminal) : total_(total), terminal_(terminal), start_(Clock::now()), last_(start_) {}

void Progress::update(std::size_t done, std::size_t skipped) {
  const auto now = Clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since < (terminal_ ? 0.1 : 5.0)) return;
  last_ = now;
  draw(done, skipped, false);
}

void Progress::finish(std::size_t done, std::size_t skipped) { draw(done, skipped, true); }

void Progress::draw(std::size_t done, std::size_t skipped, bool final_line) {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
  const int percent = total_ > 0 ? static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total_)) : 100;
  char stats[160];
  std::snprintf(stats, sizeof(stats), "%zu/%zu images (%d%%), %zu skipped, %.1f images/s, ETA %d:%02d", done, total_,
                percent, skipped, rate, static_cast<int>(eta) / 60, static_cast<int>(eta) % 60);
  if (terminal_) {
    constexpr int kWidth = 30;
    const int filled = total_ > 0 ? static_cast<int>(kWidth * done / total_) : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\r\033[K[%s] %s%s", bar.c_str(), stats, final_line ? "\n" : "");
  } else {
    std::fprintf(stderr, "streamvision: %s\n", stats);
  }
  std::fflush(stderr);
}

}  // namespace svtool
