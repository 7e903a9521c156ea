// streamvision._C: the compiled half of the Python package.
#include "bindings.hpp"

#include <nanobind/stl/optional.h>

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
  m.def("get_num_threads", &streamvision::get_num_threads,
        "The number of threads a CPU op uses, the calling thread included: STREAMVISION_NUM_THREADS when it is "
        "set, else the machine's core count, until set_num_threads changes it.");
  m.def("set_num_threads", &streamvision::set_num_threads, nb::arg("n"),
        "Sets the number of threads (n >= 1, the calling thread included) that CPU ops started afterwards use, "
        "for the whole process, as torch.set_num_threads does for torch's ops; at most STREAMVISION_NUM_THREADS "
        "when it is set, else the machine's core count. An op on torch tensors also uses at most "
        "torch.get_num_threads(), as torch's own ops do (in DataLoader workers, 1); with numpy inputs in "
        "workers, call set_num_threads(1) from worker_init_fn. Results never depend on the thread count.");
  // streamvision's own CUDA memory pool (ops on torch tensors on torch's current stream use
  // torch's allocator instead; this pool serves streamvision tensors, streams of our own and
  // scratch).
  m.def("memory_allocated", [](std::optional<int> device) { return cuda_memory_stats(device.value_or(-1)).allocated; },
        nb::arg("device") = nb::none(),
        "Bytes of streamvision's own CUDA memory pool in live tensors and scratch on a device (None: the current "
        "one), as torch.cuda.memory_allocated says of PyTorch's allocator. 0 when CUDA is not used.");
  m.def("memory_reserved", [](std::optional<int> device) { return cuda_memory_stats(device.value_or(-1)).reserved; },
        nb::arg("device") = nb::none(),
        "Bytes streamvision's own CUDA memory pool holds from the driver on a device (None: the current one), "
        "cached free memory included, as torch.cuda.memory_reserved says of PyTorch's.");
  m.def("empty_cache", [] {
        nb::gil_scoped_release release;
        cuda_empty_cache();
      },
        "Returns the cached free memory of streamvision's own CUDA memory pool to the driver, as "
        "torch.cuda.empty_cache() does for PyTorch's; never waits for the GPU (memory freed behind queued work "
        "stays cached: synchronize first to release all of it).");
#if SV_PY_WITH_IO
  bind_io(m);
#else
  m.def("io_available", [] { return false; });
  m.def("io_gpu_decoder_available", [] { return false; });
#endif
}
