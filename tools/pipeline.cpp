#include "pipeline.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "kernels/philox.hpp"

namespace svtool {

namespace sv = streamvision;
namespace F = streamvision::functional;
using sv::Stream;
using sv::Tensor;

double SampleRandom::uniform() {
  std::uint32_t words[4];
  sv::kernels::philox4x32(seed_, (sample_ << 20) + draws_++, words);
  return words[0] * (1.0 / 4294967296.0);
}

double SampleRandom::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

std::int64_t SampleRandom::integer(std::int64_t lo, std::int64_t hi_exclusive) {
  if (hi_exclusive <= lo) return lo;
  const auto span = static_cast<double>(hi_exclusive - lo);
  return std::min(hi_exclusive - 1, lo + static_cast<std::int64_t>(std::floor(uniform() * span)));
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

double number(const std::string& s) {
  std::size_t used = 0;
  const double v = std::stod(s, &used);
  if (used != s.size() || !std::isfinite(v)) throw std::invalid_argument("'" + s + "' is not a number");
  return v;
}

std::vector<double> numbers(const std::string& s, char sep = ':') {
  std::vector<double> v;
  for (const auto& p : split(s, sep)) v.push_back(number(p));
  return v;
}

std::vector<std::int64_t> sizes(const std::string& s) {
  std::vector<std::int64_t> v;
  for (const auto& p : split(s, 'x')) {
    const double d = number(p);
    if (d < 1 || d != std::floor(d)) throw std::invalid_argument("sizes are positive integers, got '" + p + "'");
    v.push_back(static_cast<std::int64_t>(d));
  }
  if (v.empty() || v.size() > 2) throw std::invalid_argument("a size is S or HxW");
  return v;
}

double probability(const std::string& a) {
  const double p = a.empty() ? 0.5 : number(a);
  if (p < 0 || p > 1) throw std::invalid_argument("a probability is in [0, 1]");
  return p;
}

sv::DType dtype_named(const std::string& name) {
  for (int d = 0; d < sv::kNumDTypes; ++d) {
    if (name == sv::dtype_name(static_cast<sv::DType>(d))) return static_cast<sv::DType>(d);
  }
  throw std::invalid_argument("unknown dtype '" + name + "'");
}

std::string num(double v) { return sv::format_number(v); }
std::string list(const std::vector<std::int64_t>& v) { return sv::format_list(v); }
std::string list(const std::vector<double>& v) { return sv::format_list(v); }

using Run = std::function<Tensor(const Tensor&, const Stream&, SampleRandom&, CallLog&)>;

struct Kind {
  const char* name;
  const char* help;
  bool random;
  std::function<Run(const std::string& arg)> make;
};

// A step that runs one fixed call; `call` is its log entry.
Run fixed(std::string call, std::function<Tensor(const Tensor&, const Stream&)> fn) {
  return [call = std::move(call), fn = std::move(fn)](const Tensor& x, const Stream& s, SampleRandom&, CallLog& log) {
    log.push_back(call);
    return fn(x, s);
  };
}

// torchvision's RandomResizedCrop.get_params: 10 tries at a random area and log-uniform aspect
// ratio, else the largest centred crop within the ratio range.
void resized_crop_window(std::int64_t H, std::int64_t W, double s0, double s1, SampleRandom& r, std::int64_t& top,
                         std::int64_t& left, std::int64_t& h, std::int64_t& w) {
  const double area = static_cast<double>(H * W);
  const double r0 = std::log(3.0 / 4.0), r1 = std::log(4.0 / 3.0);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * r.uniform(s0, s1);
    const double aspect = std::exp(r.uniform(r0, r1));
    w = static_cast<std::int64_t>(std::llround(std::sqrt(target * aspect)));
    h = static_cast<std::int64_t>(std::llround(std::sqrt(target / aspect)));
    if (w > 0 && w <= W && h > 0 && h <= H) {
      top = r.integer(0, H - h + 1);
      left = r.integer(0, W - w + 1);
      return;
    }
  }
  const double in_ratio = static_cast<double>(W) / static_cast<double>(H);
  if (in_ratio < 3.0 / 4.0) {
    w = W;
    h = static_cast<std::int64_t>(std::llround(static_cast<double>(w) / (3.0 / 4.0)));
  } else if (in_ratio > 4.0 / 3.0) {
    h = H;
    w = static_cast<std::int64_t>(std::llround(static_cast<double>(h) * (4.0 / 3.0)));
  } else {
    w = W;
    h = H;
  }
  top = (H - h) / 2;
  left = (W - w) / 2;
}

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> all = {
      {"resize", "resize=S | HxW            bilinear, antialiased (S: the shorter edge becomes S)", false,
       [](const std::string& a) -> Run {
         const auto size = sizes(a);
         return fixed("{\"op\": \"resize\", \"size\": " + list(size) + ", \"interpolation\": \"bilinear\", \"antialias\": true}",
                      [size](const Tensor& x, const Stream& s) {
                        return F::resize(x, size, sv::InterpolationMode::Bilinear, std::nullopt, true, s);
                      });
       }},
      {"center_crop", "center_crop=S | HxW", false,
       [](const std::string& a) -> Run {
         const auto size = sizes(a);
         return fixed("{\"op\": \"center_crop\", \"output_size\": " + list(size) + "}",
                      [size](const Tensor& x, const Stream& s) { return F::center_crop(x, size, s); });
       }},
      {"crop", "crop=TOP:LEFT:HEIGHT:WIDTH", false,
       [](const std::string& a) -> Run {
         const auto v = numbers(a);
         if (v.size() != 4) throw std::invalid_argument("crop needs TOP:LEFT:HEIGHT:WIDTH");
         const auto t = static_cast<std::int64_t>(v[0]), l = static_cast<std::int64_t>(v[1]);
         const auto h = static_cast<std::int64_t>(v[2]), w = static_cast<std::int64_t>(v[3]);
         return fixed("{\"op\": \"crop\", \"top\": " + num(t) + ", \"left\": " + num(l) + ", \"height\": " + num(h) +
                          ", \"width\": " + num(w) + "}",
                      [=](const Tensor& x, const Stream& s) { return F::crop(x, t, l, h, w, s); });
       }},
      {"random_crop", "random_crop=S | HxW       a window at a random position (image at least that big)", true,
       [](const std::string& a) -> Run {
         const auto size = sizes(a);
         const std::int64_t h = size[0], w = size.size() > 1 ? size[1] : size[0];
         return [h, w](const Tensor& x, const Stream& s, SampleRandom& r, CallLog& log) {
           const std::int64_t top = r.integer(0, std::max<std::int64_t>(0, x.size(-2) - h) + 1);
           const std::int64_t left = r.integer(0, std::max<std::int64_t>(0, x.size(-1) - w) + 1);
           log.push_back("{\"op\": \"crop\", \"top\": " + num(top) + ", \"left\": " + num(left) + ", \"height\": " +
                         num(h) + ", \"width\": " + num(w) + "}");
           return F::crop(x, top, left, h, w, s);
         };
       }},
      {"random_resized_crop", "random_resized_crop=S[:SMIN:SMAX]  torchvision's RandomResizedCrop (scale 0.08-1)", true,
       [](const std::string& a) -> Run {
         const auto parts = split(a, ':');
         if (parts.empty()) throw std::invalid_argument("random_resized_crop needs a size");
         auto size = sizes(parts[0]);
         if (size.size() == 1) size.push_back(size[0]);
         double s0 = 0.08, s1 = 1.0;
         if (parts.size() == 3) {
           s0 = number(parts[1]);
           s1 = number(parts[2]);
         } else if (parts.size() != 1) {
           throw std::invalid_argument("random_resized_crop=S[:SMIN:SMAX]");
         }
         if (!(0 < s0 && s0 <= s1)) throw std::invalid_argument("random_resized_crop needs 0 < SMIN <= SMAX");
         return [size, s0, s1](const Tensor& x, const Stream& s, SampleRandom& r, CallLog& log) {
           std::int64_t top = 0, left = 0, h = 0, w = 0;
           resized_crop_window(x.size(-2), x.size(-1), s0, s1, r, top, left, h, w);
           log.push_back("{\"op\": \"resized_crop\", \"top\": " + num(top) + ", \"left\": " + num(left) +
                         ", \"height\": " + num(h) + ", \"width\": " + num(w) + ", \"size\": " + list(size) +
                         ", \"interpolation\": \"bilinear\", \"antialias\": true}");
           return F::resized_crop(x, top, left, h, w, size, sv::InterpolationMode::Bilinear, true, s);
         };
       }},
      {"pad", "pad=N                     reflect padding", false,
       [](const std::string& a) -> Run {
         const auto n = static_cast<std::int64_t>(number(a));
         return fixed("{\"op\": \"pad\", \"padding\": [" + num(n) + "], \"padding_mode\": \"reflect\"}",
                      [n](const Tensor& x, const Stream& s) {
                        return F::pad(x, {n}, std::nullopt, sv::PaddingMode::Reflect, s);
                      });
       }},
      {"hflip", "hflip[=P]                 horizontal flip with probability P (default 0.5; 1 = always)", true,
       [](const std::string& a) -> Run {
         const double p = probability(a);
         return [p](const Tensor& x, const Stream& s, SampleRandom& r, CallLog& log) {
           if (!(r.uniform() < p)) return x;
           log.push_back("{\"op\": \"horizontal_flip\"}");
           return F::horizontal_flip(x, s);
         };
       }},
      {"vflip", "vflip[=P]                 vertical flip with probability P (default 0.5)", true,
       [](const std::string& a) -> Run {
         const double p = probability(a);
         return [p](const Tensor& x, const Stream& s, SampleRandom& r, CallLog& log) {
           if (!(r.uniform() < p)) return x;
           log.push_back("{\"op\": \"vertical_flip\"}");
           return F::vertical_flip(x, s);
         };
       }},
      {"rotate", "rotate=DEG                counter-clockwise, bilinear, same size", false,
       [](const std::string& a) -> Run {
         const double deg = number(a);
         return fixed("{\"op\": \"rotate\", \"angle\": " + num(deg) + ", \"interpolation\": \"bilinear\"}",
                      [deg](const Tensor& x, const Stream& s) {
                        return F::rotate(x, deg, sv::InterpolationMode::Bilinear, false, std::nullopt, std::nullopt, s);
                      });
       }},
      {"random_rotation", "random_rotation=DEG       an angle uniform in [-DEG, DEG], bilinear", true,
       [](const std::string& a) -> Run {
         const double deg = std::abs(number(a));
         return [deg](const Tensor& x, const Stream& s, SampleRandom& r, CallLog& log) {
           const double angle = r.uniform(-deg, deg);
           log.push_back("{\"op\": \"rotate\", \"angle\": " + num(angle) + ", \"interpolation\": \"bilinear\"}");
           return F::rotate(x, angle, sv::InterpolationMode::Bilinear, false, std::nullopt, std::nullopt, s);
         };
       }},
      {"color_jitter", "color_jitter=B:C:S:H      factors uniform in [1-B, 1+B] (brightness, contrast, saturation), hue in [-H, H]; applied in that order", true,
       [](const std::string& a) -> Run {
         auto v = numbers(a);
         if (v.empty() || v.size() > 4) throw std::invalid_argument("color_jitter=B[:C[:S[:H]]]");
         v.resize(4, 0.0);
         if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0 || v[3] > 0.5) {
           throw std::invalid_argument("color_jitter needs B, C, S >= 0 and H in [0, 0.5]");
         }
         return [v](const Tensor& x, const Stream& s, SampleRandom& r, CallLog& log) {
           Tensor y = x;
           if (v[0] > 0) {
             const double f = r.uniform(std::max(0.0, 1 - v[0]), 1 + v[0]);
             log.push_back("{\"op\": \"adjust_brightness\", \"brightness_factor\": " + num(f) + "}");
             y = F::adjust_brightness(y, f, s);
           }
           if (v[1] > 0) {
             const double f = r.uniform(std::max(0.0, 1 - v[1]), 1 + v[1]);
             log.push_back("{\"op\": \"adjust_contrast\", \"contrast_factor\": " + num(f) + "}");
             y = F::adjust_contrast(y, f, s);
           }
           if (v[2] > 0) {
             const double f = r.uniform(std::max(0.0, 1 - v[2]), 1 + v[2]);
             log.push_back("{\"op\": \"adjust_saturation\", \"saturation_factor\": " + num(f) + "}");
             y = F::adjust_saturation(y, f, s);
           }
           if (v[3] > 0) {
             const double f = r.uniform(-v[3], v[3]);
             log.push_back("{\"op\": \"adjust_hue\", \"hue_factor\": " + num(f) + "}");
             y = F::adjust_hue(y, f, s);
           }
           return y;
         };
       }},
      {"grayscale", "grayscale                 3 output channels", false,
       [](const std::string&) -> Run {
         return fixed("{\"op\": \"rgb_to_grayscale\", \"num_output_channels\": 3}",
                      [](const Tensor& x, const Stream& s) { return F::rgb_to_grayscale(x, 3, s); });
       }},
      {"random_grayscale", "random_grayscale[=P]      grayscale (3 channels) with probability P (default 0.1)", true,
       [](const std::string& a) -> Run {
         const double p = a.empty() ? 0.1 : probability(a);
         return [p](const Tensor& x, const Stream& s, SampleRandom& r, CallLog& log) {
           if (!(r.uniform() < p)) return x;
           log.push_back("{\"op\": \"rgb_to_grayscale\", \"num_output_channels\": 3}");
           return F::rgb_to_grayscale(x, 3, s);
         };
       }},
      {"brightness", "brightness=FACTOR", false,
       [](const std::string& a) -> Run {
         const double f = number(a);
         return fixed("{\"op\": \"adjust_brightness\", \"brightness_factor\": " + num(f) + "}",
                      [f](const Tensor& x, const Stream& s) { return F::adjust_brightness(x, f, s); });
       }},
      {"contrast", "contrast=FACTOR", false,
       [](const std::string& a) -> Run {
         const double f = number(a);
         return fixed("{\"op\": \"adjust_contrast\", \"contrast_factor\": " + num(f) + "}",
                      [f](const Tensor& x, const Stream& s) { return F::adjust_contrast(x, f, s); });
       }},
      {"saturation", "saturation=FACTOR", false,
       [](const std::string& a) -> Run {
         const double f = number(a);
         return fixed("{\"op\": \"adjust_saturation\", \"saturation_factor\": " + num(f) + "}",
                      [f](const Tensor& x, const Stream& s) { return F::adjust_saturation(x, f, s); });
       }},
      {"hue", "hue=FACTOR                in [-0.5, 0.5]", false,
       [](const std::string& a) -> Run {
         const double f = number(a);
         return fixed("{\"op\": \"adjust_hue\", \"hue_factor\": " + num(f) + "}",
                      [f](const Tensor& x, const Stream& s) { return F::adjust_hue(x, f, s); });
       }},
      {"equalize", "equalize", false,
       [](const std::string&) -> Run {
         return fixed("{\"op\": \"equalize\"}", [](const Tensor& x, const Stream& s) { return F::equalize(x, s); });
       }},
      {"gaussian_blur", "gaussian_blur=K[:SIGMA]", false,
       [](const std::string& a) -> Run {
         const auto v = numbers(a);
         if (v.empty()) throw std::invalid_argument("gaussian_blur needs a kernel size");
         const auto k = static_cast<std::int64_t>(v[0]);
         const std::optional<std::vector<double>> sigma =
             v.size() > 1 ? std::optional<std::vector<double>>(std::vector<double>{v[1], v[1]}) : std::nullopt;
         return fixed("{\"op\": \"gaussian_blur\", \"kernel_size\": " + list(std::vector<std::int64_t>{k, k}) +
                          (sigma ? ", \"sigma\": " + list(*sigma) : std::string()) + "}",
                      [k, sigma](const Tensor& x, const Stream& s) { return F::gaussian_blur(x, {k, k}, sigma, s); });
       }},
      {"to_dtype", "to_dtype=DTYPE            scaled (float32, float16, uint8, ...)", false,
       [](const std::string& a) -> Run {
         const std::string name = a.empty() ? "float32" : a;
         const sv::DType d = dtype_named(name);
         return fixed("{\"op\": \"to_dtype\", \"dtype\": \"" + name + "\", \"scale\": true}",
                      [d](const Tensor& x, const Stream& s) { return F::to_dtype(x, d, true, s); });
       }},
      {"normalize", "normalize=imagenet | M1:M2:M3/S1:S2:S3   (float images)", false,
       [](const std::string& a) -> Run {
         std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
         if (!a.empty() && a != "imagenet") {
           const auto halves = split(a, '/');
           if (halves.size() != 2) throw std::invalid_argument("normalize needs imagenet or MEANS/STDS");
           mean = numbers(halves[0]);
           std = numbers(halves[1]);
         }
         return fixed("{\"op\": \"normalize\", \"mean\": " + list(mean) + ", \"std\": " + list(std) + "}",
                      [mean, std](const Tensor& x, const Stream& s) { return F::normalize(x, mean, std, false, s); });
       }},
  };
  return all;
}

}  // namespace

