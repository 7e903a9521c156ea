// streamvision.Tensor: a Python view of a streamvision tensor, exporting DLPack (with the
// array API's stream handshake) and the CUDA Array Interface v3; and as_tensor().
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>
#include <vector>

#include "bindings.hpp"

namespace svpy {

namespace {

// What a DLPack capsule owns: a tensor (sharing the memory's owner) and its shape and strides.
struct ExportContext {
  Tensor tensor;
  std::int64_t shape[kMaxRank];
  std::int64_t strides[kMaxRank];
  dl::ManagedTensorVersioned versioned;
  dl::ManagedTensor legacy;
};

void fill_dl(ExportContext& ctx, dl::Tensor& t) {
  const Tensor& x = ctx.tensor;
  for (int d = 0; d < x.dim(); ++d) {
    ctx.shape[d] = x.shape()[d];
    ctx.strides[d] = x.strides()[d];
  }
  t.data = x.data();
  t.device = x.device().is_cuda() ? dl::Device{dl::kCUDA, x.device().index} : dl::Device{dl::kCPU, 0};
  t.ndim = x.dim();
  t.dtype = dtype_to_dlpack(x.dtype());
  t.shape = ctx.shape;
  t.strides = ctx.strides;
  t.byte_offset = 0;
}

// Our deleters touch no Python state, so consumers may call them from any thread.
void delete_versioned(dl::ManagedTensorVersioned* self) { delete static_cast<ExportContext*>(self->manager_ctx); }
void delete_legacy(dl::ManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); }

void capsule_destructor_versioned(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {  // never consumed
    auto* mt = static_cast<dl::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    mt->deleter(mt);
  }
}

void capsule_destructor_legacy(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* mt = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    mt->deleter(mt);
  }
}

// Makes `consumer` wait for the work that produced the tensor (array API __dlpack__ rules).
void order_consumer(const PyTensor& t, nb::handle stream) {
  if (!t.tensor.device().is_cuda()) {
    if (!stream.is_none() && nb::cast<std::intptr_t>(stream) != -1) {
      throw nb::value_error("__dlpack__: stream must be None for CPU tensors");
    }
    return;
  }
  std::intptr_t value = stream.is_none() ? 1 : nb::cast<std::intptr_t>(stream);
  if (value == -1) return;  // the consumer asked for no synchronization
  if (value == 0) throw nb::value_error("__dlpack__: stream=0 is ambiguous for CUDA; use 1 (legacy default) or 2 (per-thread default)");
  const int device = t.tensor.device().index;
  // 1 is the legacy default stream; 2 is the per-thread default stream (cudaStreamPerThread).
  const Stream consumer = Stream::borrow(value == 1 ? nullptr : reinterpret_cast<StreamHandle>(value), device);
  const Stream producer = t.ready.is_valid() ? t.ready : Stream::legacy_default(device);
  if (consumer == producer) return;
  const Event done = Event::create(device);
  done.record(producer);
  consumer.wait(done);
}

