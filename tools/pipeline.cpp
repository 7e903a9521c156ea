#include "pipeline.hpp"

#include <sstream>
#include <stdexcept>

namespace svtool {

namespace {

namespace sv = streamvision;
namespace F = streamvision::functional;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::vector<double> numbers(const std::string& s, char sep = ':') {
  std::vector<double> v;
  for (const auto& p : split(s, sep)) v.push_back(std::stod(p));
  return v;
}

std::vector<std::int64_t> sizes(const std::string& s) {
  std::vector<std::int64_t> v;
  for (const auto& p : split(s, 'x')) v.push_back(std::stoll(p));
  return v;
}

sv::DType dtype_named(const std::string& name) {
  for (int d = 0; d < sv::kNumDTypes; ++d) {
    if (name == sv::dtype_name(static_cast<sv::DType>(d))) return static_cast<sv::DType>(d);
  }
  throw std::invalid_argument("unknown dtype '" + name + "'");
}

using Run = std::function<sv::Tensor(const sv::Tensor&, const sv::Stream&)>;

struct Kind {
  const char* name;
  const char* help;
  std::function<Run(const std::string& arg)> make;
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> all = {
      {"resize", "resize=S | HxW: bilinear, antialiased (S sets the shorter edge)",
       [](const std::string& a) -> Run {
         const auto size = sizes(a);
         return [size](const sv::Tensor& x, const sv::Stream& s) {
           return F::resize(x, size, sv::InterpolationMode::Bilinear, std::nullopt, true, s);
         };
       }},
      {"center_crop", "center_crop=S | HxW",
       [](const std::string& a) -> Run {
         const auto size = sizes(a);
         return [size](const sv::Tensor& x, const sv::Stream& s) { return F::center_crop(x, size, s); };
       }},
      {"crop", "crop=top:left:height:width",
       [](const std::string& a) -> Run {
         const auto v = numbers(a);
         if (v.size() != 4) throw std::invalid_argument("crop needs top:left:height:width");
         return [v](const sv::Tensor& x, const sv::Stream& s) {
           return F::crop(x, static_cast<std::int64_t>(v[0]), static_cast<std::int64_t>(v[1]), static_cast<std::int64_t>(v[2]),
                          static_cast<std::int64_t>(v[3]), s);
         };
       }},
      {"pad", "pad=N (reflect)",
       [](const std::string& a) -> Run {
         const std::int64_t n = std::stoll(a);
         return [n](const sv::Tensor& x, const sv::Stream& s) {
           return F::pad(x, {n}, std::nullopt, sv::PaddingMode::Reflect, s);
         };
       }},
      {"horizontal_flip", "horizontal_flip",
       [](const std::string&) -> Run { return [](const sv::Tensor& x, const sv::Stream& s) { return F::horizontal_flip(x, s); }; }},
      {"vertical_flip", "vertical_flip",
       [](const std::string&) -> Run { return [](const sv::Tensor& x, const sv::Stream& s) { return F::vertical_flip(x, s); }; }},
      {"rotate", "rotate=DEGREES (bilinear, counter-clockwise)",
       [](const std::string& a) -> Run {
         const double deg = std::stod(a);
         return [deg](const sv::Tensor& x, const sv::Stream& s) {
           return F::rotate(x, deg, sv::InterpolationMode::Bilinear, false, std::nullopt, std::nullopt, s);
         };
       }},
      {"grayscale", "grayscale (3 output channels)",
       [](const std::string&) -> Run { return [](const sv::Tensor& x, const sv::Stream& s) { return F::rgb_to_grayscale(x, 3, s); }; }},
      {"brightness", "brightness=FACTOR",
       [](const std::string& a) -> Run {
         const double f = std::stod(a);
         return [f](const sv::Tensor& x, const sv::Stream& s) { return F::adjust_brightness(x, f, s); };
       }},
      {"contrast", "contrast=FACTOR",
       [](const std::string& a) -> Run {
         const double f = std::stod(a);
         return [f](const sv::Tensor& x, const sv::Stream& s) { return F::adjust_contrast(x, f, s); };
       }},
      {"saturation", "saturation=FACTOR",
       [](const std::string& a) -> Run {
         const double f = std::stod(a);
         return [f](const sv::Tensor& x, const sv::Stream& s) { return F::adjust_saturation(x, f, s); };
       }},
      {"hue", "hue=FACTOR (in [-0.5, 0.5])",
       [](const std::string& a) -> Run {
         const double f = std::stod(a);
         return [f](const sv::Tensor& x, const sv::Stream& s) { return F::adjust_hue(x, f, s); };
       }},
      {"equalize", "equalize",
       [](const std::string&) -> Run { return [](const sv::Tensor& x, const sv::Stream& s) { return F::equalize(x, s); }; }},
      {"gaussian_blur", "gaussian_blur=K[:SIGMA]",
       [](const std::string& a) -> Run {
         const auto v = numbers(a);
         if (v.empty()) throw std::invalid_argument("gaussian_blur needs a kernel size");
         const std::int64_t k = static_cast<std::int64_t>(v[0]);
         const std::optional<std::vector<double>> sigma =
             v.size() > 1 ? std::optional<std::vector<double>>(std::vector<double>{v[1]}) : std::nullopt;
         return [k, sigma](const sv::Tensor& x, const sv::Stream& s) { return F::gaussian_blur(x, {k, k}, sigma, s); };
       }},
      {"to_dtype", "to_dtype=DTYPE (scaled, e.g. float32)",
       [](const std::string& a) -> Run {
         const sv::DType d = dtype_named(a.empty() ? "float32" : a);
         return [d](const sv::Tensor& x, const sv::Stream& s) { return F::to_dtype(x, d, true, s); };
       }},
      {"normalize", "normalize=imagenet | m1:m2:m3/s1:s2:s3 (float images)",
       [](const std::string& a) -> Run {
         std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
         if (!a.empty() && a != "imagenet") {
           const auto halves = split(a, '/');
           if (halves.size() != 2) throw std::invalid_argument("normalize needs imagenet or MEANS/STDS");
           mean = numbers(halves[0]);
           std = numbers(halves[1]);
         }
         return [mean, std](const sv::Tensor& x, const sv::Stream& s) { return F::normalize(x, mean, std, false, s); };
       }},
  };
  return all;
}

}  // namespace

std::vector<Step> parse_pipeline(const std::string& spec) {
  std::vector<Step> steps;
  for (const auto& item : split(spec, ',')) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    const std::string arg = eq == std::string::npos ? "" : item.substr(eq + 1);
    const Kind* kind = nullptr;
    for (const auto& k : kinds()) {
      if (name == k.name) kind = &k;
    }
    if (kind == nullptr) throw std::invalid_argument("unknown pipeline step '" + item + "'; known steps:\n" + pipeline_help());
    try {
      steps.push_back({item, kind->make(arg)});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("pipeline step '" + item + "': " + e.what());
    } catch (const std::out_of_range&) {
      throw std::invalid_argument("pipeline step '" + item + "': number out of range");
    }
  }
  return steps;
}

std::string pipeline_help() {
  std::string out;
  for (const auto& k : kinds()) out += std::string("  ") + k.help + "\n";
  return out;
}

std::vector<Step> demo_steps() {
  return parse_pipeline(
      "horizontal_flip,vertical_flip,resize=224,center_crop=320,pad=40,rotate=30,grayscale,brightness=1.6,"
      "contrast=0.5,saturation=2.0,hue=0.25,equalize,gaussian_blur=23:5");
}

}  // namespace svtool
