// The CPU engine's byte-table lookups (see byte_table.hpp for why).
#include "cpu/byte_table.hpp"

#include <algorithm>
#include <cstdlib>

#include "cpu/parallel.hpp"
#include "cpu/simd.hpp"
#include "cpu/stream_store.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SV_BYTE_TABLE_VBMI 1
#endif

namespace streamvision::cpu {

namespace {

void scalar_run(const std::uint8_t* in, std::uint8_t* out, std::int64_t n, const std::uint8_t* table) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

#if defined(SV_BYTE_TABLE_VBMI)
#define SV_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// Entries 0-127 in t0:t1 and 128-255 in t2:t3; permutex2var reads an index's low 7 bits, and the
// index's top bit picks the half.
struct Table64 {
  __m512i t0, t1, t2, t3;
};

SV_VBMI inline __attribute__((always_inline)) __m512i lookup(const Table64& t, __m512i x) {
  const __m512i low = _mm512_permutex2var_epi8(t.t0, x, t.t1), high = _mm512_permutex2var_epi8(t.t2, x, t.t3);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
}

SV_VBMI void vbmi_run(const std::uint8_t* in, std::uint8_t* out, std::int64_t n, const std::uint8_t* table, bool streaming) {
  const Table64 t{_mm512_loadu_si512(table), _mm512_loadu_si512(table + 64), _mm512_loadu_si512(table + 128),
                  _mm512_loadu_si512(table + 192)};
  std::int64_t i = 0;
  if (streaming) {
    // Non-temporal stores need 64-byte-aligned lines: the head up to the first one in scalar.
    const std::int64_t head = static_cast<std::int64_t>((64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64);
    for (; i < head && i < n; ++i) out[i] = table[in[i]];
    for (; i + 64 <= n; i += 64) _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i), lookup(t, _mm512_loadu_si512(in + i)));
  } else {
    for (; i + 64 <= n; i += 64) _mm512_storeu_si512(out + i, lookup(t, _mm512_loadu_si512(in + i)));
  }
  if (i < n) {  // the tail, masked: no byte past n is read or written
    const __mmask64 rest = _cvtu64_mask64((~std::uint64_t{0}) >> (64 - (n - i)));
    _mm512_mask_storeu_epi8(out + i, rest, lookup(t, _mm512_maskz_loadu_epi8(rest, in + i)));
  }
}
#endif

}  // namespace

bool byte_table_vectorised() {
#if defined(SV_BYTE_TABLE_VBMI)
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vbmi") && cpu_is_x86_64_v4();
  return yes;
#else
  return false;
#endif
}

void byte_table_run(const std::uint8_t* in, std::uint8_t* out, std::int64_t n, const std::uint8_t* table, bool streaming) {
#if defined(SV_BYTE_TABLE_VBMI)
  if (byte_table_vectorised()) return vbmi_run(in, out, n, table, streaming);
#endif
  (void)streaming;
  scalar_run(in, out, n, table);
}

bool lookup_planes(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const std::uint8_t* tables,
                   std::int64_t per_image, std::int64_t per_channel) {
  if (!byte_table_vectorised()) return false;
  // One table for every channel of an image, and rows of packed pixels in and out (a decoder's
  // HWC buffer): each row's w * c bytes are one run.
  const auto packed = [](const kernels::ImageBatch& b) { return b.stride_c == 1 && b.stride_w == b.c; };
  if (per_channel == 0 && in.c > 1 && packed(in) && packed(out)) {
    const std::int64_t rows = in.n * in.h, run = in.w * in.c;
    parallel_for(rows, std::max<std::int64_t>(1, 32768 / std::max<std::int64_t>(run, 1)), [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t r = first; r < last; ++r) {
        const std::int64_t y = r % in.h, n = r / in.h;
        byte_table_run(static_cast<const std::uint8_t*>(in.data) + n * in.stride_n + y * in.stride_h,
                       static_cast<std::uint8_t*>(out.data) + n * out.stride_n + y * out.stride_h, run, tables + n * per_image, false);
      }
    });
    return true;
  }
  if (in.w > 1 && (in.stride_w != 1 || out.stride_w != 1)) return false;
  const std::int64_t rows = in.n * in.c * in.h;
  if (rows == 0 || in.w == 0) return true;
  // Streaming stores pay for outputs past the cache when whole lines are written (stream_store.hpp).
  const bool dense = out.stride_h == out.w && out.stride_c == out.h * out.w && out.stride_n == out.c * out.h * out.w;
  const bool streaming = dense && stream_output(static_cast<std::size_t>(rows * in.w));
  parallel_for(rows, std::max<std::int64_t>(1, 32768 / in.w), [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t y = r % in.h, plane = r / in.h, c = plane % in.c, n = plane / in.c;
      const auto* src = static_cast<const std::uint8_t*>(in.data) + n * in.stride_n + c * in.stride_c + y * in.stride_h;
      auto* dst = static_cast<std::uint8_t*>(out.data) + n * out.stride_n + c * out.stride_c + y * out.stride_h;
      byte_table_run(src, dst, in.w, tables + n * per_image + c * per_channel, streaming);
    }
    if (streaming) stream_fence();
  });
  return true;
}

}  // namespace streamvision::cpu
