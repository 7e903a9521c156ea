// Bindings of the colour, filter, noise, erase and metadata ops with torchvision's names,
// parameters and defaults.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/vector.h>

#include "args.hpp"
#include "op_call.hpp"

namespace svpy {

namespace {

using OptStream = std::optional<Stream>;

// Binds op(inpt, <one float>) -> Tensor.
template <class Fn>
void def_factor(nb::module_& m, const char* name, const char* factor, Fn fn, const char* doc) {
  m.def(name, [name, fn](nb::handle inpt, double f, nb::handle stream) {
        return run_op(name, inpt, stream, [&](const Tensor& x, const OptStream& s) { return fn(x, f, s); });
      }, nb::arg("inpt"), nb::arg(factor), nb::kw_only(), nb::arg("stream").none() = nb::none(), doc);
}

// Binds op(inpt) -> Tensor.
template <class Fn>
void def_unary(nb::module_& m, const char* name, Fn fn, const char* doc) {
  m.def(name, [name, fn](nb::handle inpt, nb::handle stream) {
        return run_op(name, inpt, stream, [&](const Tensor& x, const OptStream& s) { return fn(x, s); });
      }, nb::arg("inpt"), nb::kw_only(), nb::arg("stream").none() = nb::none(), doc);
}

// The image shape facts without touching data (any tensor kind, no stream needed).
Tensor view_of(nb::handle inpt, const char* op) { return import_tensor(inpt, op, "inpt", std::nullopt).tensor; }

}  // namespace

void bind_color_ops(nb::module_& m) {
  m.def("rgb_to_grayscale", [](nb::handle inpt, int num_output_channels, nb::handle stream) {
        return run_op("rgb_to_grayscale", inpt, stream,
                      [&](const Tensor& x, const OptStream& s) { return functional::rgb_to_grayscale(x, num_output_channels, s); });
      }, nb::arg("inpt"), nb::arg("num_output_channels") = 1, nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "0.2989 R + 0.587 G + 0.114 B, 1 or 3 output channels.");
  def_unary(m, "grayscale_to_rgb", [](const Tensor& x, const OptStream& s) { return functional::grayscale_to_rgb(x, s); },
            "1 channel -> 3 copies.");
  def_factor(m, "adjust_brightness", "brightness_factor",
             [](const Tensor& x, double f, const OptStream& s) { return functional::adjust_brightness(x, f, s); }, "clamp(x * f).");
  def_factor(m, "adjust_saturation", "saturation_factor",
             [](const Tensor& x, double f, const OptStream& s) { return functional::adjust_saturation(x, f, s); },
             "Blend with the grayscale image.");
  def_factor(m, "adjust_contrast", "contrast_factor",
             [](const Tensor& x, double f, const OptStream& s) { return functional::adjust_contrast(x, f, s); },
             "Blend with the mean of the grayscale image (computed on the device).");
  def_factor(m, "adjust_sharpness", "sharpness_factor",
             [](const Tensor& x, double f, const OptStream& s) { return functional::adjust_sharpness(x, f, s); },
             "Blend with a 3x3 smoothed image.");
  def_factor(m, "adjust_hue", "hue_factor",
             [](const Tensor& x, double f, const OptStream& s) { return functional::adjust_hue(x, f, s); },
             "Rotates hue by hue_factor in [-0.5, 0.5].");
  m.def("adjust_gamma", [](nb::handle inpt, double gamma, double gain, nb::handle stream) {
        return run_op("adjust_gamma", inpt, stream,
                      [&](const Tensor& x, const OptStream& s) { return functional::adjust_gamma(x, gamma, gain, s); });
      }, nb::arg("inpt"), nb::arg("gamma"), nb::arg("gain") = 1.0, nb::kw_only(), nb::arg("stream").none() = nb::none());
  def_unary(m, "invert", [](const Tensor& x, const OptStream& s) { return functional::invert(x, s); }, "max - x (bitwise for ints).");
  m.def("posterize", [](nb::handle inpt, nb::handle bits_obj, nb::handle stream) {
        int overflow = 0;
        const long long b = PyLong_Check(bits_obj.ptr()) && !PyBool_Check(bits_obj.ptr())
                                ? PyLong_AsLongLongAndOverflow(bits_obj.ptr(), &overflow) : -1;
        if (!PyLong_Check(bits_obj.ptr()) || PyBool_Check(bits_obj.ptr()) || overflow != 0 || b < 0 || b > 8) {
          const std::string got = nb::cast<std::string>(nb::repr(bits_obj));
          throw Error(ErrorKind::Type, "posterize", "bits", "an integer in the range [0, 8]",
                      got + " (bits must be a positive integer in the range [0, 8], got " + got + " instead.)");
        }
        const int bits = static_cast<int>(b);
        return run_op("posterize", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::posterize(x, bits, s); });
      }, nb::arg("inpt"), nb::arg("bits"), nb::kw_only(), nb::arg("stream").none() = nb::none());
  def_factor(m, "solarize", "threshold",
             [](const Tensor& x, double t, const OptStream& s) { return functional::solarize(x, t, s); },
             "Inverts values >= threshold.");
  def_unary(m, "autocontrast", [](const Tensor& x, const OptStream& s) { return functional::autocontrast(x, s); },
            "Stretches each channel to the full range (min/max on the device).");
  def_unary(m, "equalize", [](const Tensor& x, const OptStream& s) { return functional::equalize(x, s); },
            "Histogram equalization per channel (histograms and LUTs on the device).");
  m.def("permute_channels", [](nb::handle inpt, nb::handle permutation, nb::handle stream) {
        const auto p = int_list(permutation, "permute_channels", "permutation");
        return run_op("permute_channels", inpt, stream,
                      [&](const Tensor& x, const OptStream& s) { return functional::permute_channels(x, p, s); });
      }, nb::arg("inpt"), nb::arg("permutation"), nb::kw_only(), nb::arg("stream").none() = nb::none());

