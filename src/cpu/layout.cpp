// CPU kernel of copy (layout conversion), and copy_view, the one strided copy that flips, erase,
// permute_channels and rotate's right angles are made of.
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "cpu/simd.hpp"
#include "cpu/stream_store.hpp"
#include "kernels/copy.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::cpu {

namespace {

// Short rows read backwards, one after another, with gaps between them (a crop's rows) leave the
// hardware prefetcher behind: the copy waited on almost every load (a 64x3x224x224 crop of a
// 256x256 batch flipped in 1.0 ms against 0.3 for the same rows without gaps). Rows about
// kPrefetchAhead bytes ahead are prefetched by hand, whole; rows longer than that the
// prefetcher follows by itself, and so it does rows without gaps (src_row == count), where the
// prefetches only cost: a 64x3x224x224 uint8 flip took 0.30 ms with them, 0.25 without
// (AVX-512 EPYC, twenty-third session).
constexpr std::int64_t kPrefetchAhead = 4096;  // bytes
inline std::int64_t prefetch_rows_ahead(std::int64_t count, std::int64_t src_row, std::int64_t itemsize) {
  const std::int64_t row_bytes = count * itemsize;
  if (row_bytes <= 0 || src_row == count) return 0;  // an empty run (the ragged end of a streamed one), or no gaps
  return row_bytes > kPrefetchAhead ? 0 : (kPrefetchAhead + row_bytes - 1) / row_bytes;
}
// The `bytes` bytes of a row read backwards from the item at row_end.
template <class T>
inline void prefetch_row(const T* row_end, std::int64_t bytes) {
  const char* last = reinterpret_cast<const char*>(row_end) + sizeof(T) - 1;
  for (std::int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(last - b);
  __builtin_prefetch(last - bytes + 1);
}

// The plain reversed loop: the baseline, and the tails of the AVX2 ones.
template <class T>
inline void reverse_items(const T* src, T* dst, std::int64_t count) {
  for (std::int64_t j = 0; j < count; ++j) dst[j] = src[-j];
}


// Which way a reversal walks its row. Down: the first output item first, so the loads descend
// and the stores ascend; the rows of an output that stays in the cache go this way, their
// sources prefetched by hand (prefetch_row) where they are short. Up: the last output item
// first, so the loads ascend: Zen 4's prefetchers follow a descending stream poorly (a 25 MB
// float32 reversal read downwards took 1.8-2.7 ms against 0.93-1.07 upwards, the same as a
// plain streamed copy; AVX-512 EPYC, twenty-second session), but its stores descend, which costs
// as much where they miss the cache (read for ownership): Up writes into an L1 buffer only.
enum class Walk { Down, Up };

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// dst[0, done) = src[0], src[-1], ... by 32-byte blocks reversed in registers (GCC vectorises
// the 2- and 4-byte reversed loops poorly: 1080p float32 hflip 2.2 ms against 1.4 for this).
// Returns the items done, a multiple of the block; the rest is the caller's.
template <class T>
SV_CPU_V3 SV_FORCE_INLINE __m256i reverse_block(__m256i v) {
  if constexpr (sizeof(T) == 4) return _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
  // 2- and 1-byte items: reverse each 16-byte half, then swap the halves.
  const __m128i half = sizeof(T) == 2 ? _mm_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1)
                                      : _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, _mm256_broadcastsi128_si256(half)), 0x4e);
}
template <Walk W, class T>
SV_CPU_V3 std::int64_t reverse_avx2(const T* src, T* dst, std::int64_t count) {
  constexpr std::int64_t kBlock = 32 / sizeof(T);
  const std::int64_t done = count & ~(kBlock - 1);
  const bool up = W == Walk::Up;
#pragma GCC unroll 4
  for (std::int64_t i = 0; i < done; i += kBlock) {
    const std::int64_t j = up ? done - kBlock - i : i;
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src - j - (kBlock - 1)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), reverse_block<T>(v));
  }
  return done;
}
#else  // never called: cpu_is_x86_64_v3() is false
template <Walk W, class T>
std::int64_t reverse_avx2(const T*, T*, std::int64_t) { return 0; }
#endif

