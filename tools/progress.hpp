// Progress of `streamvision run` on stderr: a bar redrawn in place when stderr is a terminal
// (images done/total, images/s, ETA), plain lines every few seconds otherwise (logs, CI).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>

namespace svtool {

class Progress {
 public:
  Progress(std::size_t total, bool terminal);
  // Called after each finished (processed or skipped) image; draws at most ~10 times a second
  // (terminal) or every 5 s (lines).
  void update(std::size_t done, std::size_t skipped);
  void finish(std::size_t done, std::size_t skipped);

 private:
  void draw(std::size_t done, std::size_t skipped, bool final_line);
  std::size_t total_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace svtool
