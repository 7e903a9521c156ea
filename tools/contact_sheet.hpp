// The contact sheet: a PNG grid with one row per sample, the decoded input beside the pipeline's
// output, each labelled (file name, shape, dtype), so that a person can see what the pipeline does.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <streamvision/streamvision.hpp>

namespace svtool {

struct SheetEntry {
  std::string name;
  streamvision::Tensor input;   // uint8 [C, H, W] on the CPU
  streamvision::Tensor output;  // any dtype [C, H, W] on the CPU (float results are min-max scaled)
};

void write_contact_sheet(const std::filesystem::path& path, const std::vector<SheetEntry>& entries);

}  // namespace svtool