nb::object dlpack(const PyTensor& self, nb::handle stream, nb::handle max_version, nb::handle dl_device, nb::handle copy) {
  Tensor tensor = self.tensor;
  const bool want_copy = !copy.is_none() && nb::cast<bool>(copy);
  const bool forbid_copy = !copy.is_none() && !nb::cast<bool>(copy);
  if (!dl_device.is_none()) {
    nb::tuple d = nb::cast<nb::tuple>(dl_device);
    const int type = nb::cast<int>(d[0]), id = nb::cast<int>(d[1]);
    const Device target = type == dl::kCUDA ? Device::cuda(id) : Device::cpu();
    if (type != dl::kCPU && type != dl::kCUDA) {
      throw nb::buffer_error("__dlpack__: dl_device must be a CPU or CUDA device");
    }
    if (!(target == tensor.device())) {
      if (forbid_copy) throw nb::buffer_error("__dlpack__: dl_device differs from the tensor's device and copy=False");
      order_consumer(self, nb::int_(-1));
      tensor = to_device(tensor, target, tensor.device().is_cuda() ? std::optional<Stream>(self.ready.is_valid() ? self.ready : Stream::legacy_default(tensor.device().index)) : std::nullopt);
    }
  }
  if (want_copy && tensor.data() == self.tensor.data()) {
    Tensor fresh = empty_like(tensor, std::nullopt, self.ready.is_valid() ? std::optional<Stream>(self.ready) : std::nullopt);
    copy_(fresh, tensor, self.ready.is_valid() ? std::optional<Stream>(self.ready) : std::nullopt);
    tensor = fresh;
  }
  if (tensor.device() == self.tensor.device()) order_consumer(self, stream);

  auto* ctx = new ExportContext{};
  ctx->tensor = tensor;
  bool versioned = false;
  if (!max_version.is_none()) versioned = nb::cast<int>(nb::cast<nb::tuple>(max_version)[0]) >= 1;
  if (versioned) {
    ctx->versioned.version = {1, 1};
    ctx->versioned.manager_ctx = ctx;
    ctx->versioned.deleter = &delete_versioned;
    ctx->versioned.flags = want_copy ? dl::kFlagIsCopied : 0;
    fill_dl(*ctx, ctx->versioned.dl_tensor);
    return nb::steal(PyCapsule_New(&ctx->versioned, "dltensor_versioned", &capsule_destructor_versioned));
  }
  ctx->legacy.manager_ctx = ctx;
  ctx->legacy.deleter = &delete_legacy;
  fill_dl(*ctx, ctx->legacy.dl_tensor);
  return nb::steal(PyCapsule_New(&ctx->legacy, "dltensor", &capsule_destructor_legacy));
}

nb::dict cuda_array_interface(const PyTensor& self) {
  const Tensor& t = self.tensor;
  if (!t.device().is_cuda()) throw nb::attribute_error("__cuda_array_interface__: the tensor is on the CPU");
  const char* typestr = nullptr;
  switch (t.dtype()) {
    case DType::Bool: typestr = "|b1"; break;
    case DType::UInt8: typestr = "|u1"; break;
    case DType::Int8: typestr = "|i1"; break;
    case DType::UInt16: typestr = "<u2"; break;
    case DType::Int16: typestr = "<i2"; break;
    case DType::Int32: typestr = "<i4"; break;
    case DType::Int64: typestr = "<i8"; break;
    case DType::Float16: typestr = "<f2"; break;
    case DType::Float32: typestr = "<f4"; break;
    case DType::Float64: typestr = "<f8"; break;
    case DType::BFloat16: throw nb::attribute_error("__cuda_array_interface__: bfloat16 has no typestr; use DLPack");
  }
  nb::list shape, strides;
  for (int d = 0; d < t.dim(); ++d) {
    shape.append(t.shape()[d]);
    strides.append(t.strides()[d] * static_cast<std::int64_t>(t.itemsize()));
  }
  nb::dict cai;
  cai["shape"] = nb::tuple(shape);
  cai["typestr"] = typestr;
  cai["data"] = nb::make_tuple(reinterpret_cast<std::uintptr_t>(t.data()), false);
  cai["strides"] = t.is_contiguous() ? nb::none() : nb::object(nb::tuple(strides));
  cai["version"] = 3;
  // v3: the consumer synchronizes with this stream (1 is the legacy default stream).
  const Stream ready = self.ready.is_valid() ? self.ready : Stream::legacy_default(t.device().index);
  cai["stream"] = ready.handle() == nullptr ? std::uintptr_t{1} : reinterpret_cast<std::uintptr_t>(ready.handle());
  return cai;
}

nb::tuple to_tuple(std::span<const std::int64_t> v) {
  nb::list l;
  for (auto x : v) l.append(x);
  return nb::tuple(l);
}

