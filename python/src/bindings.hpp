// Internal declarations shared by the binding translation units of streamvision._C.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>

#include "dlpack.hpp"
#include "streamvision/streamvision.hpp"

namespace svpy {

namespace nb = nanobind;
using namespace streamvision;

// ---- dtypes ---------------------------------------------------------------------------------
// Accepts "uint8", torch.uint8, numpy.uint8, numpy.dtype("uint8"), and our own names.
DType dtype_from_py(nb::handle obj, const char* op, const char* argument);
bool dtype_from_dlpack(const dl::DataType& t, DType& out);
dl::DataType dtype_to_dlpack(DType dtype);

// ---- the Python-visible tensor ---------------------------------------------------------------
// A streamvision tensor plus the stream after whose work its contents are valid (the stream of
// the op that produced it, or the stream it was imported on). DLPack and CUDA Array Interface
// exports synchronize consumers against that stream.
struct PyTensor {
  Tensor tensor;
  Stream ready;
};

// ---- imported inputs -------------------------------------------------------------------------
enum class Origin { Torch, StreamVision, DLPack, CudaArrayInterface, Buffer };

struct Imported {
  Tensor tensor;
  Origin origin = Origin::DLPack;
  const dl::ExchangeAPI* api = nullptr;  // set for inputs whose type has the C exchange API
  Stream ready;                          // the stream the data is valid on (CUDA imports)
  bool read_only = false;
};

// The C exchange API of a type (cached per type), or null when it has none.
const dl::ExchangeAPI* exchange_api_of(PyTypeObject* type);

// Imports `obj` without copying: through the C exchange API when its type has one (no sync,
// no allocation), else __dlpack__, __cuda_array_interface__ or the buffer protocol. For CUDA
// data the consumer stream named to the producer is `explicit_stream`, else the stream the op
// will run on (op_stream_for). Throws TypeError-kind Errors naming the object's type.
// With keep_alive, the tensor's owner holds a reference to `obj` (for tensors that outlive the
// call); without it, the fast path for PyTorch borrows the memory for the call only.
Imported import_tensor(nb::handle obj, const char* op, const char* argument,
                       const std::optional<Stream>& explicit_stream, bool keep_alive = false);

// The stream an op on a CUDA input runs on when none is given: a streamvision guard, else the
// current stream of the framework the input came from (policy "framework"), else
// Stream::current(device).
Stream op_stream_for(nb::handle obj, Origin origin, int device);

// The stream policy: true for "framework" (the default).
bool framework_policy();

// ---- streams ---------------------------------------------------------------------------------
// torch.cuda.Stream / ExternalStream, CuPy streams, objects with __cuda_stream__, streamvision
// Streams and integer handles, without taking ownership.
Stream stream_from_py(nb::handle obj, std::optional<int> device = std::nullopt);
// Installs PyTorch's current stream as the current-stream provider when the policy is
// "framework" and torch is imported (cheap after the first call).
void ensure_framework_provider();
// PyTorch's current stream of `device` through the exchange API, if torch is loaded.
std::optional<Stream> torch_current_stream(const dl::ExchangeAPI* api, int device);

// ---- exports ---------------------------------------------------------------------------------
nb::object make_pytensor(const Tensor& t, const Stream& ready);
// A DLPack 1.x managed tensor that shares `t`'s memory (its owner) until the consumer deletes it.
dl::ManagedTensorVersioned* export_versioned(const Tensor& t);

// ---- binding entry points (one per translation unit) -------------------------------------------
void bind_dtypes(nb::module_& m);
void bind_streams(nb::module_& m);
void bind_tensor(nb::module_& m);
void bind_core_ops(nb::module_& m);
void bind_geometry_ops(nb::module_& m);
void bind_color_ops(nb::module_& m);
#if SV_PY_WITH_IO
void bind_io(nb::module_& m);  // streamvision.io (builds with libjpeg and libpng)
#endif

}  // namespace svpy
