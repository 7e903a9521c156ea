#include "op_call.hpp"

#include "core/small_sort.hpp"

#include <nanobind/stl/string.h>

#include <numeric>
#include <vector>
#include <string>

namespace svpy {

namespace {

// Output memory from PyTorch's allocator, held until handed to PyTorch as the result.
struct ManagedState {
  dl::ManagedTensorVersioned* mt = nullptr;
  bool released = false;  // ownership moved to a torch.Tensor
  int rank = 0;
  int order[kMaxRank] = {};  // memory order: order[i] is the logical dim at memory position i
  Dims shape, strides;        // the tensor allocated (logical order)
};

struct ManagedOwner {
  std::shared_ptr<ManagedState> state;
  void operator()(void*) const {
    if (!state->released && state->mt->deleter) state->mt->deleter(state->mt);
  }
};

struct ErrorSink {
  std::string message;
};

void collect_error(void* ctx, const char* kind, const char* message) {
  auto* sink = static_cast<ErrorSink*>(ctx);
  sink->message = std::string(kind ? kind : "Error") + ": " + (message ? message : "");
}

// PyTorch's allocator records an event on every stream a tensor was record_stream-ed on when it
// frees the tensor, possibly long after the op. A stream we created must therefore outlive any
// such tensor: once used that way it stays alive until the process exits (streams used this way
// are few; found on the H200, where freeing the input after its stream died aborted in torch).
void keep_alive_for_torch(const Stream& s) {
  if (!s.is_owned()) return;  // borrowed streams are their owner's business, as in PyTorch
  static auto* kept = new std::vector<Stream>();  // never destroyed: outlives every tensor
  for (const Stream& k : *kept) {
    if (k == s) return;
  }
  kept->push_back(s);
}

// torch.get_num_threads(), looked up once (torch is imported: a torch tensor came in).
int torch_num_threads() {
  static nb::object* get = new nb::object(nb::module_::import_("torch").attr("get_num_threads"));  // never freed
  return std::max(1, nb::cast<int>((*get)()));
}

bool same_view(const Tensor& a, const Tensor& b) {
  return a.data() == b.data() && a.dtype() == b.dtype() && Dims(a.shape()) == Dims(b.shape()) &&
         Dims(a.strides()) == Dims(b.strides()) && a.device() == b.device();
}

// Converts a result for inputs that came through DLPack, the CUDA Array Interface or buffers.
nb::object convert_like(nb::handle input, nb::object pytensor) {
  nb::object module = nb::borrow(reinterpret_cast<PyObject*>(Py_TYPE(input.ptr()))).attr("__module__");
  const std::string name = nb::isinstance<nb::str>(module) ? nb::cast<std::string>(module) : "";
  const std::string root = name.substr(0, name.find('.'));
  if (root == "numpy") return nb::module_::import_("numpy").attr("from_dlpack")(pytensor);
  if (root == "cupy") return nb::module_::import_("cupy").attr("from_dlpack")(pytensor);
  if (root == "jax" || root == "jaxlib") return nb::module_::import_("jax.dlpack").attr("from_dlpack")(pytensor);
  return pytensor;
}

}  // namespace

// Allocates op outputs with PyTorch's caching allocator (through the exchange API) when the op
// runs on PyTorch's current stream, so results belong to torch and need no record_stream. On
// any other stream, memory comes from streamvision's stream-ordered allocator on that stream.
class TorchOutputFactory final : public TensorFactory {
 public:
  TorchOutputFactory(const dl::ExchangeAPI* api, bool use_torch) : api_(api), use_torch_(use_torch) {}

  Tensor empty_strided(const Dims& shape, const Dims& strides, DType dtype, Device device, const Stream& stream) override {
    const int rank = shape.size();
    auto state = std::make_shared<ManagedState>();
    state->rank = rank;
    state->shape = shape;
    state->strides = strides;
    std::iota(state->order, state->order + rank, 0);
    detail::stable_sort_small(state->order, rank, [&](int a, int b) { return strides[a] > strides[b]; });
    // PyTorch allocates contiguous tensors: ask for the memory-order shape, which gives
    // exactly the requested dense strides; anything else goes to our allocator.
    std::int64_t mem_shape[kMaxRank];
    std::int64_t running = 1;
    bool dense = true;
    for (int i = rank - 1; i >= 0; --i) {
      const int d = state->order[i];
      mem_shape[i] = shape[d];
      if (shape[d] != 1 && strides[d] != running) dense = false;
      running *= std::max<std::int64_t>(shape[d], 1);
    }
    if (!use_torch_ || !dense) {
      TensorFactoryScope ours(nullptr);
      return streamvision::empty_strided(shape, strides, dtype, device, stream);
    }
    dl::Tensor prototype{};
    prototype.device = device.is_cuda() ? dl::Device{dl::kCUDA, device.index} : dl::Device{dl::kCPU, 0};
    prototype.ndim = rank;
    prototype.dtype = dtype_to_dlpack(dtype);
    prototype.shape = mem_shape;
    ErrorSink sink;
    if (api_->managed_tensor_allocator(&prototype, &state->mt, &sink, &collect_error) != 0 || state->mt == nullptr) {
      throw Error(ErrorKind::Runtime, "allocate", "PyTorch could not allocate the output: " + sink.message);
    }
    void* data = static_cast<char*>(state->mt->dl_tensor.data) + state->mt->dl_tensor.byte_offset;
    std::shared_ptr<void> owner(data, ManagedOwner{state});
    return from_blob(data, shape, strides, dtype, device, std::move(owner));
  }

