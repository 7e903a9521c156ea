// Importing tensors from Python objects without copying: the C exchange API (PyTorch), DLPack,
// the CUDA Array Interface and the buffer protocol.
#include <nanobind/stl/string.h>

#include <cstring>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace svpy {

namespace {

std::string py_type_name(nb::handle obj) {
  PyTypeObject* t = Py_TYPE(obj.ptr());
  nb::object module = nb::borrow(reinterpret_cast<PyObject*>(t)).attr("__module__");
  std::string name = t->tp_name;
  if (nb::isinstance<nb::str>(module) && name.find('.') == std::string::npos) {
    const std::string mod = nb::cast<std::string>(module);
    if (mod != "builtins") name = mod + "." + name;
  }
  return name;
}

[[noreturn]] void not_a_tensor(nb::handle obj, const char* op, const char* argument) {
  throw Error(ErrorKind::Type, op, argument,
              "a tensor (torch.Tensor, numpy.ndarray, streamvision.Tensor, or an object with __dlpack__, "
              "__cuda_array_interface__ or the buffer protocol)",
              py_type_name(obj));
}

// Releases a Python reference from any thread.
struct PyRef {
  PyObject* obj;
  void operator()(void*) const {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    Py_DECREF(obj);
  }
};

std::string dlpack_dtype_name(const dl::DataType& t) {
  const std::string bits = std::to_string(t.bits) + (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
  switch (t.code) {
    case dl::kInt: return "int" + bits;
    case dl::kUInt: return "uint" + bits;
    case dl::kFloat: return "float" + bits;
    case dl::kBfloat: return "bfloat" + bits;
    case 5: return "complex" + bits;
    case dl::kBool: return "bool" + bits;
    default: return "DLPack type code " + std::to_string(t.code) + " (" + bits + " bits)";
  }
}

// `what()` names the Python object in error messages; it is called only when there is an error
// (naming the type looks up its module: a cost on every op's path otherwise).
template <class What>
Tensor tensor_from_dl(const dl::Tensor& t, std::shared_ptr<void> owner, const char* op, const char* argument,
                      const What& what) {
  DType dtype;
  if (!dtype_from_dlpack(t.dtype, dtype)) {
    throw Error(ErrorKind::Type, op, argument, "a dtype streamvision supports (bool, (u)int8/16, int32/64, float16/32/64, bfloat16)",
                what() + " of dtype " + dlpack_dtype_name(t.dtype));
  }
  Device device;
  if (t.device.device_type == dl::kCPU || t.device.device_type == dl::kCUDAHost) {
    device = Device::cpu();
  } else if (t.device.device_type == dl::kCUDA || t.device.device_type == dl::kCUDAManaged) {
    device = Device::cuda(t.device.device_id);
  } else {
    throw Error(ErrorKind::Type, op, argument, "a CPU or CUDA tensor",
                what() + " on DLPack device type " + std::to_string(t.device.device_type));
  }
  if (t.ndim > kMaxRank) {
    throw Error(ErrorKind::Value, op, argument, "at most " + std::to_string(kMaxRank) + " dims",
                what() + " with " + std::to_string(t.ndim) + " dims");
  }
  Dims shape(std::span<const std::int64_t>(t.shape, static_cast<std::size_t>(t.ndim)));
  Dims strides = t.strides ? Dims(std::span<const std::int64_t>(t.strides, static_cast<std::size_t>(t.ndim)))
                           : contiguous_strides(shape);
  for (int d = 0; d < strides.size(); ++d) {
    if (strides[d] < 0) {
      throw Error(ErrorKind::Value, op, argument, "non-negative strides (make a copy of flipped views first)",
                  what() + " with strides " + strides.str());
    }
  }
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  return from_blob(data, shape, strides, dtype, device, std::move(owner));
}

nb::object cuda_stream_arg(const Stream& s) {
  // DLPack: 1 is the legacy default stream; 0 is not allowed for CUDA.
  if (s.handle() == nullptr) return nb::int_(1);
  return nb::int_(reinterpret_cast<std::uintptr_t>(s.handle()));
}

Imported import_dlpack(nb::handle obj, const char* op, const char* argument,
                       const std::optional<Stream>& explicit_stream) {
  nb::tuple device = nb::cast<nb::tuple>(obj.attr("__dlpack_device__")());
  const int device_type = nb::cast<int>(device[0]);
  const int device_id = nb::cast<int>(device[1]);
  Imported imported;
  imported.origin = Origin::DLPack;
  nb::object stream_arg = nb::none();
  if (device_type == dl::kCUDA || device_type == dl::kCUDAManaged) {
    imported.ready = explicit_stream ? *explicit_stream : op_stream_for(obj, Origin::DLPack, device_id);
    stream_arg = cuda_stream_arg(imported.ready);
  }
  nb::object capsule;
  try {
    capsule = obj.attr("__dlpack__")(nb::arg("stream") = stream_arg, nb::arg("max_version") = nb::make_tuple(1, 0));
  } catch (nb::python_error& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    capsule = obj.attr("__dlpack__")(nb::arg("stream") = stream_arg);  // a pre-1.0 producer
  }
  const std::string what = py_type_name(obj);
  if (PyCapsule_IsValid(capsule.ptr(), "dltensor_versioned")) {
    auto* mt = static_cast<dl::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
    PyCapsule_SetName(capsule.ptr(), "used_dltensor_versioned");
    if (mt->version.major != 1) {
      if (mt->deleter) mt->deleter(mt);
      throw Error(ErrorKind::Type, op, argument, "a DLPack 1.x tensor", what + " exported DLPack major version " + std::to_string(mt->version.major));
    }
    std::shared_ptr<void> owner(mt, [](void* p) {
      auto* m = static_cast<dl::ManagedTensorVersioned*>(p);
      if (!m->deleter) return;
      if (Py_IsInitialized()) {
        nb::gil_scoped_acquire gil;
        m->deleter(m);
      }
    });
    imported.tensor = tensor_from_dl(mt->dl_tensor, std::move(owner), op, argument, [&] { return what; });
    imported.read_only = (mt->flags & dl::kFlagReadOnly) != 0;
    return imported;
  }
  if (PyCapsule_IsValid(capsule.ptr(), "dltensor")) {
    auto* mt = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    std::shared_ptr<void> owner(mt, [](void* p) {
      auto* m = static_cast<dl::ManagedTensor*>(p);
      if (!m->deleter) return;
      if (Py_IsInitialized()) {
        nb::gil_scoped_acquire gil;
        m->deleter(m);
      }
    });
    imported.tensor = tensor_from_dl(mt->dl_tensor, std::move(owner), op, argument, [&] { return what; });
    return imported;
  }
  throw Error(ErrorKind::Type, op, argument, "__dlpack__ to return a DLPack capsule", what + " returned something else");
}

bool parse_typestr(const std::string& s, DType& out) {
  if (s.size() < 3) return false;
  const char kind = s[1];
  const int bytes = std::atoi(s.c_str() + 2);
  dl::DataType t{};
  t.lanes = 1;
  t.bits = static_cast<std::uint8_t>(bytes * 8);
  if (kind == 'f') t.code = dl::kFloat;
  else if (kind == 'i') t.code = dl::kInt;
  else if (kind == 'u') t.code = dl::kUInt;
  else if (kind == 'b') t.code = dl::kBool;
  else return false;
  return dtype_from_dlpack(t, out);
}

Imported import_cuda_array_interface(nb::handle obj, const char* op, const char* argument,
                                     const std::optional<Stream>& explicit_stream) {
  const std::string what = py_type_name(obj);
  nb::dict cai = nb::cast<nb::dict>(obj.attr("__cuda_array_interface__"));
  DType dtype;
  if (!parse_typestr(nb::cast<std::string>(cai["typestr"]), dtype)) {
    throw Error(ErrorKind::Type, op, argument, "a supported typestr", what + " with typestr " + nb::cast<std::string>(cai["typestr"]));
  }
  nb::tuple shape_t = nb::cast<nb::tuple>(cai["shape"]);
  Dims shape;
  for (nb::handle s : shape_t) shape.push_back(nb::cast<std::int64_t>(s));
  Dims strides = contiguous_strides(shape);
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    nb::tuple st = nb::cast<nb::tuple>(cai["strides"]);
    for (int d = 0; d < shape.size(); ++d) {
      const std::int64_t bytes = nb::cast<std::int64_t>(st[d]);
      if (bytes % static_cast<std::int64_t>(itemsize(dtype)) != 0) {
        throw Error(ErrorKind::Value, op, argument, "strides that are multiples of the element size", what);
      }
      strides[d] = bytes / static_cast<std::int64_t>(itemsize(dtype));
    }
  }
  nb::tuple data = nb::cast<nb::tuple>(cai["data"]);
  void* ptr = reinterpret_cast<void*>(nb::cast<std::uintptr_t>(data[0]));
  int device = cuda_device_of_pointer(ptr);
  if (device < 0) device = cuda_current_device();
  Imported imported;
  imported.origin = Origin::CudaArrayInterface;
  imported.read_only = nb::cast<bool>(data[1]);
  imported.ready = explicit_stream ? *explicit_stream : op_stream_for(obj, Origin::CudaArrayInterface, device);
  // Version 3: the producer's work on `stream` must complete before we use the data.
  if (cai.contains("stream") && !cai["stream"].is_none() && ptr != nullptr) {
    const std::uintptr_t producer = nb::cast<std::uintptr_t>(cai["stream"]);
    StreamHandle handle = producer == 1 ? nullptr : reinterpret_cast<StreamHandle>(producer);
    const Stream producer_stream = Stream::borrow(handle, device);
    if (!(producer_stream == imported.ready)) imported.ready.wait(producer_stream);
  }
  Py_INCREF(obj.ptr());
  std::shared_ptr<void> owner(obj.ptr(), PyRef{obj.ptr()});
  imported.tensor = from_blob(ptr, shape, strides, dtype, Device::cuda(device), std::move(owner));
  return imported;
}

bool parse_buffer_format(const char* format, Py_ssize_t itemsize, DType& out) {
  std::string f = format ? format : "B";
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '|')) f = f.substr(1);
  if (f.size() != 1) return false;
  const char c = f[0];
  dl::DataType t{};
  t.lanes = 1;
  t.bits = static_cast<std::uint8_t>(itemsize * 8);
  if (c == '?') t.code = dl::kBool;
  else if (c == 'e' || c == 'f' || c == 'd') t.code = dl::kFloat;
  else if (c == 'b' || c == 'h' || c == 'i' || c == 'l' || c == 'q') t.code = dl::kInt;
  else if (c == 'B' || c == 'H' || c == 'I' || c == 'L' || c == 'Q') t.code = dl::kUInt;
  else return false;
  return dtype_from_dlpack(t, out);
}

