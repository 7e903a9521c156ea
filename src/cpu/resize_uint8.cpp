// uint8 resize in torch's CPU integer scheme (see resize_uint8.hpp). The sums are exact int32
// arithmetic, so any summation order gives torch's result bit for bit; the loops are laid out for
// the compiler to vectorise instead:
//  * rows of pixels with P interleaved values (P = 1 for planar [C, H, W] rows, P = C for
//    channels_last), each pass one output row at a time, rows spread over the thread pool;
//  * every output index reads a window of exactly `taps` inputs (shifted inside the image, the
//    weights moved with it and zero-padded), so the inner loops have one trip count;
//  * the vertical pass is acc[k] += row[k] * w over whole contiguous rows (the loop vectorises),
//    the horizontal pass a fixed-length dot product per output value, P values at once;
//  * both are compiled twice, for AVX2 and the baseline, picked at load time (target_clones).
// Other layouts (a non-unit inner stride) take the plain strided loop.
#include "cpu/resize_uint8.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/parallel.hpp"
#include "cpu/simd.hpp"

namespace streamvision::cpu {

namespace {

using kernels::ImageBatch;

// One dimension's int16 weights: output index i reads in[start[i] .. start[i] + taps).
struct Int16Table {
  std::vector<int> start, xmin, xsize;
  std::vector<std::int16_t> w;  // taps per index, zero outside the index's own support
  int taps = 0, precision = 0;
  // The horizontal pass's SSE2 forms: weights zero-padded to `taps8` (a multiple of 8) per index,
  // and as int32 pairs (w[2k] | w[2k+1] << 16) over `taps2` (even) taps.
  int taps8 = 0, taps2 = 0;
  std::vector<std::int16_t> w8;
  std::vector<std::int32_t> pairs;
  // Per index, the pairs up to its last non-zero weight: a window shorter than the widest reads
  // no more (the weights past it are zero padding, so skipping them changes no sum).
  std::vector<int> pairs_used;
  // The short-window kernel's form (taps <= 4, planar rows), for the leading groups of 8 output
  // values that each read within one 16-byte load inside the row: per group, the load's first
  // input, two byte shuffles that gather each value's taps 0-1 and 2-3 as pairs, and the weights
  // as int16 pairs in the same order (taps 0-1 of values 0-3, of values 4-7, then taps 2-3).
  std::vector<int> group_start;
  std::vector<std::uint8_t> group_shuffle;  // 32 per group
  std::vector<std::int16_t> group_w;        // 32 per group
};

// Fills the short-window kernel's tables of `t` (see Int16Table).
void add_short_window_groups(Int16Table& t, std::int64_t in_size) {
  int groups = 0;
  for (const int all = static_cast<int>(t.start.size() / 8); groups < all; ++groups) {
    const int base = t.start[8 * groups];
    if (base + 16 > in_size || t.start[8 * groups + 7] + t.taps - base > 16) break;
  }
  t.group_start.resize(static_cast<std::size_t>(groups));
  t.group_shuffle.assign(static_cast<std::size_t>(groups) * 32, 0x80);  // 0x80: a zero byte
  t.group_w.assign(static_cast<std::size_t>(groups) * 32, 0);
  for (int g = 0; g < groups; ++g) {
    const int base = t.start[8 * g];
    t.group_start[g] = base;
    for (int i = 0; i < 8; ++i) {
      const int x = 8 * g + i, offset = t.start[x] - base;
      for (int j = 0; j < t.taps; ++j) {
        const int pair = j / 2, slot = 2 * i + j % 2;  // slot: the value's byte pair in the shuffle
        t.group_shuffle[static_cast<std::size_t>(g) * 32 + pair * 16 + slot] = static_cast<std::uint8_t>(offset + j);
        t.group_w[static_cast<std::size_t>(g) * 32 + pair * 16 + slot] = t.w[static_cast<std::size_t>(x) * t.taps + j];
      }
    }
  }
}

Int16Table int16_table(std::int64_t in_size, std::int64_t out_size, bool antialias, kernels::ResampleFilter filter) {
  const kernels::Int16Dim d = kernels::make_int16_dim(in_size, out_size, antialias, filter);
  const auto n = static_cast<std::size_t>(out_size);
  std::vector<double> w(n * static_cast<std::size_t>(d.max_taps));
  Int16Table t;
  t.xmin.resize(n);
  t.xsize.resize(n);
  double wt_max = 0.0;
  for (int i = 0; i < out_size; ++i) {
    wt_max = std::max(wt_max, kernels::int16_source_weights(d, i, t.xmin[i], t.xsize[i], w.data() + i * d.max_taps));
  }
  t.precision = kernels::int16_precision(wt_max);
  // Every support lies inside the input, so a window of min(max_taps, in_size) inputs shifted
  // left at the far edge still covers it.
  t.taps = static_cast<int>(std::min<std::int64_t>(d.max_taps, in_size));
  t.start.resize(n);
  t.w.assign(n * static_cast<std::size_t>(t.taps), 0);
  for (int i = 0; i < out_size; ++i) {
    t.start[i] = std::min(t.xmin[i], static_cast<int>(in_size) - t.taps);
    const int shift = t.xmin[i] - t.start[i];
    for (int j = 0; j < t.xsize[i]; ++j) {
      t.w[static_cast<std::size_t>(i) * t.taps + shift + j] = kernels::int16_weight(w[i * d.max_taps + j], t.precision);
    }
  }
  t.taps8 = (t.taps + 7) / 8 * 8;
  t.taps2 = (t.taps + 1) / 2 * 2;
  t.w8.assign(n * static_cast<std::size_t>(t.taps8), 0);
  t.pairs.assign(n * static_cast<std::size_t>(t.taps2 / 2), 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (int j = 0; j < t.taps; ++j) {
      const std::int16_t v = t.w[i * t.taps + j];
      t.w8[i * t.taps8 + j] = v;
      std::int32_t& pair = t.pairs[i * (t.taps2 / 2) + j / 2];
      pair = static_cast<std::int32_t>(static_cast<std::uint32_t>(pair) |
                                       (static_cast<std::uint32_t>(static_cast<std::uint16_t>(v)) << (16 * (j % 2))));
    }
  }
  t.pairs_used.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (int j = t.taps - 1; j >= 0; --j) {
      if (t.w[i * t.taps + j] != 0) {
        t.pairs_used[i] = j / 2 + 1;
        break;
      }
    }
  }
  if (t.taps <= 4) add_short_window_groups(t, in_size);
  return t;
}

// Rows of one pass: row r of the batch starts at base + offset(r); a row holds `len` values.
struct Rows {
  std::uint8_t* base;
  std::int64_t n_stride, plane_stride, row_stride;
  std::int64_t planes, height;  // rows per image = planes * height
  std::uint8_t* row(std::int64_t r) const {
    const std::int64_t y = r % height, q = r / height;
    return base + (q / planes) * n_stride + (q % planes) * plane_stride + y * row_stride;
  }
};

#if defined(__SSE2__)
// One output value (P = 1): a dot product of taps8 pixels and weights, 8 at a time
// (pmaddwd: exact int16 products summed in pairs into int32).
inline std::int32_t dot8(const std::uint8_t* s, const std::int16_t* w, int taps8) {
  const __m128i zero = _mm_setzero_si128();
  __m128i acc = zero;
  for (int j = 0; j < taps8; j += 8) {
    const __m128i px = _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + j)), zero);
    acc = _mm_add_epi32(acc, _mm_madd_epi16(px, _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + j))));
  }
  acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(1, 0, 3, 2)));
  acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(acc);
}

