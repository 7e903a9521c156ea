// streamvision.Stream / Event, as_stream, the stream policy and PyTorch's stream as provider.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "bindings.hpp"

namespace svpy {

namespace {

bool g_framework_policy = true;

bool torch_provider(void* context, int device, StreamHandle* out) {
  const auto* api = static_cast<const dl::ExchangeAPI*>(context);
  void* stream = nullptr;
  if (api->current_work_stream(dl::kCUDA, device, &stream) != 0) {
    if (PyGILState_Check()) PyErr_Clear();
    return false;
  }
  *out = static_cast<StreamHandle>(stream);
  return true;
}

const dl::ExchangeAPI* torch_api() {
  PyObject* modules = PyImport_GetModuleDict();
  PyObject* torch = PyDict_GetItemString(modules, "torch");  // borrowed; null if not imported
  if (torch == nullptr) return nullptr;
  PyObject* tensor_type = PyObject_GetAttrString(torch, "Tensor");
  if (tensor_type == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  const dl::ExchangeAPI* api = PyType_Check(tensor_type) ? exchange_api_of(reinterpret_cast<PyTypeObject*>(tensor_type)) : nullptr;
  Py_DECREF(tensor_type);
  return api;
}

// `with stream:` guards of this thread, innermost last.
struct GuardEntry {
  Stream stream;
  std::unique_ptr<StreamGuard> guard;
};
thread_local std::vector<GuardEntry> t_with_guards;

std::optional<int> device_of(nb::handle obj) {
  if (nb::hasattr(obj, "device_id")) return nb::cast<int>(obj.attr("device_id"));  // CuPy
  if (nb::hasattr(obj, "device")) {
    nb::object d = obj.attr("device");
    if (nb::hasattr(d, "index") && !d.attr("index").is_none()) return nb::cast<int>(d.attr("index"));  // torch
    if (nb::hasattr(d, "id")) return nb::cast<int>(d.attr("id"));  // CuPy Device
    if (PyLong_Check(d.ptr())) return nb::cast<int>(d);
  }
  if (nb::hasattr(obj, "device_index")) return nb::cast<int>(obj.attr("device_index"));
  return std::nullopt;
}

// snprintf, not iostreams: on the H200 machine, formatting through std::ostream in this module
// crashed inside libstdc++'s locale code once torch was imported (docs/ARCHITECTURE.md, "Python
// layer"); the C formatter has no locale state to disagree about.
std::string describe(const Stream& s) {
  char text[128];
  std::snprintf(text, sizeof text, "streamvision.Stream(device=%d, handle=0x%llx%s)", s.device_index(),
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(s.handle())), s.is_owned() ? ", owned" : "");
  return text;
}

}  // namespace

bool framework_policy() { return g_framework_policy; }

void ensure_framework_provider() {
  if (!g_framework_policy || current_stream_provider() == &torch_provider) return;
  if (const dl::ExchangeAPI* api = torch_api()) set_current_stream_provider(&torch_provider, const_cast<dl::ExchangeAPI*>(api));
}

std::optional<Stream> torch_current_stream(const dl::ExchangeAPI* api, int device) {
  StreamHandle handle = nullptr;
  if (api == nullptr || !torch_provider(const_cast<dl::ExchangeAPI*>(api), device, &handle)) return std::nullopt;
  return Stream::borrow(handle, device);
}

Stream stream_from_py(nb::handle obj, std::optional<int> device) {
  if (nb::isinstance<Stream>(obj)) return nb::cast<Stream>(obj);
  const std::optional<int> owner_device = device ? device : device_of(obj);
  const int d = owner_device.value_or(cuda_current_device());
  if (nb::hasattr(obj, "__cuda_stream__")) {
    nb::object protocol = obj.attr("__cuda_stream__");
    if (PyCallable_Check(protocol.ptr())) protocol = protocol();
    nb::tuple pair = nb::cast<nb::tuple>(protocol);  // (version, handle)
    return Stream::borrow(reinterpret_cast<StreamHandle>(nb::cast<std::uintptr_t>(pair[1])), d);
  }
  if (nb::hasattr(obj, "cuda_stream")) {  // torch.cuda.Stream / ExternalStream
    return Stream::borrow(reinterpret_cast<StreamHandle>(nb::cast<std::uintptr_t>(obj.attr("cuda_stream"))), d);
  }
  if (nb::hasattr(obj, "ptr") && nb::hasattr(obj, "synchronize")) {  // cupy.cuda.Stream
    return Stream::borrow(reinterpret_cast<StreamHandle>(nb::cast<std::uintptr_t>(obj.attr("ptr"))), d);
  }
  if (PyLong_Check(obj.ptr())) {
    return Stream::borrow(reinterpret_cast<StreamHandle>(nb::cast<std::uintptr_t>(obj)), d);
  }
  throw Error(ErrorKind::Type, "as_stream", "stream",
              "a streamvision.Stream, torch.cuda.Stream, CuPy stream, object with __cuda_stream__, or int handle",
              nb::cast<std::string>(nb::str(nb::borrow(reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr()))))));
}

