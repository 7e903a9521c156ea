#include "cpu/parallel.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace streamvision::cpu {

namespace {

// A fixed pool. One parallel_for runs at a time (others, and nested calls from inside a task,
// run inline on their own thread): simple, and two CPU ops in two threads still both progress.
class Pool {
 public:
  explicit Pool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // Runs `tasks` on the calling thread and at most `helpers` of the pool's workers.
  bool try_run(std::int64_t tasks, int helpers, const std::function<void(std::int64_t)>& task) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock() || in_worker_) return false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      total_ = tasks;
      next_ = 0;
      done_ = 0;
      error_ = nullptr;
      helpers_ = helpers;
      ++generation_;
    }
    if (static_cast<std::size_t>(helpers) >= threads_.size()) {
      wake_.notify_all();
    } else {
      for (int i = 0; i < helpers; ++i) wake_.notify_one();
    }
    drain(false);
    // The last tasks usually finish within microseconds of the caller's: spin before sleeping.
    spin_until([this] { return done_.load(std::memory_order_acquire) == total_; });
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [this] { return done_ == total_; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  // Waking a sleeping thread costs tens of microseconds (a futex round trip, more on a VM), as
  // much as a whole small op: a 1080p flip with two threads gained 1.5x instead of 2x. So a worker
  // that just finished spins a while for the next call (ops of a pipeline come back to back), and
  // the caller spins for the last task, before either sleeps, as OpenMP's threads do (torch's
  // spin for longer). `ready` is read without the lock; the condition variable is the fallback.
  template <class Ready>
  static void spin_until(const Ready& ready) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicroseconds);
    for (int i = 1;; ++i) {
      if (ready()) return;
      cpu_relax();
      if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return;
    }
  }
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  static constexpr int kSpinMicroseconds = 50;

  // Claims and runs tasks until none is left; a worker first takes one of the call's helper
  // places, and leaves when there is none.
  void drain(bool worker) {
    if (worker) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (task_ == nullptr || next_ >= total_ || helpers_ == 0) return;
      --helpers_;
    }
    for (;;) {
      std::int64_t index;
      const std::function<void(std::int64_t)>* task;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (task_ == nullptr || next_ >= total_) return;
        index = next_++;
        task = task_;
      }
      try {
        (*task)(index);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (++done_ == total_) finished_.notify_all();
    }
  }

  void work() {
    in_worker_ = true;
    std::uint64_t seen = 0;
    for (;;) {
      spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      drain(true);
    }
  }

  std::vector<std::thread> threads_;
  std::mutex busy_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void(std::int64_t)>* task_ = nullptr;
  std::int64_t total_ = 0, next_ = 0;
  std::atomic<std::int64_t> done_{0};  // written under mutex_, read without it while spinning
  int helpers_ = 0;  // workers that may still join the current call
  std::atomic<std::uint64_t> generation_{0};  // likewise
  std::exception_ptr error_;
  bool stopping_ = false;
  static thread_local bool in_worker_;
};

thread_local bool Pool::in_worker_ = false;

// The pool's threads, the calling thread included: STREAMVISION_NUM_THREADS when set, else the
// hardware's count. num_threads() says how many of them a call uses.
int pool_size() {
  static const int n = [] {
    if (const char* env = std::getenv("STREAMVISION_NUM_THREADS")) {
      const int v = std::atoi(env);
      if (v > 0) return v;
    }
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return n;
}

std::atomic<int> requested_threads{0};  // set_num_threads; 0: not set
thread_local int t_thread_limit = 0;       // ThreadLimitScope; 0: none

// The pool survives fork() as PyTorch's does: the child has none of the parent's worker threads
// (fork copies only the calling thread), so a pthread_atfork handler abandons the inherited pool
// (its threads, mutexes and condition variables belong to the parent's threads, so it is never
// touched or destroyed again) and the child's first parallel_for starts a fresh one. A fork while
// another thread is inside parallel_for is fine too: that call belongs to the parent.
std::atomic<Pool*> current_pool{nullptr};
std::mutex pool_creation;

void abandon_pool_in_child() {
  current_pool.store(nullptr, std::memory_order_relaxed);
  new (&pool_creation) std::mutex();  // it may have been held by a thread the child does not have
}

// Joins the workers at exit (only the process that started them has them).
struct PoolOwner {
  ~PoolOwner() { delete current_pool.exchange(nullptr); }
} pool_owner;

Pool& pool() {
  if (Pool* p = current_pool.load(std::memory_order_acquire)) return *p;
  std::lock_guard<std::mutex> lock(pool_creation);
  Pool* p = current_pool.load(std::memory_order_acquire);
  if (p == nullptr) {
    static const bool registered = [] { return pthread_atfork(nullptr, nullptr, abandon_pool_in_child) == 0; }();
    (void)registered;
    p = new Pool(pool_size() - 1);
    current_pool.store(p, std::memory_order_release);
  }
  return *p;
}

}  // namespace

int num_threads() {
  const int requested = requested_threads.load(std::memory_order_relaxed);
  const int n = requested > 0 ? std::min(requested, pool_size()) : pool_size();
  return t_thread_limit > 0 ? std::min(n, t_thread_limit) : n;
}

void set_num_threads(int n) { requested_threads.store(n, std::memory_order_relaxed); }

int thread_limit() { return t_thread_limit; }

void set_thread_limit(int n) { t_thread_limit = n; }

void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t begin, std::int64_t end)>& body) {
  if (n <= 0) return;
  grain = std::max<std::int64_t>(grain, 1);
  const int threads = num_threads();
  const std::int64_t tasks = std::min<std::int64_t>((n + grain - 1) / grain, threads * 4);
  if (tasks <= 1 || threads == 1) {
    body(0, n);
    return;
  }
  const std::int64_t per_task = (n + tasks - 1) / tasks;
  const std::function<void(std::int64_t)> task = [&](std::int64_t t) {
    const std::int64_t begin = t * per_task;
    const std::int64_t end = std::min(n, begin + per_task);
    if (begin < end) body(begin, end);
  };
  if (!pool().try_run(tasks, threads - 1, task)) body(0, n);
}

}  // namespace streamvision::cpu