// One output pixel of P (3 or 4) interleaved values: two taps per pmaddwd, all channels at once.
// Reads 4 bytes per pixel (one past a 3-value pixel).
template <int P>
inline __m128i pixel_pairs(const std::uint8_t* s, const std::int32_t* pairs, int taps2, std::int32_t bias) {
  const __m128i zero = _mm_setzero_si128();
  __m128i acc = _mm_set1_epi32(bias);
  for (int k = 0; k < taps2 / 2; ++k) {
    std::int32_t a, b;
    std::memcpy(&a, s + 2 * k * P, 4);
    std::memcpy(&b, s + (2 * k + 1) * P, 4);
    const __m128i ab = _mm_unpacklo_epi8(_mm_unpacklo_epi8(_mm_cvtsi32_si128(a), _mm_cvtsi32_si128(b)), zero);
    acc = _mm_add_epi32(acc, _mm_madd_epi16(ab, _mm_set1_epi32(pairs[k])));
  }
  return acc;
}
#endif

template <int P>
inline void horizontal_row(const std::uint8_t* src, std::uint8_t* dst, const Int16Table& t, int out_w, int in_w, int p_dyn,
                           int first_x = 0) {
  const int p = P > 0 ? P : p_dyn;
  const int taps = t.taps;
  const std::int32_t bias = kernels::int16_bias(t.precision);
  for (int x = first_x; x < out_w; ++x) {
    const std::uint8_t* s = src + static_cast<std::int64_t>(t.start[x]) * p;
    const std::int16_t* w = t.w.data() + static_cast<std::int64_t>(x) * taps;
#if defined(__SSE2__)
    // The SSE2 forms read taps8 (P = 1) or taps2 pixels + 1 byte (P = 3, 4): inside the row?
    if constexpr (P == 1) {
      if (t.start[x] + t.taps8 <= in_w) {
        dst[x] = kernels::int16_finish(dot8(s, t.w8.data() + static_cast<std::int64_t>(x) * t.taps8, t.taps8) + bias, t.precision);
        continue;
      }
    } else if constexpr (P == 3 || P == 4) {
      if (t.start[x] + t.taps2 < in_w) {
        alignas(16) std::int32_t acc[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(acc),
                        pixel_pairs<P>(s, t.pairs.data() + static_cast<std::int64_t>(x) * (t.taps2 / 2), t.taps2, bias));
        for (int c = 0; c < P; ++c) dst[x * P + c] = kernels::int16_finish(acc[c], t.precision);
        continue;
      }
    }
#endif
    if constexpr (P == 1) {
      std::int32_t acc = 0;
      for (int j = 0; j < taps; ++j) acc += static_cast<std::int32_t>(s[j]) * w[j];
      dst[x] = kernels::int16_finish(acc + bias, t.precision);
    } else if constexpr (P > 1) {
      std::int32_t acc[P];
      for (int c = 0; c < P; ++c) acc[c] = bias;
      for (int j = 0; j < taps; ++j) {
        for (int c = 0; c < P; ++c) acc[c] += static_cast<std::int32_t>(s[j * P + c]) * w[j];
      }
      for (int c = 0; c < P; ++c) dst[x * P + c] = kernels::int16_finish(acc[c], t.precision);
    } else {
      for (int c = 0; c < p; ++c) {
        std::int32_t acc = bias;
        for (int j = 0; j < taps; ++j) acc += static_cast<std::int32_t>(s[j * p + c]) * w[j];
        dst[x * p + c] = kernels::int16_finish(acc, t.precision);
      }
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// Four rows of P (3 or 4) interleaved values at once with AVX2, as torch's kernel does: one
// 16-byte load per row holds four pixels (two pairs of taps; an odd last pair takes an 8-byte
// load), a byte shuffle makes (tap a, tap b) int16 pairs per channel, and one madd per two rows
// multiplies them by the pair of weights. The sums are exact integers, so the grouping changes
// nothing. Output pixels whose loads would pass the row's end are left to horizontal_row.
// Returns the number of output pixels done (a prefix: 0 .. out_w).
template <int P>
SV_CPU_V3 int horizontal_4rows(const std::uint8_t* const* src, std::uint8_t* const* dst, const Int16Table& t, int out_w,
                               int in_w) {
  // Pixels a (bytes 0..P-1) and b (bytes P..2P-1) to int16 pairs (a_c, b_c) for c = 0..3; lanes of
  // a 3-value pixel's 4th channel read zeros.
  const __m128i pairs_of = P == 4 ? _mm_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1)
                                  : _mm_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
  const __m256i shuffle = _mm256_broadcastsi128_si256(pairs_of);
  // The same for the second pair of a 16-byte load (pixels 2 and 3: bytes 2P .. 4P-1).
  const __m256i shuffle_hi = _mm256_broadcastsi128_si256(
      P == 4 ? _mm_setr_epi8(8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1)
             : _mm_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1));
  const __m256i bias = _mm256_set1_epi32(kernels::int16_bias(t.precision));
  const __m128i precision = _mm_cvtsi32_si128(t.precision);
  const int pairs = t.taps2 / 2;
  // Two pairs (four pixels) per 16-byte load; its last byte is at start + 4 * quads pixels, plus
  // 15 - 4P bytes: inside the row when start + 4 * quads <= in_w - (P == 3 ? 2 : 0).
  const int quads = pairs / 2;
  // Locals, not t's and the arrays' fields: the 1-byte stores below may alias anything, which
  // made the compiler reload every one of them for each output pixel.
  const int* const start = t.start.data();
  const int* const pairs_used = t.pairs_used.data();
  const std::int32_t* const weight_pairs = t.pairs.data();
  const int taps2 = t.taps2;
  const std::uint8_t* const s0 = src[0];
  const std::uint8_t* const s1 = src[1];
  const std::uint8_t* const s2 = src[2];
  const std::uint8_t* const s3 = src[3];
  std::uint8_t* const d[4] = {dst[0], dst[1], dst[2], dst[3]};
  int x = 0;
  for (; x < out_w; ++x) {
    if (start[x] + taps2 >= in_w || start[x] + 4 * quads > in_w - (P == 3 ? 2 : 0)) break;
    const std::int64_t offset = static_cast<std::int64_t>(start[x]) * P;
    const std::int32_t* w = weight_pairs + static_cast<std::int64_t>(x) * pairs;
    const int used = pairs_used[x], used_quads = used / 2;
    __m256i acc01 = bias, acc23 = bias;
    for (int q = 0; q < used_quads; ++q) {
      const std::int64_t at = offset + 4 * q * P;
      const __m256i wa = _mm256_set1_epi32(w[2 * q]), wb = _mm256_set1_epi32(w[2 * q + 1]);
      const __m256i r01 = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(s1 + at),
                                              reinterpret_cast<const __m128i*>(s0 + at));
      const __m256i r23 = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(s3 + at),
                                              reinterpret_cast<const __m128i*>(s2 + at));
      acc01 = _mm256_add_epi32(acc01, _mm256_madd_epi16(_mm256_shuffle_epi8(r01, shuffle), wa));
      acc23 = _mm256_add_epi32(acc23, _mm256_madd_epi16(_mm256_shuffle_epi8(r23, shuffle), wa));
      acc01 = _mm256_add_epi32(acc01, _mm256_madd_epi16(_mm256_shuffle_epi8(r01, shuffle_hi), wb));
      acc23 = _mm256_add_epi32(acc23, _mm256_madd_epi16(_mm256_shuffle_epi8(r23, shuffle_hi), wb));
    }
    for (int k = 2 * used_quads; k < used; ++k) {
      const std::int64_t at = offset + 2 * k * P;
      const __m256i wk = _mm256_set1_epi32(w[k]);
      const __m256i r01 = _mm256_set_m128i(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s1 + at)),
                                           _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s0 + at)));
      const __m256i r23 = _mm256_set_m128i(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s3 + at)),
                                           _mm_loadl_epi64(reinterpret_cast<const __m128i*>(s2 + at)));
      acc01 = _mm256_add_epi32(acc01, _mm256_madd_epi16(_mm256_shuffle_epi8(r01, shuffle), wk));
      acc23 = _mm256_add_epi32(acc23, _mm256_madd_epi16(_mm256_shuffle_epi8(r23, shuffle), wk));
    }
    // int16_finish for all 16 values: shift, then saturate to int16 and to uint8 (the same clamp
    // to [0, 255]). Bytes 0-3 of 32-bit lane 0 are row 0, lane 1 row 2, lane 4 row 1, lane 5 row 3.
    const __m256i v16 = _mm256_packs_epi32(_mm256_sra_epi32(acc01, precision), _mm256_sra_epi32(acc23, precision));
    const __m256i v8 = _mm256_packus_epi16(v16, v16);
    const std::uint32_t px[4] = {static_cast<std::uint32_t>(_mm256_extract_epi32(v8, 0)),
                                 static_cast<std::uint32_t>(_mm256_extract_epi32(v8, 4)),
                                 static_cast<std::uint32_t>(_mm256_extract_epi32(v8, 1)),
                                 static_cast<std::uint32_t>(_mm256_extract_epi32(v8, 5))};
    // A 3-value pixel is written with 4 bytes (the 4th is the next pixel's, written next) except
    // for the row's last pixel.
    if (P == 4 || x + 1 < out_w) {
      for (int row = 0; row < 4; ++row) std::memcpy(d[row] + x * P, &px[row], 4);
    } else {
      for (int row = 0; row < 4; ++row) std::memcpy(d[row] + x * P, &px[row], 3);
    }
  }
  return x;
}

