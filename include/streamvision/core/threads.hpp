// The CPU engine's threads.
#pragma once

namespace streamvision {

// The number of threads a CPU op uses, the calling thread included: STREAMVISION_NUM_THREADS
// when it is set, else the hardware's count, until set_num_threads changes it.
int get_num_threads();

// Sets the number of threads CPU ops started after the call use, for the whole process (as
// torch.set_num_threads does for torch's ops): n >= 1, at most the thread pool's size
// (STREAMVISION_NUM_THREADS when set, else the hardware's count). 1 runs every op on the calling
// thread, which is what a DataLoader worker wants (torch sets its own count to 1 there). Results
// never depend on it.
void set_num_threads(int n);

// While it lives, CPU ops started on this thread use at most `n` threads (n >= 1), below the
// process-wide count; scopes nest, the innermost wins. The Python bindings open one around every
// op on torch CPU tensors with torch.get_num_threads(), so such an op uses no more threads than
// torchvision's transforms (torch ops) would: in a DataLoader worker, where torch sets 1, one.
class ThreadLimitScope {
 public:
  explicit ThreadLimitScope(int n);
  ~ThreadLimitScope();
  ThreadLimitScope(const ThreadLimitScope&) = delete;
  ThreadLimitScope& operator=(const ThreadLimitScope&) = delete;

 private:
  int previous_;
};

}  // namespace streamvision