// dst[0, count) = src[0], src[-1], ...: the AVX2 blocks where the CPU has them, then the plain
// loop for the rest.
template <Walk W, class T>
void reverse_run(const T* src, T* dst, std::int64_t count) {
  if (cpu_is_x86_64_v3()) {
    const std::int64_t done = reverse_avx2<W>(src, dst, count);
    src -= done;
    dst += done;
    count -= done;
  }
  reverse_items(src, dst, count);
}

// Rows of `count` items, each reversed into an L1 buffer walking up (a piece of at most
// kStreamChunk bytes at a time, the row's last piece first, so that the whole row is read
// upwards) and streamed out from there. Short rows are prefetched as in reverse_rows_cached.
template <class T>
void reverse_rows_streamed_as(const void* src_items, std::int64_t src_row, void* dst_items, std::int64_t dst_row,
                              std::int64_t count, std::int64_t rows) {
  const auto* src = static_cast<const T*>(src_items);
  auto* dst = static_cast<T*>(dst_items);
  alignas(64) unsigned char buffer[kStreamChunk];
  constexpr std::int64_t kItems = kStreamChunk / static_cast<std::int64_t>(sizeof(T));
  const std::int64_t bytes = count * static_cast<std::int64_t>(sizeof(T));
  const std::int64_t ahead = prefetch_rows_ahead(count, src_row, sizeof(T));
  for (std::int64_t r = 0; r < rows; ++r) {
    if (ahead != 0 && r + ahead < rows) prefetch_row(src + (r + ahead) * src_row, bytes);
    for (std::int64_t j = count > 0 ? (count - 1) / kItems * kItems : -1; j >= 0; j -= kItems) {
      const std::int64_t n = std::min(kItems, count - j);
      reverse_run<Walk::Up>(src + r * src_row - j, reinterpret_cast<T*>(buffer), n);
      stream_bytes(dst + r * dst_row + j, buffer, static_cast<std::size_t>(n) * sizeof(T));
    }
  }
}

// Rows of an output that stays in the cache walk down, their sources prefetched where they are
// short. Rows longer than kPrefetchAhead bytes are not buffered to read upwards as streamed ones
// are: their sources are mostly in the cache too (below the streaming threshold), where the
// buffer's extra copy cost more than it saved (a 1x512x8192 uint8 flip 0.099 -> 0.13 ms).
template <class T>
void reverse_rows_cached(const T* src, std::int64_t src_row, T* dst, std::int64_t dst_row, std::int64_t count,
                         std::int64_t rows) {
  const std::int64_t bytes = count * static_cast<std::int64_t>(sizeof(T));
  const std::int64_t ahead = prefetch_rows_ahead(count, src_row, sizeof(T));
  for (std::int64_t r = 0; r < rows; ++r) {
    if (ahead != 0 && r + ahead < rows) prefetch_row(src + (r + ahead) * src_row, bytes);
    reverse_run<Walk::Down>(src + r * src_row, dst + r * dst_row, count);
  }
}

}  // namespace

void reverse_rows_streamed(const void* src, std::int64_t src_row, void* dst, std::int64_t dst_row, std::int64_t count,
                           std::int64_t rows, std::size_t itemsize) {
  switch (itemsize) {
    case 1: return reverse_rows_streamed_as<std::uint8_t>(src, src_row, dst, dst_row, count, rows);
    case 2: return reverse_rows_streamed_as<std::uint16_t>(src, src_row, dst, dst_row, count, rows);
    default: return reverse_rows_streamed_as<std::uint32_t>(src, src_row, dst, dst_row, count, rows);
  }
}