// A planar row with a short window (1 to 4 taps: upscaling), 8 output values at a time with
// SSSE3: one 16-byte load covers the group's inputs, a byte shuffle gathers each value's taps as
// pairs, madd multiplies them by the int16 weight pairs (exact int32 sums), and the results are
// shifted and packed with saturation (the clamp to [0, 255]). Covers the table's leading groups
// (up to the row's right edge; fewer only when a non-antialiased downscale by close to 2x makes a
// group span more than 16 inputs): short_window_row does the rest. Returns the values done.
SV_CPU_V3 int short_window_row_v3(const std::uint8_t* src, std::uint8_t* dst, const Int16Table& t) {
  const __m128i bias4 = _mm_set1_epi32(kernels::int16_bias(t.precision)), zero = _mm_setzero_si128();
  const __m128i shift = _mm_cvtsi32_si128(t.precision);
  const bool second_pair = t.taps > 2;
  const int groups = static_cast<int>(t.group_start.size());
  for (int g = 0; g < groups; ++g) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + t.group_start[g]));
    const auto* shuffle = reinterpret_cast<const __m128i*>(t.group_shuffle.data() + 32 * static_cast<std::size_t>(g));
    const auto* w = reinterpret_cast<const __m128i*>(t.group_w.data() + 32 * static_cast<std::size_t>(g));
    const __m128i taps01 = _mm_shuffle_epi8(v, _mm_loadu_si128(shuffle));
    __m128i lo = _mm_add_epi32(bias4, _mm_madd_epi16(_mm_unpacklo_epi8(taps01, zero), _mm_loadu_si128(w)));
    __m128i hi = _mm_add_epi32(bias4, _mm_madd_epi16(_mm_unpackhi_epi8(taps01, zero), _mm_loadu_si128(w + 1)));
    if (second_pair) {
      const __m128i taps23 = _mm_shuffle_epi8(v, _mm_loadu_si128(shuffle + 1));
      lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi8(taps23, zero), _mm_loadu_si128(w + 2)));
      hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi8(taps23, zero), _mm_loadu_si128(w + 3)));
    }
    const __m128i packed = _mm_packus_epi16(_mm_packs_epi32(_mm_sra_epi32(lo, shift), _mm_sra_epi32(hi, shift)), zero);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 8 * g), packed);
  }
  return 8 * groups;
}

