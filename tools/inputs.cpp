#include "inputs.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>

namespace svtool {

namespace fs = std::filesystem;

bool has_image_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".jpe" || ext == ".jfif";
}

namespace {

std::vector<fs::path> files_under(const fs::path& root) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root, fs::directory_options::follow_directory_symlink)) {
    if (e.is_regular_file() && has_image_extension(e.path())) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool is_image_folder(const fs::path& root) {
  bool has_dirs = false;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_regular_file() && has_image_extension(e.path())) return false;
    has_dirs = has_dirs || e.is_directory();
  }
  return has_dirs;
}

std::string without_extension(const fs::path& relative) {
  return (relative.parent_path() / relative.stem()).generic_string();
}

}  // namespace

InputSet collect_inputs(const std::vector<std::string>& arguments) {
  InputSet set;
  std::map<std::string, int> class_index;
  for (const std::string& arg : arguments) {
    const fs::path root(arg);
    if (!fs::exists(root)) throw std::invalid_argument("input '" + arg + "' does not exist");
    if (!fs::is_directory(root)) {
      set.items.push_back({root, root.stem().string(), -1});
      continue;
    }
    if (is_image_folder(root)) {
      std::vector<std::string> classes;
      for (const auto& e : fs::directory_iterator(root)) {
        if (e.is_directory()) classes.push_back(e.path().filename().string());
      }
      std::sort(classes.begin(), classes.end());
      for (const std::string& name : classes) {
        auto [it, added] = class_index.emplace(name, static_cast<int>(set.class_names.size()));
        if (added) set.class_names.push_back(name);
        for (const fs::path& f : files_under(root / name)) {
          set.items.push_back({f, without_extension(fs::relative(f, root)), it->second});
        }
      }
      continue;
    }
    for (const fs::path& f : files_under(root)) set.items.push_back({f, without_extension(fs::relative(f, root)), -1});
  }
  // Two inputs must not write the same output.
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < set.items.size(); ++i) {
    auto [it, added] = seen.emplace(set.items[i].relative, i);
    if (!added) {
      throw std::invalid_argument("inputs '" + set.items[it->second].path.string() + "' and '" +
                                  set.items[i].path.string() + "' would write the same output '" +
                                  set.items[i].relative + "'");
    }
  }
  return set;
}

}  // namespace svtool