  m.def("gaussian_blur", [](nb::handle inpt, nb::handle kernel_size, nb::handle sigma, nb::handle stream) {
        auto k = int_list(kernel_size, "gaussian_blur", "kernel_size");
        if (k.size() == 1) k.push_back(k[0]);
        if (!sigma.is_none() && !is_sequence_arg(sigma) && !PyFloat_Check(sigma.ptr()) && !PyLong_Check(sigma.ptr()) &&
            !nb::hasattr(sigma, "tolist")) {
          throw Error(ErrorKind::Type, "gaussian_blur", "sigma", "a float or a sequence of floats",
                      nb::cast<std::string>(nb::repr(sigma)) + " (sigma should be either float or sequence of floats)");
        }
        const auto sg = optional_float_list(sigma, "gaussian_blur", "sigma");
        return run_op("gaussian_blur", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::gaussian_blur(x, k, sg, s); });
      }, nb::arg("inpt"), nb::arg("kernel_size"), nb::arg("sigma").none() = nb::none(), nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "Gaussian blur; kernel_size is [kx, ky] (x first), odd and positive.");

  m.def("gaussian_noise", [](nb::handle inpt, double mean, double sigma, bool clip, Generator* generator, nb::handle stream) {
        OpCall call("gaussian_noise", inpt, stream);
        Tensor out;
        if (generator == nullptr && call.torch_input()) {
          // torchvision's normals: torch.randn_like from torch's generator (reproducible under
          // torch.manual_seed, graph-safe on CUDA as torch's own draws are), drawn only after
          // the arguments were checked, as torchvision does.
          const DType want = functional::gaussian_noise_normals_dtype(call.input(), sigma);
          nb::object torch = nb::module_::import_("torch");
          nb::object dtype = want == call.input().dtype() ? inpt.attr("dtype") : torch.attr("float32");
          nb::object normals = call.torch_on_op_stream([&] { return torch.attr("randn_like")(inpt, nb::arg("dtype") = dtype); });
          out = functional::gaussian_noise(call.input(), call.argument(normals, "normals"), mean, sigma, clip, call.stream());
        } else {
          out = functional::gaussian_noise(call.input(), mean, sigma, clip, generator, call.stream());
        }
        return call.wrap(out);
      }, nb::arg("inpt"), nb::arg("mean") = 0.0, nb::arg("sigma") = 0.1, nb::arg("clip") = true, nb::kw_only(),
      nb::arg("generator").none() = nb::none(), nb::arg("stream").none() = nb::none(),
      "x + N(mean, sigma) as torchvision computes it. Torch tensors draw their normals from torch's generator "
      "(torch.randn_like, so torch.manual_seed gives torchvision's values); other inputs, or an explicit "
      "streamvision Generator, draw from streamvision's counter-based generator (the same values on CPU and CUDA).");

  m.def("erase", [](nb::handle inpt, std::int64_t i, std::int64_t j, std::int64_t h, std::int64_t w, nb::handle v, bool inplace,
                    nb::handle stream) {
        OpCall call("erase", inpt, stream);
        if (inplace && call.read_only()) throw Error(ErrorKind::Value, "erase", "inpt", "a writable tensor for inplace=True", "a read-only array");
        const Tensor value = call.argument(v, "v");
        const Tensor out = functional::erase(call.input(), i, j, h, w, value, inplace, call.stream());
        if (inplace) call.mark_modified();
        return call.wrap(out);
      }, nb::arg("inpt"), nb::arg("i"), nb::arg("j"), nb::arg("h"), nb::arg("w"), nb::arg("v"), nb::arg("inplace") = false,
      nb::kw_only(), nb::arg("stream").none() = nb::none(), "Sets the window [i, i+h) x [j, j+w) to `v` (broadcast).");

  m.def("get_dimensions", [](nb::handle inpt) { return functional::get_dimensions(view_of(inpt, "get_dimensions")); }, nb::arg("inpt"),
        "[C, H, W].");
  m.def("get_num_channels", [](nb::handle inpt) { return functional::get_num_channels(view_of(inpt, "get_num_channels")); },
        nb::arg("inpt"));
  m.def("get_size", [](nb::handle inpt) { return functional::get_size(view_of(inpt, "get_size")); }, nb::arg("inpt"), "[H, W].");

  nb::class_<Generator>(m, "Generator",
                        "A seed and an offset for streamvision's counter-based (Philox) random numbers; created with "
                        "`seed`, the offset starting at 0.")
      .def(nb::init<std::uint64_t>(), nb::arg("seed") = Generator::kDefaultSeed)
      .def("manual_seed", [](Generator& g, std::uint64_t seed) -> Generator& {
             g.manual_seed(seed);
             return g;
           }, nb::arg("seed"), nb::rv_policy::reference)
      .def_prop_ro("seed", &Generator::seed)
      .def_prop_rw("offset", &Generator::offset, &Generator::set_offset);
  m.def("default_generator", &Generator::default_generator, nb::rv_policy::reference,
        "The process-wide Generator that gaussian_noise uses for non-torch inputs when no generator= is given.");
  m.def("manual_seed", [](std::uint64_t seed) { Generator::default_generator().manual_seed(seed); }, nb::arg("seed"),
        "Sets the default generator's `seed` (and its offset to 0). gaussian_noise draws from it for inputs that are not "
        "torch tensors; torch tensors and the random transforms draw from torch's generator (torch.manual_seed).");
}

}  // namespace svpy