// Four planar rows at once: per output value and row, taps8 pixels zero-extended to int16 and
// multiplied by the shared int16 weights 8 at a time (madd: exact int32 pair sums); the four
// rows' partial sums reduce together (two rounds of hadd) and finish packed. Output values whose
// 8-byte loads would pass the row's end are left to horizontal_row. Returns the values done.
SV_CPU_V3 int horizontal_4rows_planar(const std::uint8_t* const* src, std::uint8_t* const* dst, const Int16Table& t,
                                      int out_w, int in_w) {
  const __m128i bias = _mm_set1_epi32(kernels::int16_bias(t.precision));
  const __m128i precision = _mm_cvtsi32_si128(t.precision);
  const int taps8 = t.taps8;
  int x = 0;
  for (; x < out_w; ++x) {
    const int start = t.start[x];
    if (start + taps8 > in_w) break;
    const std::int16_t* w = t.w8.data() + static_cast<std::int64_t>(x) * taps8;
    __m128i acc[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
    for (int j = 0; j < taps8; j += 8) {
      const __m128i wj = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + j));
      for (int r = 0; r < 4; ++r) {
        const __m128i px = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(src[r] + start + j)));
        acc[r] = _mm_add_epi32(acc[r], _mm_madd_epi16(px, wj));
      }
    }
    // Lane r of `sum` is row r's total.
    const __m128i sum = _mm_add_epi32(_mm_hadd_epi32(_mm_hadd_epi32(acc[0], acc[1]), _mm_hadd_epi32(acc[2], acc[3])), bias);
    const __m128i v16 = _mm_packs_epi32(_mm_sra_epi32(sum, precision), _mm_setzero_si128());
    const std::uint32_t v8 = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_packus_epi16(v16, v16)));
    for (int r = 0; r < 4; ++r) dst[r][x] = static_cast<std::uint8_t>(v8 >> (8 * r));
  }
  return x;
}
#endif

