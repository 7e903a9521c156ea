// Internal: one op call from Python. It imports the input without copying, resolves the stream
// (explicit stream= > `with streamvision.Stream` > the input framework's current stream >
// streamvision's current stream), makes outputs come from the input's framework (PyTorch:
// its caching allocator, through the C exchange API), runs the op and returns the result as the
// input's kind of tensor: torch in, torch out; numpy in, numpy out; streamvision.Tensor in,
// streamvision.Tensor out.
#pragma once

#include <optional>
#include <type_traits>

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
  // CPU work on non-torch inputs runs without the GIL.
  bool release_gil() const { return input().device().is_cpu() && imported_.origin != Origin::Torch; }

  // The op's result as the input's kind of tensor. A result that is the input itself (to_dtype
  // to the same dtype, an in-place op) returns the input object.
  nb::object wrap(const Tensor& out);

 private:
  const char* op_;
  nb::handle input_obj_;
  Imported imported_;
  std::optional<Stream> stream_;
  std::unique_ptr<TorchOutputFactory> factory_;
  std::optional<TensorFactoryScope> scope_;
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