void reverse_rows(const void* src, std::int64_t src_row, void* dst, std::int64_t dst_row, std::int64_t count,
                  std::int64_t rows, std::size_t itemsize) {
  switch (itemsize) {
    case 1:
      return reverse_rows_cached(static_cast<const std::uint8_t*>(src), src_row, static_cast<std::uint8_t*>(dst), dst_row, count,
                                 rows);
    case 2:
      return reverse_rows_cached(static_cast<const std::uint16_t*>(src), src_row, static_cast<std::uint16_t*>(dst), dst_row, count,
                                 rows);
    default:
      return reverse_rows_cached(static_cast<const std::uint32_t*>(src), src_row, static_cast<std::uint32_t*>(dst), dst_row, count,
                                 rows);
  }
}

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// A reversed run of packed 3-byte pixels (src_step -3), five pixels per 16-byte shuffle. Output
// pixels i .. i+4 are source pixels i+4 .. i in memory order, the 15 bytes from
// src - 3 (i + 4); they are loaded from one byte lower (a byte of pixel i+5) so the load never
// reaches above the run, and the 16-byte store's last byte is pixel i+5's first, rewritten next.
// Returns how many pixels it copied (a multiple of 5, leaving at least one).
SV_CPU_V3 std::int64_t reverse_rgb8_blocks(const std::uint8_t* src, std::uint8_t* dst, std::int64_t count) {
  const __m128i order = _mm_setr_epi8(13, 14, 15, 10, 11, 12, 7, 8, 9, 4, 5, 6, 1, 2, 3, 0);
  std::int64_t i = 0;
  for (; i + 6 <= count; i += 5) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src - 3 * (i + 4) - 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * i), _mm_shuffle_epi8(v, order));
  }
  return i;
}
// The same for pixels of three 4-byte items, eight pixels (three 32-byte vectors) per step: the
// 24 items from the lowest pixel's, src - 3 (i + 7), hold output pixels i + 7 .. i; each output
// vector gathers from at most three input vectors (a permute each, then blends). Returns how
// many pixels it copied (a multiple of 8). A 1080p float32 channels_last flip moved one pixel
// per 16-byte load and store at 0.79x torchvision's speed (AVX-512 EPYC, bench_cpu's harness).
// W: which way the blocks go (Walk; up for a streamed run's L1 buffer).
template <Walk W>
SV_CPU_V3 std::int64_t reverse_rgb32_blocks(const std::uint32_t* src, std::uint32_t* dst, std::int64_t count) {
  // Memory items s0 .. s23 (in0 = s0..s7, in1 = s8..s15, in2 = s16..s23); the output is
  // s21 s22 s23 s18 s19 s20 s15 s16 | s17 s12 s13 s14 s9 s10 s11 s6 | s7 s8 s3 s4 s5 s0 s1 s2.
  const __m256i from2_for0 = _mm256_setr_epi32(5, 6, 7, 2, 3, 4, 0, 0);  // lane 6 comes from in1
  const __m256i from1_shared = _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 7, 0);  // lane 1: s8, lane 6: s15
  const __m256i from1_for1 = _mm256_setr_epi32(0, 4, 5, 6, 1, 2, 3, 0);
  const __m256i from2_for1 = _mm256_setr_epi32(1, 0, 0, 0, 0, 0, 0, 0);
  const __m256i from0_for1 = _mm256_setr_epi32(0, 0, 0, 0, 0, 0, 0, 6);
  const __m256i from0_for2 = _mm256_setr_epi32(7, 0, 3, 4, 5, 0, 1, 2);  // lane 1 comes from in1
  const std::int64_t done = count & ~std::int64_t{7};
  for (std::int64_t k = 0; k < done; k += 8) {
    const std::int64_t i = W == Walk::Up ? done - 8 - k : k;
    const auto* base = reinterpret_cast<const __m256i*>(src - 3 * (i + 7));
    const __m256i in0 = _mm256_loadu_si256(base), in1 = _mm256_loadu_si256(base + 1), in2 = _mm256_loadu_si256(base + 2);
    const __m256i shared = _mm256_permutevar8x32_epi32(in1, from1_shared);
    const __m256i out0 = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(in2, from2_for0), shared, 1 << 6);
    __m256i out1 = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(in1, from1_for1),
                                      _mm256_permutevar8x32_epi32(in2, from2_for1), 1 << 0);
    out1 = _mm256_blend_epi32(out1, _mm256_permutevar8x32_epi32(in0, from0_for1), 1 << 7);
    const __m256i out2 = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(in0, from0_for2), shared, 1 << 1);
    auto* out = reinterpret_cast<__m256i*>(dst + 3 * i);
    _mm256_storeu_si256(out, out0);
    _mm256_storeu_si256(out + 1, out1);
    _mm256_storeu_si256(out + 2, out2);
  }
  return done;
}
#endif