  nb::object to_torch(const Tensor& out) {
    if (auto* del = std::get_deleter<ManagedOwner>(out.owner())) {
      ManagedState& state = *del->state;
      void* base = static_cast<char*>(state.mt->dl_tensor.data) + state.mt->dl_tensor.byte_offset;
      // The allocation itself, not a view of it (a decoder returns its HWC buffer as CHW).
      if (base == out.data() && Dims(out.shape()) == state.shape && Dims(out.strides()) == state.strides &&
          !state.released) {
        state.released = true;
        PyObject* obj = nullptr;
        if (api_->managed_tensor_to_py_object_no_sync(state.mt, reinterpret_cast<void**>(&obj)) != 0) throw nb::python_error();
        nb::object result = nb::steal(obj);
        bool identity = true;
        int inverse[kMaxRank];
        for (int i = 0; i < state.rank; ++i) {
          inverse[state.order[i]] = i;
          identity = identity && state.order[i] == i;
        }
        if (identity) return result;
        nb::list dims;
        for (int d = 0; d < state.rank; ++d) dims.append(inverse[d]);
        return result.attr("permute")(*nb::tuple(dims));
      }
    }
    // Memory that is not PyTorch's (another stream's allocation, a view): PyTorch wraps it and
    // calls our deleter when done.
    dl::ManagedTensorVersioned* mt = export_versioned(out);
    PyObject* obj = nullptr;
    if (api_->managed_tensor_to_py_object_no_sync(mt, reinterpret_cast<void**>(&obj)) != 0) {
      mt->deleter(mt);
      throw nb::python_error();
    }
    return nb::steal(obj);
  }

