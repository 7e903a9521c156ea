#include "streamvision/core/generator.hpp"

namespace streamvision {

void Generator::manual_seed(std::uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

void Generator::set_offset(std::uint64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  offset_ = offset;
}

std::uint64_t Generator::seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

std::uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return offset_;
}

PhiloxState Generator::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {seed_, offset_};
}

PhiloxState Generator::next(std::uint64_t counters) {
  std::lock_guard<std::mutex> lock(mutex_);
  const PhiloxState s{seed_, offset_};
  offset_ += counters;
  return s;
}

Generator& Generator::default_generator() {
  static Generator generator;
  return generator;
}

}  // namespace streamvision
