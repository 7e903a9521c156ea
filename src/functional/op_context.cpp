#include "functional/op_context.hpp"

#include <string>

#include "streamvision/core/error.hpp"

namespace streamvision::detail {

void check_image(const char* op, const Tensor& t, int min_rank, const char* argument) {
  if (!t.defined()) throw Error(ErrorKind::Type, op, argument, "a tensor", "an undefined tensor");
  if (t.dim() < min_rank) {
    std::string expected = "a tensor with at least " + std::to_string(min_rank) + " dims";
    if (min_rank == 3) expected += " ([..., C, H, W])";
    if (min_rank == 2) expected += " ([..., H, W])";
    throw Error(ErrorKind::Value, op, argument, expected, "shape " + Dims(t.shape()).str());
  }
}

Stream op_stream(const char* op, const Tensor& input, const std::optional<Stream>& stream) {
  if (!input.device().is_cuda()) return Stream();
  if (!stream) return Stream::current(input.device().index);
  if (!stream->is_valid() || stream->device_index() != input.device().index) {
    throw Error(ErrorKind::Value, op, "stream", "a stream on the input's device " + input.device().str(),
                stream->is_valid() ? "a stream on cuda:" + std::to_string(stream->device_index()) : "no stream");
  }
  return *stream;
}

}  // namespace streamvision::detail
