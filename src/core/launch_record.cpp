// The per-thread record of the stream of the most recent CUDA launch. It exists so that tests
// (and the Python test-suite) can assert that an op really ran on the stream it should have.
#include "streamvision/core/stream.hpp"

namespace streamvision {

namespace {
thread_local Stream t_last_launch;
}

namespace detail {
void record_launch(const Stream& stream) {
  // Borrowed: the record must not keep a stream the user dropped alive.
  t_last_launch = Stream::borrow(stream.handle(), stream.device_index());
}
}  // namespace detail

Stream last_launch_stream() { return t_last_launch; }

}  // namespace streamvision