 private:
  const dl::ExchangeAPI* api_;
  bool use_torch_;
};

OpCall::OpCall(const char* op, nb::handle input, nb::handle stream, const char* argument) : op_(op), input_obj_(input) {
  std::optional<Stream> explicit_stream;
  if (!stream.is_none()) explicit_stream = stream_from_py(stream);
  imported_ = import_tensor(input, op, argument, explicit_stream);
  const Device device = imported_.tensor.device();
  if (device.is_cuda()) {
    if (explicit_stream) {
      // Refused here already (the front end's op_stream would too, later): below, a torch input
      // is registered with torch's allocator on the op's stream, and a stream of another device
      // registered there would make torch record an event of the input's device on it when the
      // input is freed.
      if (explicit_stream->is_valid() && explicit_stream->device_index() != device.index) {
        throw Error(ErrorKind::Value, op, "stream", "a stream on the input's device " + device.str(),
                    "a stream on cuda:" + std::to_string(explicit_stream->device_index()));
      }
      stream_ = explicit_stream;
    } else if (imported_.origin == Origin::DLPack || imported_.origin == Origin::CudaArrayInterface) {
      stream_ = imported_.ready;  // the stream named to the producer during import
    } else {
      stream_ = op_stream_for(input, imported_.origin, device.index);
    }
    // Our own tensors: order the op after the work that produced the input.
    if (imported_.origin == Origin::StreamVision && imported_.ready.is_valid() && !(imported_.ready == *stream_)) {
      stream_->wait(imported_.ready);
    }
  }
  if (imported_.origin == Origin::Torch) {
    bool use_torch = true;
    if (device.is_cuda()) {
      const std::optional<Stream> torch_stream = torch_current_stream(imported_.api, device.index);
      use_torch = torch_stream && *torch_stream == *stream_;
      on_torch_stream_ = use_torch;
      if (!use_torch) {
        // The input may be freed by PyTorch while the op still reads it on another stream:
        // tell PyTorch's allocator about that use, as torch.Tensor.record_stream does.
        nb::object torch_stream_obj = nb::module_::import_("torch").attr("cuda").attr("ExternalStream")(
            reinterpret_cast<std::uintptr_t>(stream_->handle()), nb::arg("device") = device.index);
        input.attr("record_stream")(torch_stream_obj);
        keep_alive_for_torch(*stream_);
      }
    }
    factory_ = std::make_unique<TorchOutputFactory>(imported_.api, use_torch);
    scope_.emplace(factory_.get());
    // An op on torch CPU tensors uses no more threads than torch's own ops would (torchvision's
    // transforms are torch ops): in a DataLoader worker torch sets 1, and a pool of every core
    // per worker would oversubscribe the machine that many times.
    if (device.is_cpu()) threads_.emplace(torch_num_threads());
  }
}

OpCall::~OpCall() = default;

Tensor OpCall::argument(nb::handle obj, const char* name) {
  nb::handle source = obj;
  if (imported_.origin == Origin::Torch && exchange_api_of(Py_TYPE(obj.ptr())) != nullptr) {
    // A torch tensor: its device comes from the C exchange, without the Python attribute lookups
    // below (a batch op takes one argument per image). On the input's device it is used as it is.
    Imported arg = import_tensor(obj, op_, name, stream_);
    if (arg.tensor.device() == imported_.tensor.device()) return arg.tensor;
  }
  if (imported_.origin == Origin::Torch && nb::hasattr(obj, "device") && nb::hasattr(obj, "to")) {
    nb::object device = input_obj_.attr("device");
    if (!obj.attr("device").equal(device)) {
      // A pageable host tensor goes up with non_blocking=True: the copy reads the host memory
      // before it returns (CUDA stages pageable memory), so nothing waits and nothing is left
      // to race with. A pinned one would be read later, when the copy runs, and a device tensor
      // coming down must be waited for: those stay blocking (a host sync the caller chose by
      // passing that tensor).
      const bool pageable_upload = nb::cast<std::string>(device.attr("type")) == "cuda" &&
                                   nb::cast<std::string>(obj.attr("device").attr("type")) == "cpu" &&
                                   !nb::cast<bool>(obj.attr("is_pinned")());
      moved_.push_back(obj.attr("to")(device, nb::arg("non_blocking") = pageable_upload));
      source = moved_.back();
    }
  }
  return import_tensor(source, op_, name, stream_).tensor;
}

nb::object OpCall::torch_on_op_stream(const std::function<nb::object()>& fn) {
  if (on_torch_stream_ || !stream_) return fn();
  nb::object cuda = nb::module_::import_("torch").attr("cuda");
  nb::object ours = cuda.attr("ExternalStream")(reinterpret_cast<std::uintptr_t>(stream_->handle()),
                                                nb::arg("device") = imported_.tensor.device().index);
  nb::object scope = cuda.attr("stream")(ours);
  scope.attr("__enter__")();
  nb::object result;
  try {
    result = fn();
  } catch (...) {
    scope.attr("__exit__")(nb::none(), nb::none(), nb::none());
    throw;
  }
  scope.attr("__exit__")(nb::none(), nb::none(), nb::none());
  return result;
}

void OpCall::mark_modified() {
  if (imported_.origin != Origin::Torch) return;
  nb::module_::import_("torch.autograd.graph").attr("increment_version")(input_obj_);
}

nb::object OpCall::wrap(const Tensor& out) {
  scope_.reset();
  if (same_view(out, imported_.tensor)) return nb::borrow<nb::object>(input_obj_);
  if (imported_.origin == Origin::Torch && out.owner() == imported_.tensor.owner()) {
    // A view of the input (an in-bounds crop; the import may own nothing, so the owner may be
    // null: every output the op allocates has one): torch's own view of the input object, as
    // torchvision's slicing returns (same storage, autograd's view tracking, keeps it alive).
    const auto offset = (static_cast<const char*>(out.data()) - static_cast<const char*>(imported_.tensor.data())) /
                        static_cast<std::ptrdiff_t>(out.itemsize());
    nb::list shape, strides;
    for (int d = 0; d < out.dim(); ++d) {
      shape.append(out.size(d));
      strides.append(out.stride(d));
    }
    const auto base = nb::cast<std::int64_t>(input_obj_.attr("storage_offset")());
    return input_obj_.attr("as_strided")(nb::tuple(shape), nb::tuple(strides), base + offset);
  }
  switch (imported_.origin) {
    case Origin::Torch: return factory_->to_torch(out);
    case Origin::StreamVision: return make_pytensor(out, stream_.value_or(Stream()));
    default: return convert_like(input_obj_, make_pytensor(out, stream_.value_or(Stream())));
  }
}

}  // namespace svpy
