// Internal: one op call from Python. It imports the input without copying, resolves the stream
// (explicit stream= > `with streamvision.Stream` > the input framework's current stream >
// streamvision's current stream), makes outputs come from the input's framework (PyTorch:
// its caching allocator, through the C exchange API), runs the op and returns the result as the
// input's kind of tensor: torch in, torch out; numpy in, numpy out; streamvision.Tensor in,
// streamvision.Tensor out.
#pragma once

#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "bindings.hpp"

namespace svpy {

class TorchOutputFactory;

class OpCall {
 public:
  OpCall(const char* op, nb::handle input, nb::handle stream, const char* argument = "inpt");
  ~OpCall();

  const Tensor& input() const { return imported_.tensor; }
  // The stream the op must run on (CUDA inputs), passed explicitly to the functional.
  const std::optional<Stream>& stream() const { return stream_; }
  bool read_only() const { return imported_.read_only; }
  // CPU work runs without the GIL, so that DataLoader threads and Python threads run ops in
  // parallel. Nothing inside an op touches Python: torch outputs come from the DLPack exchange
  // API's allocator, a C function that reports errors through a C callback (no GIL needed).
  bool release_gil() const { return input().device().is_cpu(); }

  // A tensor argument of the op (elastic's displacement, erase's value), imported for the
  // input's device and stream. A torch tensor on another device is moved there first with
  // torch (`.to(device)` on torch's current stream), as torchvision does; the moved copy lives
  // as long as this call.
  Tensor argument(nb::handle obj, const char* name);

  bool torch_input() const { return imported_.origin == Origin::Torch; }

  // Runs fn() (torch work that feeds the op, e.g. a draw from torch's generator) so that it is
  // ordered before the op: on the op's stream, entered as torch's current stream when the op
  // does not run on torch's own current stream.
  nb::object torch_on_op_stream(const std::function<nb::object()>& fn);

  // Tells autograd that an in-place op wrote the input (bumps a torch tensor's version counter,
  // as torch's own in-place ops do), so that a later backward through it raises.
  void mark_modified();

  // The op's result as the input's kind of tensor. A result that is the input itself (to_dtype
  // to the same dtype, an in-place op) returns the input object.
  nb::object wrap(const Tensor& out);

 private:
  const char* op_;
  nb::handle input_obj_;
  Imported imported_;
  std::optional<Stream> stream_;
  std::unique_ptr<TorchOutputFactory> factory_;
  std::vector<nb::object> moved_;  // arguments copied to the input's device
  bool on_torch_stream_ = true;    // the op runs where torch's own work runs (CPU, or torch's current stream)
  std::optional<TensorFactoryScope> scope_;
  std::optional<ThreadLimitScope> threads_;  // torch CPU inputs: at most torch.get_num_threads()
};

// Runs fn(input, stream) -> Tensor (or a std::array of Tensors, returned as a tuple) for one
// Python call.
template <class Fn>
nb::object run_op(const char* op, nb::handle input, nb::handle stream, Fn&& fn) {
  OpCall call(op, input, stream);
  using Result = decltype(fn(call.input(), call.stream()));
  Result out;
  if (call.release_gil()) {
    nb::gil_scoped_release release;
    out = fn(call.input(), call.stream());
  } else {
    out = fn(call.input(), call.stream());
  }
  if constexpr (std::is_same_v<Result, Tensor>) {
    return call.wrap(out);
  } else {
    nb::list items;
    for (const Tensor& t : out) items.append(call.wrap(t));
    return nb::tuple(items);
  }
}

}  // namespace svpy