// ---- pickling ---------------------------------------------------------------------------------
// A CPU tensor pickles as (dtype name, shape, strides, bytes): its elements copied densely in the
// tensor's own stride order (channels_last stays channels_last; gaps of a slice and the repeats
// of an expanded dim are dropped). A CUDA tensor refuses: reading it on the host would be a host
// synchronisation hidden inside pickle, which nothing else in streamvision does.

Tensor dense_host_copy(const Tensor& t) {
  if (t.is_non_overlapping_and_dense() && t.numel() > 0) {
    const Dims shape(t.shape());
    // Dense already: the bytes from the lowest address on are the elements (no copy needed).
    if (Dims(t.strides()) == dense_strides_like(shape, t.strides())) return t;
  }
  Tensor out = empty_like(t);
  copy_(out, t);
  return out;
}

nb::tuple reduce_tensor(const PyTensor& self) {
  const Tensor& t = self.tensor;
  if (!t.device().is_cpu()) {
    throw nb::type_error(("cannot pickle a streamvision.Tensor on " + t.device().str() +
                          ": pickling would copy it to the host, a host synchronisation that streamvision never "
                          "makes implicitly; copy it to the CPU first (e.g. torch.from_dlpack(t).cpu()) and pickle that")
                             .c_str());
  }
  const Tensor dense = dense_host_copy(t);
  const nb::bytes data(static_cast<const char*>(dense.data()), dense.nbytes());
  nb::object rebuild = nb::module_::import_("streamvision._tensor_pickle").attr("rebuild_tensor");
  return nb::make_tuple(rebuild, nb::make_tuple(std::string(dtype_name(t.dtype())), to_tuple(dense.shape()),
                                                to_tuple(dense.strides()), data));
}

Dims dims_from(const std::vector<std::int64_t>& v, const char* argument) {
  if (v.size() > static_cast<std::size_t>(kMaxRank)) {
    throw Error(ErrorKind::Value, "streamvision.Tensor unpickling", argument, "at most 8 dims", std::to_string(v.size()));
  }
  return Dims(std::span<const std::int64_t>(v));
}

nb::object tensor_from_pickle(const std::string& dtype, const std::vector<std::int64_t>& shape,
                              const std::vector<std::int64_t>& strides, nb::bytes data) {
  DType d = DType::UInt8;
  bool known = false;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (dtype == dtype_name(static_cast<DType>(i))) {
      d = static_cast<DType>(i);
      known = true;
    }
  }
  if (!known) throw Error(ErrorKind::Value, "streamvision.Tensor unpickling", "dtype", "a dtype name", dtype);
  Tensor t = empty_strided(dims_from(shape, "shape"), dims_from(strides, "strides"), d, Device::cpu());
  if (t.numel() > 0 && !(Dims(t.strides()) == dense_strides_like(Dims(t.shape()), t.strides()))) {
    throw Error(ErrorKind::Value, "streamvision.Tensor unpickling", "strides", "dense strides", Dims(t.strides()).str());
  }
  if (data.size() != t.nbytes()) {
    throw Error(ErrorKind::Value, "streamvision.Tensor unpickling", "data", std::to_string(t.nbytes()) + " bytes",
                std::to_string(data.size()) + " bytes");
  }
  if (t.nbytes() > 0) std::memcpy(t.data(), data.c_str(), t.nbytes());
  return make_pytensor(t, Stream());
}

}  // namespace

dl::ManagedTensorVersioned* export_versioned(const Tensor& t) {
  auto* ctx = new ExportContext{};
  ctx->tensor = t;
  ctx->versioned.version = {1, 1};
  ctx->versioned.manager_ctx = ctx;
  ctx->versioned.deleter = &delete_versioned;
  ctx->versioned.flags = 0;
  fill_dl(*ctx, ctx->versioned.dl_tensor);
  return &ctx->versioned;
}

nb::object make_pytensor(const Tensor& t, const Stream& ready) {
  return nb::cast(PyTensor{t, ready}, nb::rv_policy::move);
}

