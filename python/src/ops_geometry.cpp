// Bindings of the geometry ops with torchvision's names, parameters and defaults.
#include <nanobind/stl/string.h>

#include "args.hpp"
#include "op_call.hpp"

namespace svpy {

namespace {

using Mode = InterpolationMode;
using OptStream = std::optional<Stream>;
using functional::Points;

PaddingMode padding_mode_from_py(nb::handle obj) {
  if (!PyUnicode_Check(obj.ptr())) {
    throw Error(ErrorKind::Type, "pad", "padding_mode", "one of 'constant', 'edge', 'reflect', 'symmetric'",
                nb::cast<std::string>(nb::repr(obj)));
  }
  return padding_mode_from_string(nb::cast<std::string>(obj));
}

}  // namespace

void bind_geometry_ops(nb::module_& m) {
  m.def("resize", [](nb::handle inpt, nb::handle size, nb::handle interpolation, nb::handle max_size, nb::handle antialias,
                     nb::handle stream) {
        const auto sz = optional_int_list(size, "resize", "size");
        const Mode mode = interpolation_from_py(interpolation, Mode::Bilinear, "resize");
        const std::optional<std::int64_t> ms = max_size.is_none() ? std::nullopt : std::optional<std::int64_t>(nb::cast<std::int64_t>(max_size));
        const std::optional<bool> aa = antialias.is_none() ? std::nullopt : std::optional<bool>(nb::cast<bool>(antialias));
        return run_op("resize", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::resize(x, sz, mode, ms, aa, s); });
      }, nb::arg("inpt"), nb::arg("size").none(), nb::arg("interpolation").none() = nb::none(), nb::arg("max_size").none() = nb::none(),
      nb::arg("antialias").none() = true, nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "Resizes [..., H, W] (torchvision.transforms.v2.functional.resize; interpolation defaults to bilinear).");

