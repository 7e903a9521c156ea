// Non-temporal stores for the CPU engine's large outputs (see stream_store.hpp for why).
#include "cpu/stream_store.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#include <unistd.h>
#endif

namespace streamvision::cpu {

namespace {

#if defined(__x86_64__)
// The last-level cache one core reaches. sysfs gives one instance's size; sysconf gives the
// package's total on AMD, whose cores each see only their complex's share (the development
// machine: 64 MB from sysconf, 8 MB per instance).
std::size_t last_level_cache() {
  if (std::FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r")) {
    unsigned long long size = 0;
    char unit = 0;
    const int got = std::fscanf(f, "%llu%c", &size, &unit);
    std::fclose(f);
    if (got >= 1 && size > 0) return static_cast<std::size_t>(size) << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
  }
  long l3 = -1;
#if defined(_SC_LEVEL3_CACHE_SIZE)
  l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  return l3 > 0 ? static_cast<std::size_t>(l3) : 0;
}

std::size_t default_threshold() {
  const std::size_t cache = last_level_cache();
  return cache > 0 ? cache / 2 : std::size_t{4} << 20;
}

std::size_t threshold() {
  static const std::size_t bytes = [] {
    if (const char* text = std::getenv("STREAMVISION_CPU_STREAM_BYTES")) {
      char* end = nullptr;
      const unsigned long long n = std::strtoull(text, &end, 10);
      if (end != text && *end == '\0') return static_cast<std::size_t>(n);
    }
    return default_threshold();
  }();
  return bytes;
}
#endif

}  // namespace

bool stream_output(std::size_t bytes) {
#if defined(__x86_64__)
  return bytes >= threshold();
#else
  (void)bytes;
  return false;
#endif
}

void stream_bytes(void* dst, const void* src, std::size_t n) {
#if defined(__x86_64__)
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (d == s) return;
  const std::size_t head = std::min<std::size_t>(n, (16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  std::size_t i = head;
  for (; i + 64 <= n; i += 64) stream_line(d + i, s + i);
  for (; i + 16 <= n; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
  }
  std::memcpy(d + i, s + i, n - i);
#else
  if (dst != src) std::memcpy(dst, src, n);
#endif
}

void stream_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

}  // namespace streamvision::cpu
