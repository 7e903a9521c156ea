// The preprocessing pipeline of the command-line program: a list of steps parsed from a spec
// such as "resize=256,center_crop=224,horizontal_flip,to_dtype=float32,normalize=imagenet".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <streamvision/streamvision.hpp>

namespace svtool {

struct Step {
  std::string spec;  // as written, for messages and output names
  std::function<streamvision::Tensor(const streamvision::Tensor&, const streamvision::Stream&)> run;
};

// Throws std::invalid_argument naming the bad step and listing the known ones.
std::vector<Step> parse_pipeline(const std::string& spec);

// One line per step kind, for --help.
std::string pipeline_help();

// Steps of the --demo mode: each applied alone to the input image.
std::vector<Step> demo_steps();

}  // namespace svtool
