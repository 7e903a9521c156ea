// Bindings of the geometry ops with torchvision's names, parameters and defaults.
#include <algorithm>
#include <type_traits>

#include <nanobind/stl/array.h>
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

// A (min, max) or (height, width) pair argument of the batch samplers.
template <class T>
std::array<T, 2> pair_from_py(nb::handle obj, const char* op, const char* argument, const char* expected) {
  if constexpr (std::is_integral_v<T>) {
    // The common case, a tuple of two ints (a batch's sizes: one pair per image), without a list.
    PyObject* p = obj.ptr();
    if (PyTuple_CheckExact(p) && PyTuple_GET_SIZE(p) == 2 && PyLong_CheckExact(PyTuple_GET_ITEM(p, 0)) &&
        PyLong_CheckExact(PyTuple_GET_ITEM(p, 1))) {
      const long long a = PyLong_AsLongLong(PyTuple_GET_ITEM(p, 0)), b = PyLong_AsLongLong(PyTuple_GET_ITEM(p, 1));
      if (!PyErr_Occurred()) return {static_cast<T>(a), static_cast<T>(b)};
      PyErr_Clear();  // out of range: int_list says so
    }
  }
  const auto v = [&] {
    if constexpr (std::is_integral_v<T>) {
      return int_list(obj, op, argument);
    } else {
      return float_list(obj, op, argument);
    }
  }();
  if (v.size() != 2) throw Error(ErrorKind::Value, op, argument, expected, format_list(v));
  return {v[0], v[1]};
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

  m.def("resized_crop_batch", [](nb::handle images, nb::handle boxes, nb::handle size, nb::handle interpolation,
                                 nb::handle antialias, nb::handle hflip, nb::handle dtype, bool scale, nb::handle mean,
                                 nb::handle std, nb::handle window, bool channels_last, nb::handle stream) {
        // A list or tuple of [C, H, W] images, or one [N, C, H, W] tensor (imported once, its
        // images taken as views here: no Python object per image).
        const bool listed = PyList_Check(images.ptr()) || PyTuple_Check(images.ptr());
        const std::size_t count = listed ? nb::len(images) : 1;
        if (count == 0) throw Error(ErrorKind::Value, "resized_crop_batch", "images", "at least one image", "an empty list");
        const auto sz = int_list(size, "resized_crop_batch", "size");
        const Mode mode = interpolation_from_py(interpolation, Mode::Bilinear, "resized_crop_batch");
        const std::optional<bool> aa = antialias.is_none() ? std::nullopt : std::optional<bool>(nb::cast<bool>(antialias));
        BatchTail tail;
        if (!dtype.is_none()) tail.dtype = dtype_from_py(dtype, "resized_crop_batch", "dtype");
        tail.scale = scale;
        if (!mean.is_none()) tail.mean = float_list(mean, "resized_crop_batch", "mean");
        if (!std.is_none()) tail.std = float_list(std, "resized_crop_batch", "std");
        if (tail.mean.empty() != tail.std.empty()) {
          throw Error(ErrorKind::Value, "resized_crop_batch", "mean/std", "both or neither", "only one of them");
        }
        std::optional<BatchWindow> win;
        if (!window.is_none()) {
          const auto w = int_list(window, "resized_crop_batch", "window");
          if (w.size() != 4) {
            throw Error(ErrorKind::Value, "resized_crop_batch", "window", "(resize_h, resize_w, top, left)", format_list(w));
          }
          win = BatchWindow{w[0], w[1], w[2], w[3]};
        }
        // The first image decides the stream and the output's allocator; the others, the boxes and
        // the flips are arguments on its device.
        std::optional<OpCall> call;
        std::vector<Tensor> list;
        if (listed) {
          call.emplace("resized_crop_batch", images[0], stream, "images[0]");
          list.push_back(call->input());
          for (std::size_t i = 1; i < count; ++i) list.push_back(call->argument(images[i], "images"));
        } else {
          call.emplace("resized_crop_batch", images, stream, "images");
          const Tensor& batch = call->input();
          if (batch.dim() != 4 || batch.size(0) == 0) {
            throw Error(ErrorKind::Value, "resized_crop_batch", "images", "a non-empty [N, C, H, W] batch or a list of [C, H, W] images",
                        "a tensor of shape " + format_list(batch.shape()));
          }
          for (std::int64_t i = 0; i < batch.size(0); ++i) list.push_back(batch.select(0, i));
        }
        // Four ints: one box for every image; a bool: one flip for every image. Both stay on the
        // host (on CUDA they travel in the kernel arguments: nothing to fill or copy).
        Tensor b;
        if (PyList_Check(boxes.ptr()) || PyTuple_Check(boxes.ptr())) {
          const auto v = int_list(boxes, "resized_crop_batch", "boxes");
          if (v.size() != 4) {
            throw Error(ErrorKind::Value, "resized_crop_batch", "boxes", "an int64 [N, 4] tensor or 4 ints (top, left, height, width)",
                        format_list(v));
          }
          b = empty({4}, DType::Int64, Device::cpu());
          std::copy(v.begin(), v.end(), static_cast<std::int64_t*>(b.data()));
        } else {
          b = call->argument(boxes, "boxes");
        }
        std::optional<Tensor> f;
        if (PyBool_Check(hflip.ptr())) {
          f = empty({1}, DType::Bool, Device::cpu());
          *static_cast<bool*>(f->data()) = hflip.ptr() == Py_True;
        } else if (!hflip.is_none()) {
          f = call->argument(hflip, "hflip");
        }
        const MemoryFormat format = channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
        Tensor out;
        if (call->release_gil()) {
          nb::gil_scoped_release release;
          out = functional::resized_crop_batch(list, b, sz, mode, aa, f, tail, win, format, call->stream());
        } else {
          out = functional::resized_crop_batch(list, b, sz, mode, aa, f, tail, win, format, call->stream());
        }
        return call->wrap(out);
      }, nb::arg("images"), nb::arg("boxes"), nb::arg("size"), nb::arg("interpolation").none() = nb::none(),
      nb::arg("antialias").none() = true, nb::arg("hflip").none() = nb::none(), nb::arg("dtype").none() = nb::none(),
      nb::arg("scale") = true, nb::arg("mean").none() = nb::none(), nb::arg("std").none() = nb::none(),
      nb::arg("window").none() = nb::none(), nb::kw_only(), nb::arg("channels_last") = false,
      nb::arg("stream").none() = nb::none(),
      "Image i of `images` cropped to boxes[i] (top, left, height, width), resized to `size`, flipped horizontally "
      "where hflip[i], then optionally to_dtype(dtype, scale) and normalize(mean, std): one [N, C, H, W] result; "
      "one launch per 192 images on CUDA (two for downscales beyond ~20x).");

  m.def("_image_list_sizes", [](nb::handle images) -> nb::object {
        // A per-sample list batch's one host pass (its images' sizes, and that they share device,
        // dtype and channel count), through the C exchange of torch tensors: a C call per image
        // instead of five Python attribute reads (~0.65 us an image on the H200's host). None when
        // an item is not such a tensor or does not match: the caller's Python pass then says which.
        if (!PyList_Check(images.ptr()) && !PyTuple_Check(images.ptr())) return nb::none();
        const std::size_t n = nb::len(images);
        nb::list sizes;
        dl::Device device{};
        dl::DataType dtype{};
        std::int64_t channels = 0;
        for (std::size_t i = 0; i < n; ++i) {
          nb::handle x = images[i];
          const dl::ExchangeAPI* api = exchange_api_of(Py_TYPE(x.ptr()));
          if (api == nullptr || api->dltensor_from_py_object_no_sync == nullptr) return nb::none();
          dl::Tensor view;
          if (api->dltensor_from_py_object_no_sync(x.ptr(), &view) != 0) {
            PyErr_Clear();
            return nb::none();
          }
          if (view.ndim != 3) return nb::none();
          if (i == 0) {
            device = view.device;
            dtype = view.dtype;
            channels = view.shape[0];
          } else if (view.shape[0] != channels || view.device.device_type != device.device_type ||
                     view.device.device_id != device.device_id || view.dtype.code != dtype.code ||
                     view.dtype.bits != dtype.bits || view.dtype.lanes != dtype.lanes) {
            return nb::none();
          }
          sizes.append(nb::make_tuple(view.shape[1], view.shape[2]));
        }
        return std::move(sizes);
      }, nb::arg("images"),
      "Internal: [(H, W)] of a list of [C, H, W] torch tensors sharing device, dtype and channel count, or None.");

  m.def("resized_crop_boxes", [](nb::handle random, nb::sequence sizes, nb::handle scale, nb::handle ratio, nb::handle stream) {
        constexpr const char* op = "resized_crop_boxes";
        std::vector<std::array<std::int64_t, 2>> hw;
        hw.reserve(nb::len(sizes));
        for (nb::handle item : sizes) hw.push_back(pair_from_py<std::int64_t>(item, op, "sizes", "(height, width) pairs"));
        const auto sc = pair_from_py<double>(scale, op, "scale", "(min, max)");
        const auto ra = pair_from_py<double>(ratio, op, "ratio", "(min, max)");
        OpCall call(op, random, stream, "random");
        return call.wrap(functional::resized_crop_boxes(call.input(), hw, sc, ra, call.stream()));
      }, nb::arg("random"), nb::arg("sizes"), nb::arg("scale"), nb::arg("ratio"), nb::kw_only(),
      nb::arg("stream").none() = nb::none(),
      "RandomResizedCrop's boxes (top, left, height, width) for images of the given (height, width) sizes from "
      "uniform numbers random [N, 2 * attempts + 2] (float32): int64 [N, 4] on random's device, one launch on CUDA.");

  m.def("color_jitter_params", [](nb::handle random, nb::sequence ranges, nb::handle stream) {
        constexpr const char* op = "color_jitter_params";
        const char* names[4] = {"brightness", "contrast", "saturation", "hue"};
        if (nb::len(ranges) != 4) {
          throw Error(ErrorKind::Value, op, "ranges", "4 ranges (brightness, contrast, saturation, hue), each (min, max) or None",
                      std::to_string(nb::len(ranges)) + " items");
        }
        std::array<std::optional<std::array<double, 2>>, 4> r;
        for (std::size_t k = 0; k < 4; ++k) {
          nb::handle item = ranges[k];
          if (!item.is_none()) r[k] = pair_from_py<double>(item, op, names[k], "(min, max)");
        }
        OpCall call(op, random, stream, "random");
        const auto out = functional::color_jitter_params(call.input(), r, call.stream());
        return nb::make_tuple(call.wrap(out[0]), call.wrap(out[1]));
      }, nb::arg("random"), nb::arg("ranges"), nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "ColorJitter's per-image factors (float64 [N, 4]) and op order (int64 [N, 4]) from uniform numbers random "
      "[N, 8] (float32); ranges: brightness, contrast, saturation, hue, each (min, max) or None. One launch on CUDA.");

  m.def("color_jitter_batch", [](nb::handle images, nb::handle factors, nb::handle order, std::array<bool, 4> enabled,
                                 nb::handle dtype, bool scale, nb::handle mean, nb::handle std, nb::handle stream) {
        constexpr const char* op = "color_jitter_batch";
        BatchTail tail;
        if (!dtype.is_none()) tail.dtype = dtype_from_py(dtype, op, "dtype");
        tail.scale = scale;
        if (!mean.is_none()) tail.mean = float_list(mean, op, "mean");
        if (!std.is_none()) tail.std = float_list(std, op, "std");
        if (tail.mean.empty() != tail.std.empty()) throw Error(ErrorKind::Value, op, "mean/std", "both or neither", "only one of them");
        OpCall call(op, images, stream, "images");
        const Tensor f = call.argument(factors, "factors"), o = call.argument(order, "order");
        Tensor out;
        if (call.release_gil()) {
          nb::gil_scoped_release release;
          out = functional::color_jitter_batch(call.input(), f, o, enabled, tail, call.stream());
        } else {
          out = functional::color_jitter_batch(call.input(), f, o, enabled, tail, call.stream());
        }
        return call.wrap(out);
      }, nb::arg("images"), nb::arg("factors"), nb::arg("order"), nb::arg("enabled"), nb::kw_only(),
      nb::arg("dtype").none() = nb::none(), nb::arg("scale") = true, nb::arg("mean").none() = nb::none(),
      nb::arg("std").none() = nb::none(), nb::arg("stream").none() = nb::none(),
      "ColorJitter with each image's own factors [N, 4] (brightness, contrast, saturation, hue) and order [N, 4] "
      "(a permutation of 0-3 per image); enabled: which of the four ops apply; then, optionally, to_dtype(dtype, scale) "
      "and normalize(mean, std) in the same pass.");

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
