// Internal: non-temporal ("streaming") stores for outputs larger than the last-level cache.
//
// A plain store first reads the cache line it writes (read-for-ownership), so an op that writes
// an output too large to stay in the cache moves three bytes through the memory bus per byte it
// copies: read the input, read the output's old line, write it back. A non-temporal store
// writes whole lines through the write-combining buffers without reading them: two bytes per
// byte. On the development machine (AMD EPYC, 8 MB L3) a 9.6 MB copy takes 1.0 ms that way
// against 1.6 ms with plain stores, and a 38.5 MB one 5.1 against 7.2 ms. glibc's memcpy does
// the same above a fraction of the L3; the elementwise engine's rows (224-byte rows of a
// flipped batch, an inverted plane) are each far below that threshold, so they never got it.
//
// Below the threshold plain stores stay: a small output is read again by the next op while it
// is still in the cache, and a non-temporal store would evict it.
#pragma once

#include <cstddef>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace streamvision::cpu {

// Whether an op writing `bytes` of output in one call should write it with stream_bytes: at or
// above half the last-level cache one core reaches (4 MB when the size is unknown), on x86-64.
// STREAMVISION_CPU_STREAM_BYTES=<n>, read once, sets the threshold (tests use 0 to stream every
// output); never on other CPUs.
bool stream_output(std::size_t bytes);

// dst[0, n) = src[0, n), the 16-byte-aligned part of dst written with non-temporal stores and
// the ragged ends with plain ones. The ranges must not overlap (they may be equal). Other
// threads may see the bytes only after this thread's stream_fence().
void stream_bytes(void* dst, const void* src, std::size_t n);

// The 64 bytes at `line` to `dst` (16-byte aligned; a whole cache line when 64-byte aligned) with
// non-temporal stores; inline, for loops that produce a line at a time, and stream_bytes's body.
// SSE2 is in every x86-64: 16-byte streaming stores need no CPU dispatch, and four of them fill a
// line as well as two 32-byte ones do.
inline void stream_line(void* dst, const void* line) {
#if defined(__x86_64__)
  const auto* s = static_cast<const __m128i*>(line);
  auto* d = static_cast<__m128i*>(dst);
  _mm_stream_si128(d, _mm_loadu_si128(s));
  _mm_stream_si128(d + 1, _mm_loadu_si128(s + 1));
  _mm_stream_si128(d + 2, _mm_loadu_si128(s + 2));
  _mm_stream_si128(d + 3, _mm_loadu_si128(s + 3));
#else
  std::memcpy(dst, line, 64);
#endif
}

// Orders this thread's non-temporal stores before its later stores (the thread pool's "task
// done"): call it at the end of every task that used stream_bytes.
void stream_fence();

}  // namespace streamvision::cpu