// Planar rows with a short window (upscaling: 1 to 4 taps): a fixed number of taps, unrolled,
// which costs less than a window padded to 8 and summed across a register.
template <int K>
inline void short_window_row(const std::uint8_t* src, std::uint8_t* dst, const Int16Table& t, int out_w, int first_x) {
  const std::int32_t bias = kernels::int16_bias(t.precision);
  const int precision = t.precision;
  const int* start = t.start.data();
  const std::int16_t* w = t.w.data();
  for (int x = first_x; x < out_w; ++x) {
    const std::uint8_t* s = src + start[x];
    const std::int16_t* wx = w + static_cast<std::int64_t>(x) * K;
    std::int32_t acc = bias;
    for (int j = 0; j < K; ++j) acc += static_cast<std::int32_t>(s[j]) * wx[j];
    dst[x] = kernels::int16_finish(acc, precision);
  }
}

SV_CPU_CLONES
void horizontal_rows(const Rows& src, const Rows& dst, const Int16Table& t, int out_w, int in_w, int p, std::int64_t first,
                     std::int64_t last) {
  if (p == 1 && t.taps <= 4) {
    for (std::int64_t r = first; r < last; ++r) {
      int done = 0;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
      if (cpu_is_x86_64_v3()) done = short_window_row_v3(src.row(r), dst.row(r), t);
#endif
      switch (t.taps) {
        case 1: short_window_row<1>(src.row(r), dst.row(r), t, out_w, done); break;
        case 2: short_window_row<2>(src.row(r), dst.row(r), t, out_w, done); break;
        case 3: short_window_row<3>(src.row(r), dst.row(r), t, out_w, done); break;
        default: short_window_row<4>(src.row(r), dst.row(r), t, out_w, done); break;
      }
    }
    return;
  }
  // Output values [first_x, out_w) of one row, the kernel picked by P.
  const auto row_from = [&](const std::uint8_t* in, std::uint8_t* out, int first_x) {
    switch (p) {
      case 1: horizontal_row<1>(in, out, t, out_w, in_w, p, first_x); break;
      case 3: horizontal_row<3>(in, out, t, out_w, in_w, p, first_x); break;
      case 4: horizontal_row<4>(in, out, t, out_w, in_w, p, first_x); break;
      default: horizontal_row<0>(in, out, t, out_w, in_w, p, first_x); break;
    }
  };
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  if ((p == 1 || p == 3 || p == 4) && cpu_is_x86_64_v3()) {
    for (; first + 4 <= last; first += 4) {
      const std::uint8_t* in[4];
      std::uint8_t* out[4];
      for (int i = 0; i < 4; ++i) {
        in[i] = src.row(first + i);
        out[i] = dst.row(first + i);
      }
      const int done = p == 1   ? horizontal_4rows_planar(in, out, t, out_w, in_w)
                       : p == 3 ? horizontal_4rows<3>(in, out, t, out_w, in_w)
                                : horizontal_4rows<4>(in, out, t, out_w, in_w);
      if (done == out_w) continue;
      // The last output values (loads past the row's end) one row at a time.
      for (int i = 0; i < 4; ++i) row_from(in[i], out[i], done);
    }
  }
#endif
  for (std::int64_t r = first; r < last; ++r) row_from(src.row(r), dst.row(r), 0);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// One output row of the vertical pass, 32 values at a time with AVX2, as torch's kernel does: the
// accumulators stay in registers across the taps, and each madd takes two taps (rows j and j + 1
// zero-extended and interleaved as int16 pairs, times the pair of weights). The unpacks work
// within 128-bit lanes; the packs at the end undo that order. Exact int32 sums: the same bits.
// Returns the number of values done: all of them, or none in a row shorter than 32.
SV_CPU_V3 std::int64_t vertical_row_v3(const std::uint8_t* column, std::int64_t stride, const std::int16_t* w, int taps,
                                       std::uint8_t* d, std::int64_t len, std::int32_t bias, int precision) {
  const __m256i zero = _mm256_setzero_si256();
  const __m128i shift = _mm_cvtsi32_si128(precision);
  if (len < 32) return 0;
  for (std::int64_t k = 0; k < len; k += 32) {
    // The row's last block ends at its end, overlapping the one before (the same values again).
    k = std::min(k, len - 32);
    __m256i acc[4] = {_mm256_set1_epi32(bias), _mm256_set1_epi32(bias), _mm256_set1_epi32(bias), _mm256_set1_epi32(bias)};
    for (int j = 0; j < taps; j += 2) {
      const bool pair = j + 1 < taps;
      const __m256i wp = _mm256_set1_epi32(static_cast<std::int32_t>(static_cast<std::uint16_t>(w[j]) |
                                                                     (static_cast<std::uint32_t>(pair ? static_cast<std::uint16_t>(w[j + 1]) : 0) << 16)));
      const __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(column + j * stride + k));
      const __m256i r1 = pair ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(column + (j + 1) * stride + k)) : zero;
      const __m256i a_lo = _mm256_unpacklo_epi8(r0, zero), a_hi = _mm256_unpackhi_epi8(r0, zero);
      const __m256i b_lo = _mm256_unpacklo_epi8(r1, zero), b_hi = _mm256_unpackhi_epi8(r1, zero);
      acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(_mm256_unpacklo_epi16(a_lo, b_lo), wp));
      acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(_mm256_unpackhi_epi16(a_lo, b_lo), wp));
      acc[2] = _mm256_add_epi32(acc[2], _mm256_madd_epi16(_mm256_unpacklo_epi16(a_hi, b_hi), wp));
      acc[3] = _mm256_add_epi32(acc[3], _mm256_madd_epi16(_mm256_unpackhi_epi16(a_hi, b_hi), wp));
    }
    // int16_finish: shift, then saturate to int16 and to uint8 (the clamp to [0, 255]).
    const __m256i p01 = _mm256_packs_epi32(_mm256_sra_epi32(acc[0], shift), _mm256_sra_epi32(acc[1], shift));
    const __m256i p23 = _mm256_packs_epi32(_mm256_sra_epi32(acc[2], shift), _mm256_sra_epi32(acc[3], shift));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + k), _mm256_packus_epi16(p01, p23));
  }
  return len;
}
#endif