Imported import_buffer(nb::handle obj, const char* op, const char* argument) {
  auto* view = new Py_buffer();
  if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_RECORDS_RO) != 0) {
    delete view;
    PyErr_Clear();
    not_a_tensor(obj, op, argument);
  }
  std::shared_ptr<void> owner(view, [](void* p) {
    auto* v = static_cast<Py_buffer*>(p);
    if (Py_IsInitialized()) {
      nb::gil_scoped_acquire gil;
      PyBuffer_Release(v);
    }
    delete v;
  });
  DType dtype;
  if (!parse_buffer_format(view->format, view->itemsize, dtype)) {
    throw Error(ErrorKind::Type, op, argument, "a buffer of a supported element type",
                py_type_name(obj) + " with format '" + (view->format ? view->format : "") + "'");
  }
  Dims shape, strides;
  for (int d = 0; d < view->ndim; ++d) {
    shape.push_back(view->shape[d]);
    if (view->strides[d] % view->itemsize != 0) {
      throw Error(ErrorKind::Value, op, argument, "strides that are multiples of the element size", py_type_name(obj));
    }
    strides.push_back(view->strides[d] / view->itemsize);
  }
  Imported imported;
  imported.origin = Origin::Buffer;
  imported.read_only = view->readonly != 0;
  imported.tensor = from_blob(view->buf, shape, strides, dtype, Device::cpu(), std::move(owner));
  return imported;
}

}  // namespace

