// Random streams for the ops that draw random numbers (gaussian_noise, and the random
// transforms later). A Generator is a seed plus an offset: an op that needs `n` counters of the
// counter-based generator (Philox4x32-10) reserves them with next(n), which returns the current
// (seed, offset) and advances the offset by n, atomically. Element values depend only on
// (seed, offset, element index), never on the device: the CPU and CUDA engines draw the same
// numbers for the same state.
//
// Calls with the default generator differ from one another (the offset advances) and a program
// is reproducible run to run (the default seed is fixed, like torch's default generator) until
// someone calls manual_seed.
#pragma once

#include <cstdint>
#include <mutex>

namespace streamvision {

struct PhiloxState {
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;  // in Philox counters (each gives 4 32-bit words)
};

class Generator {
 public:
  static constexpr std::uint64_t kDefaultSeed = 67280421310721ull;

  explicit Generator(std::uint64_t seed = kDefaultSeed) : seed_(seed) {}
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // Sets the seed and rewinds the offset to 0.
  void manual_seed(std::uint64_t seed);
  void set_offset(std::uint64_t offset);
  std::uint64_t seed() const;
  std::uint64_t offset() const;
  PhiloxState state() const;

  // Reserves `counters` counters: returns the state to draw them from, advances the offset.
  PhiloxState next(std::uint64_t counters);

  // The process-wide generator ops use when none is given.
  static Generator& default_generator();

 private:
  mutable std::mutex mutex_;
  std::uint64_t seed_;
  std::uint64_t offset_ = 0;
};

}  // namespace streamvision