// Output rows [first, last) of the vertical pass; `len` values per row.
SV_CPU_CLONES
void vertical_rows(const Rows& src, const Rows& dst, const Int16Table& t, std::int64_t len, std::int64_t first,
                   std::int64_t last) {
  thread_local std::vector<std::int32_t> acc_buffer;
  acc_buffer.resize(static_cast<std::size_t>(len));
  std::int32_t* acc = acc_buffer.data();
  const std::int32_t bias = kernels::int16_bias(t.precision);
  const int precision = t.precision;
  for (std::int64_t r = first; r < last; ++r) {
    const std::int64_t y = r % dst.height, image_plane = r / dst.height;
    const std::uint8_t* column = src.row(image_plane * src.height + t.start[y]);
    const std::int16_t* w = t.w.data() + y * t.taps;
    std::uint8_t* d = dst.row(r);
    std::int64_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    if (cpu_is_x86_64_v3()) done = vertical_row_v3(column, src.row_stride, w, t.taps, d, len, bias, precision);
#endif
    // The rest (all of it without AVX2): whole rows of accumulators, tap by tap.
    for (std::int64_t k = done; k < len; ++k) acc[k] = bias;
    for (int j = 0; j < t.taps; ++j) {
      const std::int32_t wj = w[j];
      if (wj == 0) continue;
      const std::uint8_t* s = column + j * src.row_stride;
      for (std::int64_t k = done; k < len; ++k) acc[k] += static_cast<std::int32_t>(s[k]) * wj;
    }
    for (std::int64_t k = done; k < len; ++k) {
      const std::int32_t v = acc[k] >> precision;
      d[k] = static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
    }
  }
}