// The exchange API refuses tensors that DLPack cannot describe (a `meta` tensor, a device other
// than the CPU and CUDA) with the framework's own text and C++ stack; say it in the op's words.
[[noreturn]] void exchange_failed(nb::handle obj, const char* op, const char* argument) {
  nb::python_error framework_error;  // takes the pending Python error
  std::string device;
  if (PyObject* d = PyObject_GetAttrString(obj.ptr(), "device")) {
    if (PyObject* text = PyObject_Str(d)) {
      if (const char* utf8 = PyUnicode_AsUTF8(text)) device = utf8;
      Py_DECREF(text);
    }
    Py_DECREF(d);
  }
  PyErr_Clear();
  if (!device.empty() && device.rfind("cpu", 0) != 0 && device.rfind("cuda", 0) != 0) {
    throw Error(ErrorKind::Type, op, argument, "a CPU or CUDA tensor", py_type_name(obj) + " on device '" + device + "'");
  }
  throw framework_error;
}

const dl::ExchangeAPI* exchange_api_of(PyTypeObject* type) {
  // Type objects live as long as the process in practice; the GIL guards this cache.
  static std::vector<std::pair<PyTypeObject*, const dl::ExchangeAPI*>> cache;
  for (const auto& [t, api] : cache) {
    if (t == type) return api;
  }
  const dl::ExchangeAPI* api = nullptr;
  PyObject* capsule = PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__dlpack_c_exchange_api__");
  if (capsule == nullptr) {
    PyErr_Clear();
  } else {
    if (PyCapsule_IsValid(capsule, "dlpack_exchange_api")) {
      const auto* candidate = static_cast<const dl::ExchangeAPI*>(PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
      // The table's layout is that of major version 1; walk back to it if a newer one is first.
      for (auto* h = reinterpret_cast<const dl::ExchangeAPIHeader*>(candidate); h != nullptr; h = h->prev_api) {
        if (h->version.major == 1) {
          api = reinterpret_cast<const dl::ExchangeAPI*>(h);
          break;
        }
      }
    }
    Py_DECREF(capsule);
  }
  cache.emplace_back(type, api);
  return api;
}

Imported import_tensor(nb::handle obj, const char* op, const char* argument,
                       const std::optional<Stream>& explicit_stream, bool keep_alive) {
  if (nb::inst_check(obj) && nb::isinstance<PyTensor>(obj)) {
    const PyTensor& t = nb::cast<const PyTensor&>(obj);
    Imported imported;
    imported.tensor = t.tensor;
    imported.origin = Origin::StreamVision;
    imported.ready = t.ready;
    return imported;
  }
  if (const dl::ExchangeAPI* api = exchange_api_of(Py_TYPE(obj.ptr()))) {
    static PyObject* requires_grad = PyUnicode_InternFromString("requires_grad");
    PyObject* rg = PyObject_GetAttr(obj.ptr(), requires_grad);
    if (rg == nullptr) {
      PyErr_Clear();
    } else {
      const bool needs_grad = rg == Py_True;
      Py_DECREF(rg);
      if (needs_grad) {
        throw Error(ErrorKind::Runtime, op, argument, "a tensor that does not require grad (streamvision ops are not differentiable; use .detach())",
                    "a tensor with requires_grad=True");
      }
    }
    Imported imported;
    imported.origin = Origin::Torch;
    imported.api = api;
    if (api->dltensor_from_py_object_no_sync != nullptr) {
      // Non-owning and allocation-free: the caller holds `obj` for the whole call.
      dl::Tensor view;
      if (api->dltensor_from_py_object_no_sync(obj.ptr(), &view) != 0) exchange_failed(obj, op, argument);
      std::shared_ptr<void> owner;
      if (keep_alive) {
        Py_INCREF(obj.ptr());
        owner = std::shared_ptr<void>(obj.ptr(), PyRef{obj.ptr()});
      }
      imported.tensor = tensor_from_dl(view, std::move(owner), op, argument, [&] { return py_type_name(obj); });
    } else {
      dl::ManagedTensorVersioned* mt = nullptr;
      if (api->managed_tensor_from_py_object_no_sync(obj.ptr(), &mt) != 0) exchange_failed(obj, op, argument);
      std::shared_ptr<void> owner(mt, [](void* p) {
        auto* m = static_cast<dl::ManagedTensorVersioned*>(p);
        if (m->deleter) m->deleter(m);
      });
      imported.tensor = tensor_from_dl(mt->dl_tensor, std::move(owner), op, argument, [&] { return py_type_name(obj); });
    }
    return imported;
  }
  if (nb::hasattr(obj, "__dlpack__") && nb::hasattr(obj, "__dlpack_device__")) {
    return import_dlpack(obj, op, argument, explicit_stream);
  }
  if (nb::hasattr(obj, "__cuda_array_interface__")) return import_cuda_array_interface(obj, op, argument, explicit_stream);
  if (PyObject_CheckBuffer(obj.ptr())) return import_buffer(obj, op, argument);
  not_a_tensor(obj, op, argument);
}

Stream op_stream_for(nb::handle obj, Origin origin, int device) {
  const Stream guarded = guard_stream(device);
  if (guarded.is_valid()) return guarded;
  if (framework_policy() && origin != Origin::Torch && origin != Origin::StreamVision) {
    // CuPy's current stream for CuPy arrays.
    nb::object module = nb::borrow(reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()))).attr("__module__");
    if (nb::isinstance<nb::str>(module) && nb::cast<std::string>(module).rfind("cupy", 0) == 0) {
      nb::object cupy_stream = nb::module_::import_("cupy").attr("cuda").attr("get_current_stream")(device);
      return Stream::borrow(reinterpret_cast<StreamHandle>(nb::cast<std::uintptr_t>(cupy_stream.attr("ptr"))), device);
    }
  }
  if (origin == Origin::Torch) ensure_framework_provider();
  return Stream::current(device);
}

}  // namespace svpy