  m.def("crop", [](nb::handle inpt, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width, nb::handle stream) {
        return run_op("crop", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::crop(x, top, left, height, width, s); });
      }, nb::arg("inpt"), nb::arg("top"), nb::arg("left"), nb::arg("height"), nb::arg("width"), nb::kw_only(),
      nb::arg("stream").none() = nb::none(), "The window [top, top+height) x [left, left+width); outside the image is zero.");

  m.def("center_crop", [](nb::handle inpt, nb::handle output_size, nb::handle stream) {
        const auto size = int_list(output_size, "center_crop", "output_size");
        return run_op("center_crop", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::center_crop(x, size, s); });
      }, nb::arg("inpt"), nb::arg("output_size"), nb::kw_only(), nb::arg("stream").none() = nb::none());

  m.def("resized_crop", [](nb::handle inpt, std::int64_t top, std::int64_t left, std::int64_t height, std::int64_t width, nb::handle size,
                           nb::handle interpolation, nb::handle antialias, nb::handle stream) {
        const auto sz = int_list(size, "resized_crop", "size");
        const Mode mode = interpolation_from_py(interpolation, Mode::Bilinear, "resized_crop");
        const std::optional<bool> aa = antialias.is_none() ? std::nullopt : std::optional<bool>(nb::cast<bool>(antialias));
        return run_op("resized_crop", inpt, stream, [&](const Tensor& x, const OptStream& s) {
          return functional::resized_crop(x, top, left, height, width, sz, mode, aa, s);
        });
      }, nb::arg("inpt"), nb::arg("top"), nb::arg("left"), nb::arg("height"), nb::arg("width"), nb::arg("size"),
      nb::arg("interpolation").none() = nb::none(), nb::arg("antialias").none() = true, nb::kw_only(), nb::arg("stream").none() = nb::none());

  m.def("five_crop", [](nb::handle inpt, nb::handle size, nb::handle stream) {
        const auto sz = int_list(size, "five_crop", "size");
        return run_op("five_crop", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::five_crop(x, sz, s); });
      }, nb::arg("inpt"), nb::arg("size"), nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "(top-left, top-right, bottom-left, bottom-right, center) crops.");

  m.def("ten_crop", [](nb::handle inpt, nb::handle size, bool vertical_flip, nb::handle stream) {
        const auto sz = int_list(size, "ten_crop", "size");
        return run_op("ten_crop", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::ten_crop(x, sz, vertical_flip, s); });
      }, nb::arg("inpt"), nb::arg("size"), nb::arg("vertical_flip") = false, nb::kw_only(), nb::arg("stream").none() = nb::none());

  m.def("pad", [](nb::handle inpt, nb::handle padding, nb::handle fill, nb::handle padding_mode, nb::handle stream) {
        const auto p = int_list(padding, "pad", "padding");
        const Fill f = fill_from_py(fill, "pad");
        const PaddingMode mode = padding_mode_from_py(padding_mode);
        return run_op("pad", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::pad(x, p, f, mode, s); });
      }, nb::arg("inpt"), nb::arg("padding"), nb::arg("fill").none() = nb::none(), nb::arg("padding_mode") = "constant", nb::kw_only(),
      nb::arg("stream").none() = nb::none());

  m.def("rotate", [](nb::handle inpt, double angle, nb::handle interpolation, bool expand, nb::handle center, nb::handle fill,
                     nb::handle stream) {
        const Mode mode = interpolation_from_py(interpolation, Mode::Nearest, "rotate");
        const auto c = optional_float_list(center, "rotate", "center");
        const Fill f = fill_from_py(fill, "rotate");
        return run_op("rotate", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::rotate(x, angle, mode, expand, c, f, s); });
      }, nb::arg("inpt"), nb::arg("angle"), nb::arg("interpolation").none() = nb::none(), nb::arg("expand") = false,
      nb::arg("center").none() = nb::none(), nb::arg("fill").none() = nb::none(), nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "Rotates counter-clockwise by `angle` degrees (interpolation defaults to nearest).");

  m.def("affine", [](nb::handle inpt, double angle, nb::handle translate, double scale, nb::handle shear, nb::handle interpolation,
                     nb::handle fill, nb::handle center, nb::handle stream) {
        if (!is_sequence_arg(translate)) throw Error(ErrorKind::Type, "affine", "translate", "a sequence (Argument translate should be a sequence)", nb::cast<std::string>(nb::repr(translate)));
        const auto t = float_list(translate, "affine", "translate");
        auto sh = float_list(shear, "affine", "shear");
        if (!is_sequence_arg(shear)) sh.push_back(0.0);  // torchvision: a single number shears along x only
        const Mode mode = interpolation_from_py(interpolation, Mode::Nearest, "affine");
        const Fill f = fill_from_py(fill, "affine");
        const auto c = optional_float_list(center, "affine", "center");
        return run_op("affine", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::affine(x, angle, t, scale, sh, mode, f, c, s); });
      }, nb::arg("inpt"), nb::arg("angle"), nb::arg("translate"), nb::arg("scale"), nb::arg("shear"),
      nb::arg("interpolation").none() = nb::none(), nb::arg("fill").none() = nb::none(), nb::arg("center").none() = nb::none(), nb::kw_only(),
      nb::arg("stream").none() = nb::none(), "Affine warp; `angle` is clockwise (interpolation defaults to nearest).");

  m.def("perspective", [](nb::handle inpt, nb::handle startpoints, nb::handle endpoints, nb::handle interpolation, nb::handle fill,
                          nb::handle coefficients, nb::handle stream) {
        const std::optional<Points> sp = startpoints.is_none() ? std::nullopt : std::optional<Points>(float_lists(startpoints, "perspective", "startpoints"));
        const std::optional<Points> ep = endpoints.is_none() ? std::nullopt : std::optional<Points>(float_lists(endpoints, "perspective", "endpoints"));
        const Mode mode = interpolation_from_py(interpolation, Mode::Bilinear, "perspective");
        const Fill f = fill_from_py(fill, "perspective");
        const auto co = optional_float_list(coefficients, "perspective", "coefficients");
        return run_op("perspective", inpt, stream, [&](const Tensor& x, const OptStream& s) { return functional::perspective(x, sp, ep, mode, f, co, s); });
      }, nb::arg("inpt"), nb::arg("startpoints").none(), nb::arg("endpoints").none(), nb::arg("interpolation").none() = nb::none(),
      nb::arg("fill").none() = nb::none(), nb::arg("coefficients").none() = nb::none(), nb::kw_only(), nb::arg("stream").none() = nb::none());

  m.def("elastic", [](nb::handle inpt, nb::handle displacement, nb::handle interpolation, nb::handle fill, nb::handle stream) {
        const Mode mode = interpolation_from_py(interpolation, Mode::Bilinear, "elastic");
        const Fill f = fill_from_py(fill, "elastic");
        OpCall call("elastic", inpt, stream);
        // None reaches functional::elastic as an undefined tensor: torchvision's TypeError. A
        // displacement on another device is moved to the image's, as torchvision does.
        const Tensor d = displacement.is_none() ? Tensor() : call.argument(displacement, "displacement");
        return call.wrap(functional::elastic(call.input(), d, mode, f, call.stream()));
      }, nb::arg("inpt"), nb::arg("displacement").none(), nb::arg("interpolation").none() = nb::none(), nb::arg("fill").none() = nb::none(),
      nb::kw_only(), nb::arg("stream").none() = nb::none(), "Displaces pixels by `displacement` [1, H, W, 2] (normalised units).");
}

}  // namespace svpy
