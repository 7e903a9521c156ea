// streamvision._C: the compiled half of the Python package.
#include "bindings.hpp"

namespace svpy {
namespace {

// streamvision.UnsupportedDTypeError: a TypeError that says "no kernel for this dtype", so that
// callers (the torchvision backend) can fall back without parsing messages.
PyObject* unsupported_dtype_error = nullptr;

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const Error& e) {
    switch (e.kind()) {
      case ErrorKind::Type: PyErr_SetString(PyExc_TypeError, e.what()); break;
      case ErrorKind::Value: PyErr_SetString(PyExc_ValueError, e.what()); break;
      case ErrorKind::NotImplemented: PyErr_SetString(PyExc_NotImplementedError, e.what()); break;
      case ErrorKind::Runtime: PyErr_SetString(PyExc_RuntimeError, e.what()); break;
      case ErrorKind::UnsupportedDType: PyErr_SetString(unsupported_dtype_error, e.what()); break;
    }
  }
}

}  // namespace
}  // namespace svpy

NB_MODULE(_C, m) {
  using namespace svpy;
  m.doc() = "streamvision's compiled core: tensors, streams and image ops on the caller's current CUDA stream.";
  m.attr("__version__") = streamvision::version();  // the file VERSION, through CMake
  unsupported_dtype_error = PyErr_NewExceptionWithDoc(
      "streamvision.UnsupportedDTypeError", "No streamvision kernel for this (op, device, dtype).", PyExc_TypeError, nullptr);
  m.attr("UnsupportedDTypeError") = nb::handle(unsupported_dtype_error);
  nb::register_exception_translator(&translate);
  bind_dtypes(m);
  bind_streams(m);
  bind_tensor(m);
  bind_core_ops(m);
  bind_geometry_ops(m);
  bind_color_ops(m);
#if SV_PY_WITH_IO
  bind_io(m);
#else
  m.def("io_available", [] { return false; });
  m.def("io_gpu_decoder_available", [] { return false; });
#endif
}
