// The inputs of `streamvision run`: files, folders (recursive) and ImageFolder trees, each with
// the output name it gets and, for ImageFolder trees, its class label.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace svtool {

struct Input {
  std::filesystem::path path;
  std::string relative;  // output name without extension, relative to OUTPUT_DIR ("cat/001")
  int label = -1;        // ImageFolder class index, -1 when the input is not in one
};

struct InputSet {
  std::vector<Input> items;              // sorted, in the order given
  std::vector<std::string> class_names;  // ImageFolder classes (index = label), empty otherwise
};

// Image extensions looked for inside folders (files named on the command line are always taken).
bool has_image_extension(const std::filesystem::path& path);

// A folder is an ImageFolder tree when it holds sub-folders and no image files at its top level:
// each sub-folder is a class (sorted names -> labels 0, 1, ...), as torchvision's ImageFolder.
// Throws std::invalid_argument for an INPUT that does not exist.
InputSet collect_inputs(const std::vector<std::string>& arguments);

}  // namespace svtool
