// Internal: the CPU engine's thread pool. parallel_for splits [0, n) into contiguous ranges
// of at least `grain` items and runs them on the pool and the calling thread.
#pragma once

#include <cstdint>
#include <functional>

namespace streamvision::cpu {

// Threads used by CPU kernels started on this thread, the calling thread included: the count
// set_num_threads last set (at most the pool's size), else the pool's size
// (STREAMVISION_NUM_THREADS if set, else the hardware's count); at most this thread's limit.
int num_threads();
// n >= 1 (checked by the public streamvision::set_num_threads).
void set_num_threads(int n);
// This thread's limit (0: none), set by streamvision::ThreadLimitScope.
int thread_limit();
void set_thread_limit(int n);

void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t begin, std::int64_t end)>& body);

}  // namespace streamvision::cpu