// Pixels are 3 items; one load and store of 4 items per pixel is faster than three of one. The
// 4th item read lies below the next pixel in memory (inside the tensor) except for the pixel at
// the highest address, and the 4th item written is rewritten by the next pixel except for the
// last one: those two are copied with 3 items. Each move goes through a register-sized
// temporary: one load and one store, and no overlapping memcpy when the copy is in place.
template <int N, class T>
SV_FORCE_INLINE void move_items(const T* src, T* dst) {
  T v[N];
  std::memcpy(v, src, sizeof v);
  std::memcpy(dst, v, sizeof v);
}

template <class T>
void copy_rgb_items(const T* src, std::int64_t src_step, T* dst, std::int64_t count) {
  std::int64_t i = 0;
  if (src_step < 0 && count > 1) {  // the pixel at the highest address
    move_items<3>(src, dst);
    i = 1;
  }
  for (; i < count - 1; ++i) move_items<4>(src + i * src_step, dst + 3 * i);
  move_items<3>(src + (count - 1) * src_step, dst + 3 * (count - 1));
}

// The AVX2 blocks of a reversed run, where the CPU has them (the blocks leave the rest), then
// copy_rgb_items.
template <class T>
using ReverseBlocks = std::int64_t (*)(const T*, T*, std::int64_t);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
constexpr ReverseBlocks<std::uint8_t> kReverseRgb8 = &reverse_rgb8_blocks;
template <Walk W>
constexpr ReverseBlocks<std::uint32_t> kReverseRgb32 = &reverse_rgb32_blocks<W>;
#else
constexpr ReverseBlocks<std::uint8_t> kReverseRgb8 = nullptr;
template <Walk W>
constexpr ReverseBlocks<std::uint32_t> kReverseRgb32 = nullptr;
#endif

template <class T>
void copy_rgb_run(const T* src, std::int64_t src_step, T* dst, std::int64_t count, ReverseBlocks<T> blocks) {
  if (blocks != nullptr && src_step == -3 && cpu_is_x86_64_v3()) {
    const std::int64_t done = blocks(src, dst, count);
    src -= 3 * done;
    dst += 3 * done;
    count -= done;
    if (count == 0) return;
  }
  copy_rgb_items(src, src_step, dst, count);
}

// The blocks are 16-byte vectors, moved through memcpy (unaligned, and no aliasing question): 32-byte
// stores, half of them split across cache lines in a pad's rows, were slower, and a char-array
// temporary was also stored to the stack at -O3.
using Block16 = unsigned char __attribute__((vector_size(16)));

SV_CPU_CLONES void copy_long_run(unsigned char* __restrict dst, const unsigned char* __restrict src, std::size_t n) {
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    Block16 a, b, c, d;
    std::memcpy(&a, src + i, 16);
    std::memcpy(&b, src + i + 16, 16);
    std::memcpy(&c, src + i + 32, 16);
    std::memcpy(&d, src + i + 48, 16);
    std::memcpy(dst + i, &a, 16);
    std::memcpy(dst + i + 16, &b, 16);
    std::memcpy(dst + i + 32, &c, 16);
    std::memcpy(dst + i + 48, &d, 16);
  }
  std::memcpy(dst + i, src + i, n - i);
}

}  // namespace

