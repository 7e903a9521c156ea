// The public thread-count setting over the CPU engine's pool (cpu/parallel.cpp).
#include "streamvision/core/threads.hpp"

#include <string>

#include "cpu/parallel.hpp"
#include "streamvision/core/error.hpp"

namespace streamvision {

int get_num_threads() { return cpu::num_threads(); }

void set_num_threads(int n) {
  if (n < 1) throw Error(ErrorKind::Value, "set_num_threads", "n", "a thread count of at least 1", std::to_string(n));
  cpu::set_num_threads(n);
}

ThreadLimitScope::ThreadLimitScope(int n) : previous_(cpu::thread_limit()) {
  if (n < 1) throw Error(ErrorKind::Value, "ThreadLimitScope", "n", "a thread count of at least 1", std::to_string(n));
  cpu::set_thread_limit(n);
}

ThreadLimitScope::~ThreadLimitScope() { cpu::set_thread_limit(previous_); }

}  // namespace streamvision