// The plain strided loop, for layouts whose rows are not contiguous.
void strided_pass(const ImageBatch& src, const ImageBatch& dst, const Int16Table& t, bool horizontal) {
  const std::int64_t rows = dst.n * dst.c * dst.h;
  parallel_for(rows, std::max<std::int64_t>(1, (1 << 16) / std::max<std::int64_t>(dst.w * t.taps, 1)),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t r = first; r < last; ++r) {
                   const std::int64_t p = r / dst.h;
                   const int y = static_cast<int>(r % dst.h);
                   const kernels::PlaneView<std::uint8_t> s = kernels::plane_view<std::uint8_t>(src, p);
                   const auto d = kernels::plane_view<std::uint8_t, std::uint8_t*>(dst, p);
                   for (int x = 0; x < dst.w; ++x) {
                     const int i = horizontal ? x : y;
                     const std::int16_t* w = t.w.data() + static_cast<std::int64_t>(i) * t.taps;
                     const std::int64_t step = horizontal ? s.stride_w : s.stride_h;
                     const std::uint8_t* first_tap = horizontal ? &s.at(y, t.start[i]) : &s.at(t.start[i], x);
                     std::int32_t acc = kernels::int16_bias(t.precision);
                     for (int j = 0; j < t.taps; ++j) acc += static_cast<std::int32_t>(first_tap[j * step]) * w[j];
                     d.at(y, x) = kernels::int16_finish(acc, t.precision);
                   }
                 }
               });
}

// Values interleaved per pixel in a contiguous row: 1 for rows of one plane, C for channels_last;
// 0 when the rows are not contiguous.
std::int64_t interleave(const ImageBatch& b) {
  if (b.stride_w == 1 || b.w == 1) return 1;
  if (b.stride_c == 1 && b.stride_w == b.c) return b.c;
  return 0;
}

// The batch as rows of pixels with p interleaved values.
Rows rows_of(const ImageBatch& b, std::int64_t p) {
  auto* base = static_cast<std::uint8_t*>(b.data);
  if (p == 1) return Rows{base, b.stride_n, b.stride_c, b.stride_h, b.c, b.h};
  return Rows{base, b.stride_n, 0, b.stride_h, 1, b.h};
}

