// Bindings of the foundation ops: flips, to_dtype, normalize, layout conversion.
#include <nanobind/stl/vector.h>

#include "args.hpp"
#include "op_call.hpp"

namespace svpy {


void bind_core_ops(nb::module_& m) {
  m.def("horizontal_flip", [](nb::handle inpt, nb::handle stream) {
        return run_op("horizontal_flip", inpt, stream, [](const Tensor& x, const std::optional<Stream>& s) {
          return functional::horizontal_flip(x, s);
        });
      }, nb::arg("inpt"), nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "Flips the last dim (torchvision.transforms.v2.functional.horizontal_flip).");

  m.def("vertical_flip", [](nb::handle inpt, nb::handle stream) {
        return run_op("vertical_flip", inpt, stream, [](const Tensor& x, const std::optional<Stream>& s) {
          return functional::vertical_flip(x, s);
        });
      }, nb::arg("inpt"), nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "Flips dim -2 (torchvision.transforms.v2.functional.vertical_flip).");

  m.def("to_dtype", [](nb::handle inpt, nb::handle dtype, bool scale, nb::handle stream) {
        const DType to = dtype_from_py(dtype, "to_dtype", "dtype");
        return run_op("to_dtype", inpt, stream, [&](const Tensor& x, const std::optional<Stream>& s) {
          return functional::to_dtype(x, to, scale, s);
        });
      }, nb::arg("inpt"), nb::arg("dtype") = "float32", nb::arg("scale") = false, nb::kw_only(),
      nb::arg("stream").none() = nb::none(),
      "Converts the dtype, scaling values to the new dtype's range when scale=True "
      "(torchvision.transforms.v2.functional.to_dtype).");

  m.def("normalize", [](nb::handle inpt, nb::handle mean, nb::handle std, bool inplace, nb::handle stream) {
        const std::vector<double> m_ = float_list(mean, "normalize", "mean");
        const std::vector<double> s_ = float_list(std, "normalize", "std");
        OpCall call("normalize", inpt, stream);
        if (inplace && call.read_only()) {
          throw Error(ErrorKind::Value, "normalize", "inpt", "a writable tensor for inplace=True", "a read-only array");
        }
        Tensor out;
        if (call.release_gil()) {
          nb::gil_scoped_release release;
          out = functional::normalize(call.input(), m_, s_, inplace, call.stream());
        } else {
          out = functional::normalize(call.input(), m_, s_, inplace, call.stream());
        }
        if (inplace) call.mark_modified();
        return call.wrap(out);
      }, nb::arg("inpt"), nb::arg("mean"), nb::arg("std"), nb::arg("inplace") = false, nb::kw_only(),
      nb::arg("stream").none() = nb::none(),
      "(inpt - mean[c]) / std[c] per channel for float images [..., C, H, W] "
      "(torchvision.transforms.v2.functional.normalize).");

  m.def("to_channels_last", [](nb::handle inpt, nb::handle stream) {
        return run_op("to_channels_last", inpt, stream, [](const Tensor& x, const std::optional<Stream>& s) {
          return functional::convert_layout(x, MemoryFormat::ChannelsLast, s);
        });
      }, nb::arg("inpt"), nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "A channels_last copy ([..., C, H, W] with C innermost); the input itself if already so.");

  m.def("to_contiguous", [](nb::handle inpt, nb::handle stream) {
        return run_op("to_contiguous", inpt, stream, [](const Tensor& x, const std::optional<Stream>& s) {
          return functional::convert_layout(x, MemoryFormat::Contiguous, s);
        });
      }, nb::arg("inpt"), nb::kw_only(), nb::arg("stream").none() = nb::none(),
      "A contiguous copy; the input itself if already contiguous.");
}

}  // namespace svpy