void copy_bytes(void* dst, const void* src, std::size_t n) {
  const auto d = reinterpret_cast<std::uintptr_t>(dst), s = reinterpret_cast<std::uintptr_t>(src);
  if (n <= 256 || (d != s && d < s + n && s < d + n)) {
    std::memmove(dst, src, n);
  } else if (d != s) {
    copy_long_run(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), n);
  }
}

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// Rows of 32 to kShortRowBytes bytes that do not overlap: 32-byte moves, the last one ending at
// the row's end (it may rewrite bytes of the one before: the same bytes). memmove per row, called
// through the elementwise engine's run function, cost more in calls and dispatch than in copying
// (a 64x3x224x224 uint8 vertical flip, 224-byte rows: 0.39-0.55 ms against 0.35 for torch's).
SV_CPU_V3 void copy_short_rows_avx2(const unsigned char* src, std::int64_t src_row, unsigned char* dst,
                                    std::int64_t dst_row, std::int64_t bytes, std::int64_t rows) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const unsigned char* s = src + r * src_row;
    unsigned char* d = dst + r * dst_row;
    for (std::int64_t i = 0; i + 32 < bytes; i += 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + bytes - 32),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + bytes - 32)));
  }
}
constexpr std::int64_t kShortRowBytes = 256;
#endif

}  // namespace

void copy_rows(const void* src, std::int64_t src_row, void* dst, std::int64_t dst_row, std::int64_t bytes,
               std::int64_t rows, bool streamed) {
  if (rows <= 0 || bytes <= 0) return;
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  if (s == d && src_row == dst_row) return;  // a copy onto itself
  if (streamed) {
    for (std::int64_t r = 0; r < rows; ++r) stream_bytes(d + r * dst_row, s + r * src_row, static_cast<std::size_t>(bytes));
    return;
  }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  // The spans the rows cover, to tell that no row overlaps another's destination.
  const std::int64_t src_lo = std::min<std::int64_t>(0, (rows - 1) * src_row), src_hi = std::max<std::int64_t>(0, (rows - 1) * src_row) + bytes;
  const std::int64_t dst_lo = std::min<std::int64_t>(0, (rows - 1) * dst_row), dst_hi = std::max<std::int64_t>(0, (rows - 1) * dst_row) + bytes;
  const bool apart = d + dst_hi <= s + src_lo || s + src_hi <= d + dst_lo;
  if (apart && bytes >= 32 && bytes <= kShortRowBytes && cpu_is_x86_64_v3()) {
    copy_short_rows_avx2(s, src_row, d, dst_row, bytes, rows);
    return;
  }
#endif
  for (std::int64_t r = 0; r < rows; ++r) std::memmove(d + r * dst_row, s + r * src_row, static_cast<std::size_t>(bytes));
}

namespace {

template <Walk W>
void copy_rgb_pixels_walking(const void* src, std::int64_t src_step, void* dst, std::int64_t count, std::size_t itemsize) {
  if (count <= 0) return;
  switch (itemsize) {
    case 1:
      copy_rgb_run(static_cast<const std::uint8_t*>(src), src_step, static_cast<std::uint8_t*>(dst), count, kReverseRgb8);
      break;
    case 2:
      copy_rgb_run(static_cast<const std::uint16_t*>(src), src_step, static_cast<std::uint16_t*>(dst), count,
                   static_cast<ReverseBlocks<std::uint16_t>>(nullptr));
      break;
    default:
      copy_rgb_run(static_cast<const std::uint32_t*>(src), src_step, static_cast<std::uint32_t*>(dst), count,
                   kReverseRgb32<W>);
      break;
  }
}

}  // namespace