// A dense intermediate of `in`'s height and `out`'s width, laid out as `p` says.
ImageBatch intermediate(std::uint8_t* data, const ImageBatch& in, const ImageBatch& out, std::int64_t p) {
  if (p == 1) return kernels::int16_intermediate(data, in, out);
  ImageBatch m;
  m.data = data;
  m.n = out.n;
  m.c = out.c;
  m.h = in.h;
  m.w = out.w;
  m.stride_c = 1;
  m.stride_w = out.c;
  m.stride_h = out.w * out.c;
  m.stride_n = in.h * m.stride_h;
  return m;
}

void pass(const ImageBatch& src, const ImageBatch& dst, const Int16Table& t, bool horizontal, std::int64_t p) {
  if (p == 0) {
    strided_pass(src, dst, t, horizontal);
    return;
  }
  const Rows s = rows_of(src, p), d = rows_of(dst, p);
  const std::int64_t rows = dst.n * d.planes * d.height, len = dst.w * p;
  const std::int64_t work = len * t.taps;
  parallel_for(rows, std::max<std::int64_t>(1, (1 << 15) / std::max<std::int64_t>(work, 1)), [&](std::int64_t first, std::int64_t last) {
    if (horizontal) {
      horizontal_rows(s, d, t, static_cast<int>(dst.w), static_cast<int>(src.w), static_cast<int>(p), first, last);
    } else {
      vertical_rows(s, d, t, len, first, last);
    }
  });
}

// Many small images (a batch): each worker takes whole planes (or images, for interleaved rows),
// runs the horizontal pass into a buffer of its own and the vertical pass from it, so that the
// intermediate stays in cache instead of making a round trip through memory for the whole batch.
// The same sums as the two whole-batch passes: the same bits.
void both_passes_per_group(const ImageBatch& in, const ImageBatch& out, const Rows& s, const Rows& d,
                           const Int16Table& tx, const Int16Table& ty, std::int64_t p, std::int64_t groups) {
  const std::int64_t len = out.w * p;
  parallel_for(groups, 1, [&](std::int64_t first, std::int64_t last) {
    thread_local std::vector<std::uint8_t> mid;
    mid.resize(static_cast<std::size_t>(in.h * len));
    for (std::int64_t q = first; q < last; ++q) {
      // One group as Rows of its own: rows 0 .. height-1.
      const Rows src{s.row(q * s.height), 0, 0, s.row_stride, 1, s.height};
      const Rows m{mid.data(), 0, 0, len, 1, in.h};
      const Rows dst{d.row(q * d.height), 0, 0, d.row_stride, 1, d.height};
      horizontal_rows(src, m, tx, static_cast<int>(out.w), static_cast<int>(in.w), static_cast<int>(p), 0, in.h);
      vertical_rows(m, dst, ty, len, 0, out.h);
    }
  });
}

}  // namespace

// torch resizes uint8 this way for every channel count (its AVX2 kernel for <= 4 channels and
// the generic separable one otherwise compute the same sums): horizontal pass, rounded to uint8,
// then vertical pass; a dimension that keeps its size is skipped.
void resize_uint8_int16(const ImageBatch& in, const ImageBatch& out, bool antialias, kernels::ResampleFilter filter) {
  const bool horizontal = in.w != out.w, vertical = in.h != out.h;
  std::int64_t p = interleave(in);
  if (p != interleave(out)) p = 0;
  if (horizontal && vertical && p != 0) {
    const Rows s = rows_of(in, p), d = rows_of(out, p);
    const std::int64_t groups = out.n * d.planes;  // planes (p = 1) or images (p > 1)
    if (groups >= 2 * num_threads()) {
      both_passes_per_group(in, out, s, d, int16_table(in.w, out.w, antialias, filter),
                            int16_table(in.h, out.h, antialias, filter), p, groups);
      return;
    }
  }
  if (horizontal && vertical) {
    // Not zero-filled: the horizontal pass writes every byte.
    const std::unique_ptr<std::uint8_t[]> mid(new std::uint8_t[static_cast<std::size_t>(out.n * out.c * in.h * out.w)]);
    const ImageBatch m = intermediate(mid.get(), in, out, p == 0 ? 1 : p);
    pass(in, m, int16_table(in.w, out.w, antialias, filter), true, p);
    pass(m, out, int16_table(in.h, out.h, antialias, filter), false, p);
  } else if (horizontal) {
    pass(in, out, int16_table(in.w, out.w, antialias, filter), true, p);
  } else {
    pass(in, out, int16_table(in.h, out.h, antialias, filter), false, p);
  }
}

}  // namespace streamvision::cpu
