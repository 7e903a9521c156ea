// `streamvision run`: decode a dataset on a thread pool (or in batches on the GPU), run the
// pipeline on the device, write outputs atomically, report progress and a summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace svtool {

inline constexpr const char* kDefaultPipeline = "resize=256,center_crop=224,to_dtype=float32,normalize=imagenet";

struct RunOptions {
  std::string device = "auto";
  std::string pipeline = kDefaultPipeline;
  int batch = 16;
  int workers = 0;  // 0: the hardware's thread count, at most 8
  std::uint64_t seed = 0;
  std::string format = "auto";
  std::string contact_sheet;
  int contact_sheet_count = 8;
  int shard_size = 0;  // > 0: float results stacked into shard_NNNNN.npy files of this many images
  bool resume = false;
  bool strict = false;
  std::vector<std::string> inputs;
  std::string output_dir;
};

// The process exit code: 0 success (some inputs may have been skipped), 1 when every input
// failed or (with --strict) any did, 2 for a bad command line or an unusable output directory,
// 130 when interrupted (finished outputs are kept).
int run(const RunOptions& options);

}  // namespace svtool