std::vector<Step> parse_pipeline(const std::string& spec) {
  std::vector<Step> steps;
  for (const auto& item : split(spec, ',')) {
    const auto eq = item.find('=');
    std::string name = item.substr(0, eq);
    if (name == "horizontal_flip") name = "hflip";  // the older spelling, always applied
    if (name == "vertical_flip") name = "vflip";
    const std::string arg = eq == std::string::npos ? ((name == "hflip" || name == "vflip") && name != item.substr(0, eq) ? "1" : "")
                                                    : item.substr(eq + 1);
    const Kind* kind = nullptr;
    for (const auto& k : kinds()) {
      if (name == k.name) kind = &k;
    }
    if (kind == nullptr) throw std::invalid_argument("unknown pipeline step '" + item + "'; known steps:\n" + pipeline_help());
    try {
      steps.push_back({item, kind->random, kind->make(arg)});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("pipeline step '" + item + "': " + e.what());
    } catch (const std::out_of_range&) {
      throw std::invalid_argument("pipeline step '" + item + "': number out of range");
    }
  }
  if (steps.empty()) throw std::invalid_argument("the pipeline SPEC has no steps");
  return steps;
}

std::string pipeline_help() {
  std::string out =
      "SPEC: comma-separated steps, applied in order to each image ([C, H, W] uint8 after decoding):\n";
  for (const auto& k : kinds()) out += std::string("  ") + k.help + (k.random ? "   [random]" : "") + "\n";
  out += "Random steps draw per-sample parameters from (--seed, the input's index): reruns are identical.\n";
  return out;
}

}  // namespace svtool