void bind_tensor(nb::module_& m) {
  nb::class_<PyTensor>(m, "Tensor",
                       "A strided view of CPU or CUDA memory, exported zero-copy through DLPack and the CUDA Array "
                       "Interface. Create one with streamvision.as_tensor().")
      .def_prop_ro("shape", [](const PyTensor& t) { return to_tuple(t.tensor.shape()); })
      .def_prop_ro("strides", [](const PyTensor& t) { return to_tuple(t.tensor.strides()); }, "Strides in elements.")
      .def_prop_ro("dtype", [](const PyTensor& t) { return t.tensor.dtype(); })
      .def_prop_ro("device", [](const PyTensor& t) { return t.tensor.device().str(); })
      .def_prop_ro("ndim", [](const PyTensor& t) { return t.tensor.dim(); })
      .def_prop_ro("numel", [](const PyTensor& t) { return t.tensor.numel(); })
      .def_prop_ro("data_ptr", [](const PyTensor& t) { return reinterpret_cast<std::uintptr_t>(t.tensor.data()); })
      .def_prop_ro("ready_stream", [](const PyTensor& t) { return t.ready; },
                   "The stream after whose work the contents are valid.")
      .def("is_contiguous", [](const PyTensor& t) { return t.tensor.is_contiguous(); })
      .def("is_channels_last", [](const PyTensor& t) { return t.tensor.is_channels_last(); })
      .def("__dlpack__", &dlpack, nb::kw_only(), nb::arg("stream").none() = nb::none(), nb::arg("max_version").none() = nb::none(),
           nb::arg("dl_device").none() = nb::none(), nb::arg("copy").none() = nb::none())
      .def("__dlpack_device__", [](const PyTensor& t) {
             return t.tensor.device().is_cuda() ? nb::make_tuple(int{dl::kCUDA}, t.tensor.device().index)
                                                : nb::make_tuple(int{dl::kCPU}, 0);
           })
      .def_prop_ro("__cuda_array_interface__", &cuda_array_interface)
      .def("__reduce__", &reduce_tensor,
           "CPU tensors pickle (dtype, shape, strides and a dense copy of the elements); CUDA tensors refuse "
           "with a TypeError, since reading them would synchronise the host.")
      .def("__repr__", [](const PyTensor& t) {
        std::string s = t.tensor.str();
        return "streamvision." + s;
      });

  m.def("_tensor_from_pickle", &tensor_from_pickle, nb::arg("dtype"), nb::arg("shape"), nb::arg("strides"),
        nb::arg("data"), "Rebuilds a pickled CPU streamvision.Tensor (see Tensor.__reduce__).");

  m.def("as_tensor", [](nb::handle obj, nb::handle stream) {
        if (nb::isinstance<PyTensor>(obj)) return nb::borrow<nb::object>(obj);
        const std::optional<Stream> explicit_stream = stream.is_none() ? std::nullopt : std::optional<Stream>(stream_from_py(stream));
        Imported imported = import_tensor(obj, "as_tensor", "obj", explicit_stream, /*keep_alive=*/true);
        Stream ready = imported.ready;
        if (imported.tensor.device().is_cuda() && !ready.is_valid()) {
          ready = explicit_stream ? *explicit_stream : op_stream_for(obj, imported.origin, imported.tensor.device().index);
        }
        return make_pytensor(imported.tensor, ready);
      }, nb::arg("obj"), nb::arg("stream").none() = nb::none(),
      "Views `obj` as a streamvision.Tensor without copying (same data pointer). Accepts any DLPack producer "
      "(torch, CuPy, JAX, numpy), __cuda_array_interface__ objects and the buffer protocol. For CUDA data the "
      "producer is told the stream the data will be used on (`stream`, default: the current stream), so it "
      "orders its pending work first. The tensor keeps `obj`'s memory alive.");
}

}  // namespace svpy