void copy_rgb_pixels(const void* src, std::int64_t src_step, void* dst, std::int64_t count, std::size_t itemsize) {
  copy_rgb_pixels_walking<Walk::Down>(src, src_step, dst, count, itemsize);
}

void copy_rgb_pixels_streamed(const void* src, std::int64_t src_step, void* dst, std::int64_t count, std::size_t itemsize) {
  alignas(64) unsigned char buffer[kStreamChunk];
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  const std::int64_t pixel = 3 * static_cast<std::int64_t>(itemsize);
  // Chunks of whole cache lines: a chunk of a multiple of 64 pixels is whole lines once the
  // first chunk has brought dst to a line boundary. 3 * 43 = 1 (mod 64), so 43 * k pixels
  // advance dst by k items (mod 64 items).
  const std::int64_t line_items = 64 / static_cast<std::int64_t>(itemsize);
  const std::int64_t items_to_line =
      (line_items - static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(d) / itemsize) % line_items) % line_items;
  const std::int64_t chunk = kStreamChunk / pixel / 64 * 64;
  std::int64_t first = items_to_line * 43 % line_items;
  if (first == 0) first = chunk;
  first = std::min(first, count);
  const std::int64_t later = (count - first + chunk - 1) / chunk;  // chunks after the first
  // A reversed run goes chunk by chunk from its last, each walking up (only its reversal blocks
  // have a walk), so that the source is read upwards (Walk).
  const bool reversed = src_step < 0;
  for (std::int64_t step = 0; step <= later; ++step) {
    const std::int64_t k = reversed ? later - step : step;  // chunk k: pixels [0, first) or from first + (k - 1) * chunk
    const std::int64_t i = k == 0 ? 0 : first + (k - 1) * chunk;
    const std::int64_t n = k == 0 ? first : std::min(chunk, count - i);
    copy_rgb_pixels_walking<Walk::Up>(s + i * src_step * static_cast<std::int64_t>(itemsize), src_step, buffer, n, itemsize);
    stream_bytes(d + i * pixel, buffer, static_cast<std::size_t>(n * pixel));
  }
}

void copy_view(const kernels::StridedView& in, const kernels::StridedView& out) {
  kernels::ElementwisePlan plan = kernels::plan_elementwise(in, out);
  // A copy may visit elements in any order. An outer dim the input walks backwards (a vertical
  // flip's rows) is walked from its end instead, so that the input is read in ascending
  // addresses and the output written in descending ones: reading backwards defeats the
  // hardware prefetcher more than writing backwards does (1080p float32 vflip 1.6 -> 1.3 ms).
  const std::size_t size = itemsize(in.dtype);
  auto in_data = reinterpret_cast<std::uintptr_t>(in.data);
  auto out_data = reinterpret_cast<std::uintptr_t>(out.data);
  // Not dim 1 under short rows: run_elementwise copies those (a channels_last flip's pixels)
  // with an ascending output step.
  for (int d = plan.size[0] < kShortRow ? 2 : 1; d < plan.rank; ++d) {
    if (plan.in_stride[d] >= 0 || plan.size[d] < 2) continue;
    in_data += static_cast<std::uintptr_t>((plan.size[d] - 1) * plan.in_stride[d]) * size;
    out_data += static_cast<std::uintptr_t>((plan.size[d] - 1) * plan.out_stride[d]) * size;
    plan.in_stride[d] = -plan.in_stride[d];
    plan.out_stride[d] = -plan.out_stride[d];
    plan.out_linear = false;
  }
  detail::dispatch_itemsize(size, [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_elementwise(plan, reinterpret_cast<const T*>(in_data), reinterpret_cast<T*>(out_data), kernels::CopyOp{});
  });
}

namespace {

void copy(const Tensor& input, const Tensor& output, const Stream&) {
  copy_view(detail::strided_view(input), detail::strided_view(output));
}

SV_REGISTER_KERNEL(ops::Copy, DeviceType::CPU, &copy, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