namespace {

// sv.Stream() hands out streams from a pool, as torch.cuda.Stream() does: kPooledStreams per
// (device, priority), created on first use, never destroyed, given out in turn. A stream that
// ran an op on torch tensors must outlive them (torch's allocator records an event on it when it
// frees them, maybe much later: op_call.cpp keeps such streams alive), so one stream per batch
// would otherwise keep every one ever made: about 16 KiB of device memory each on the H200.
constexpr std::size_t kPooledStreams = 32;

Stream pooled_stream(int device, int priority) {
  if (device < 0) device = cuda_current_device();
  struct Pool {
    std::vector<Stream> streams;
    std::size_t next = 0;
  };
  static std::mutex mutex;
  static auto* pools = new std::map<std::pair<int, int>, Pool>();  // never destroyed, as the streams
  std::lock_guard<std::mutex> lock(mutex);
  Pool& pool = (*pools)[{device, priority}];
  if (pool.streams.size() < kPooledStreams) {
    pool.streams.push_back(Stream::create(device, priority));
    return pool.streams.back();
  }
  return pool.streams[pool.next++ % kPooledStreams];
}

}  // namespace

void bind_streams(nb::module_& m) {
  nb::class_<Event>(m, "Event", "A CUDA event (record on a stream, wait on it from another).")
      .def("__init__", [](Event* self, bool enable_timing, std::optional<int> device) {
             new (self) Event(Event::create(device.value_or(-1), enable_timing));
           }, nb::arg("enable_timing") = false, nb::arg("device").none() = nb::none(),
           "Creates an event on `device` (default: the current CUDA device); `enable_timing` makes "
           "elapsed_time() available.")
      .def("record", [](const Event& e, nb::handle stream) {
             const Stream s = stream.is_none() ? (ensure_framework_provider(), Stream::current(e.device_index()))
                                               : stream_from_py(stream, e.device_index());
             e.record(s);
           }, nb::arg("stream").none() = nb::none(), "Records the event on `stream` (default: the current stream).")
      .def("synchronize", &Event::synchronize)
      .def("query", &Event::query)
      .def("elapsed_time", &Event::elapsed_ms, nb::arg("end"), "Milliseconds from this event to `end`.")
      .def_prop_ro("handle", [](const Event& e) { return reinterpret_cast<std::uintptr_t>(e.handle()); })
      .def_prop_ro("device", &Event::device_index);

  nb::class_<Stream>(m, "Stream", "A CUDA stream: created (owned) or borrowed from another library.")
      .def("__init__", [](Stream* self, std::optional<int> device, int priority) {
             new (self) Stream(pooled_stream(device.value_or(-1), priority));
           }, nb::arg("device").none() = nb::none(), nb::arg("priority") = 0,
           "A non-blocking stream on `device` (default: the current CUDA device) with `priority` (as "
           "cudaStreamCreateWithPriority: lower numbers are higher priorities; 0 is the default). Like "
           "torch.cuda.Stream(), it comes from a pool of 32 streams per device and priority, handed out in turn "
           "and never destroyed, so creating one per batch costs nothing; the 33rd is the 1st again.")
      .def_static("current", [](std::optional<int> device) {
             ensure_framework_provider();
             return Stream::current(device.value_or(-1));
           }, nb::arg("device").none() = nb::none(),
           "The stream ops on `device` run on now: the innermost `with stream:` of this thread, else (policy "
           "'framework') torch.cuda.current_stream(device), else the legacy default stream.")
      .def_static("default", [](std::optional<int> device) { return Stream::legacy_default(device.value_or(-1)); },
                  nb::arg("device").none() = nb::none(), "The legacy default stream of `device` (handle 0).")
      .def_prop_ro("handle", [](const Stream& s) { return reinterpret_cast<std::uintptr_t>(s.handle()); })
      .def_prop_ro("device", &Stream::device_index)
      .def_prop_ro("owned", &Stream::is_owned)
      .def("__cuda_stream__", [](const Stream& s) { return nb::make_tuple(0, reinterpret_cast<std::uintptr_t>(s.handle())); },
           "The CUDA stream protocol: (version, handle).")
      .def("synchronize", &Stream::synchronize, "Blocks the host until all work on the stream is done.")
      .def("query", &Stream::query, "True when all work submitted to the stream has completed.")
      .def("wait_stream", [](const Stream& s, nb::handle other) { s.wait(stream_from_py(other)); }, nb::arg("other"),
           "Makes future work on this stream wait for the work submitted to `other` so far.")
      .def("wait_event", [](const Stream& s, const Event& e) { s.wait(e); }, nb::arg("event"))
      .def("record_event", [](const Stream& s, std::optional<Event> event) {
             Event e = event ? *event : Event::create(s.device_index());
             e.record(s);
             return e;
           }, nb::arg("event").none() = nb::none())
      .def("__enter__", [](nb::handle self) {
             const Stream& s = nb::cast<const Stream&>(self);
             t_with_guards.push_back({s, std::make_unique<StreamGuard>(s)});
             return nb::borrow(self);
           }, nb::sig("def __enter__(self) -> Stream"), "Makes this the current stream of this thread until __exit__.")
      .def("__exit__", [](const Stream& s, nb::args) {
             if (t_with_guards.empty() || !(t_with_guards.back().stream == s)) {
               throw Error(ErrorKind::Runtime, "Stream.__exit__", "stream", "the innermost active `with stream:` of this thread",
                           describe(s) + " (streams must exit in reverse order of entry)");
             }
             t_with_guards.pop_back();
           })
      .def("__eq__", [](const Stream& a, nb::handle b) { return nb::isinstance<Stream>(b) && a == nb::cast<Stream>(b); })
      .def("__hash__", [](const Stream& s) {
             return static_cast<Py_hash_t>(reinterpret_cast<std::uintptr_t>(s.handle()) ^ (static_cast<std::uintptr_t>(s.device_index()) << 48));
           })
      .def("__repr__", &describe);

  m.def("as_stream", [](nb::handle obj, std::optional<int> device) { return stream_from_py(obj, device); }, nb::arg("obj"),
        nb::arg("device").none() = nb::none(),
        "Wraps `obj` (a torch.cuda.Stream/ExternalStream, CuPy stream, object with __cuda_stream__, streamvision.Stream "
        "or int handle) as a streamvision.Stream, without taking ownership; `device` is the device of an int handle "
        "(default: the current CUDA device).");

  m.def("set_stream_policy", [](const std::string& policy) {
        if (policy == "framework") {
          g_framework_policy = true;
          ensure_framework_provider();
        } else if (policy == "library") {
          g_framework_policy = false;
          if (current_stream_provider() == &torch_provider) set_current_stream_provider(nullptr, nullptr);
        } else {
          throw Error(ErrorKind::Value, "set_stream_policy", "policy", "'framework' or 'library'", "'" + policy + "'");
        }
      }, nb::arg("policy"),
      "Sets the stream `policy`. 'framework' (default): with no `with stream:` and no stream= argument, ops on a framework's tensors run on that "
      "framework's current stream (torch.cuda.current_stream). 'library': they run on streamvision's own current stream.");
  m.def("get_stream_policy", [] { return std::string(g_framework_policy ? "framework" : "library"); },
        "The current stream policy: 'framework' or 'library' (see set_stream_policy).");
  m.def("last_launch_stream", &last_launch_stream,
        "The stream of this thread's most recent CUDA launch by streamvision (for tests and debugging).");
  m.def("cuda_is_available", &cuda_is_available,
        "True when this build has the CUDA engine and the driver reports at least one device.");
  m.def("cuda_device_count", &cuda_device_count, "The number of CUDA devices (0 without CUDA).");
  m.def("built_with_cuda", &built_with_cuda, "True when the library was compiled with the CUDA engine.");
}

}  // namespace svpy
