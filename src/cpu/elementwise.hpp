// Internal: the CPU engine for elementwise ops. It walks the same ElementwisePlan as the CUDA
// engine, row by row (dim 0 of the plan), rows spread over the thread pool.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/tensor_views.hpp"
#include "cpu/byte_table.hpp"
#include "cpu/parallel.hpp"
#include "cpu/simd.hpp"
#include "cpu/stream_store.hpp"
#include "kernels/copy.hpp"
#include "kernels/elementwise_plan.hpp"

namespace streamvision::cpu {

// memmove(dst, src, n), faster than glibc's for a pad's rows on the development machine (an AMD
// EPYC): runs of more than 256 bytes that do not overlap (or are the same bytes) go through a
// loop of 16-byte vector moves (layout.cpp). glibc's memcpy moved the rows of a float32 pad at
// 60-65 % of its speed: 7,680-byte rows of a 1080p image 2.5 against 1.5 ms, 896-byte rows of a
// 64x3x224x224 batch 4.2 against 2.7 ms; runs of 256 bytes or fewer it copies as fast or faster.
void copy_bytes(void* dst, const void* src, std::size_t n);

// dst[j] = src[-j] for j in [0, count) in each of `rows` rows, row r from src + r * src_row to
// dst + r * dst_row (strides in items): the reversed copy of flips, for 1-, 2- and 4-byte
// elements (layout.cpp; compiled for AVX2 and the baseline, picked at load time). A horizontal
// flip's rows go in one call, not three calls per row (a 224-byte row cost as much in calls as
// in copying).
void reverse_rows(const void* src, std::int64_t src_row, void* dst, std::int64_t dst_row, std::int64_t count,
                  std::int64_t rows, std::size_t itemsize);
// The same with streaming stores (cpu/stream_store.hpp), through a buffer in L1; no fence.
void reverse_rows_streamed(const void* src, std::int64_t src_row, void* dst, std::int64_t dst_row, std::int64_t count,
                           std::int64_t rows, std::size_t itemsize);
inline void reverse_copy(const void* src, void* dst, std::int64_t count, std::size_t itemsize) {
  reverse_rows(src, 0, dst, 0, count, 1, itemsize);
}

// `rows` rows of `bytes` bytes, row r from src + r * src_row to dst + r * dst_row (strides in
// bytes): the whole-row copies of vertical flips and crops, in one call per run of rows
// (layout.cpp). With `streamed`, each row goes out with stream_bytes (no fence).
void copy_rows(const void* src, std::int64_t src_row, void* dst, std::int64_t dst_row, std::int64_t bytes,
               std::int64_t rows, bool streamed);

// dst[3i .. 3i + 3) = src[i * src_step .. + 3) for i in [0, count): packed 3-item pixels of 1-,
// 2- or 4-byte items (a channels_last RGB flip or copy), from an item step of at least 3 either
// way (layout.cpp).
void copy_rgb_pixels(const void* src, std::int64_t src_step, void* dst, std::int64_t count, std::size_t itemsize);
// The same with streaming stores, through a buffer in L1; no fence.
void copy_rgb_pixels_streamed(const void* src, std::int64_t src_step, void* dst, std::int64_t count, std::size_t itemsize);

// One run of `count` elements of one row, all of channel `channel`: the inner loops are plain
// counted loops the compiler vectorises (contiguous, and reversed for flips).
template <class In, class Out, class Op>
SV_FORCE_INLINE void elementwise_run(const In* src, Out* dst, std::int64_t count, std::int64_t is0, std::int64_t os0,
                                     std::uint32_t channel, const Op& op_ref) {
  // A local copy: 1-byte stores may alias the op's fields (cpu/pixels.hpp). Not of ops with big
  // tables (normalize's 1,024 channels, 8 KB): copied per streamed 4 KB chunk, that made
  // normalize 1.3x slower; their outputs are not 1-byte items.
  using Local = std::conditional_t<(sizeof(Op) <= 256), const Op, const Op&>;
  Local op = op_ref;
  if (os0 == 1 && is0 == 1) {
    if constexpr (std::is_same_v<Op, kernels::CopyOp> && std::is_same_v<In, Out>) {
      // glibc's copy beats the loop; memmove, as an in-place copy may pass the same run twice.
      // (copy_bytes, faster for a pad's rows, was within this host's noise for flips and copies:
      // not measured to be better here.)
      std::memmove(dst, src, static_cast<std::size_t>(count) * sizeof(In));
      return;
    }
    for (std::int64_t j = 0; j < count; ++j) dst[j] = op(src[j], channel);
  } else if (os0 == 1 && is0 == -1) {
    if constexpr (std::is_same_v<Op, kernels::CopyOp> && sizeof(In) <= 4) {
      reverse_copy(src, dst, count, sizeof(In));
      return;
    }
    for (std::int64_t j = 0; j < count; ++j) dst[j] = op(src[-j], channel);
  } else if (os0 == 1 && is0 == 0) {
    // A broadcast row (erase's value, a constant): one value, stored as a fill the compiler
    // vectorises (the strided loop below stored it element by element: erase of a 64x3x224x224
    // uint8 batch ran at 0.45x torchvision's CPU speed).
    const Out v = op(*src, channel);
    for (std::int64_t j = 0; j < count; ++j) dst[j] = v;
  } else {
    for (std::int64_t j = 0; j < count; ++j) dst[j * os0] = op(src[j * is0], channel);
  }
}

// elementwise_run compiled for x86-64-v3 and for the baseline (cpu/simd.hpp).
template <class In, class Out, class Op>
SV_CPU_V3 void elementwise_run_v3(const In* src, Out* dst, std::int64_t count, std::int64_t is0, std::int64_t os0,
                                  std::uint32_t channel, const Op& op) {
  elementwise_run(src, dst, count, is0, os0, channel, op);
}
// And for x86-64-v4 (AVX-512), instantiated only for ops that declare kWideVectors: compute-bound
// loops that gain from 16 lanes; the memory-bound rest would only grow the binary.
template <class In, class Out, class Op>
SV_CPU_V4 void elementwise_run_v4(const In* src, Out* dst, std::int64_t count, std::int64_t is0, std::int64_t os0,
                                  std::uint32_t channel, const Op& op) {
  elementwise_run(src, dst, count, is0, os0, channel, op);
}
template <class Op, class = void>
struct WideVectors : std::false_type {};
template <class Op>
struct WideVectors<Op, std::void_t<decltype(Op::kWideVectors)>> : std::bool_constant<Op::kWideVectors> {};

template <class In, class Out, class Op>
void elementwise_run_base(const In* src, Out* dst, std::int64_t count, std::int64_t is0, std::int64_t os0,
                          std::uint32_t channel, const Op& op) {
  elementwise_run(src, dst, count, is0, os0, channel, op);
}

template <int N, class In, class Out, class Op>
inline void short_row(const In* src, Out* dst, const Op& op) {
  for (int j = 0; j < N; ++j) dst[j] = op(src[j], 0u);
}

// Row r of `rows` (dst + r * dst_row, `count` items) filled with src[r * src_row].
template <class T>
inline void fill_rows(const T* src, std::int64_t src_row, T* dst, std::int64_t dst_row, std::int64_t count, std::int64_t rows) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T v = src[r * src_row];
    T* const d = dst + r * dst_row;
    if constexpr (sizeof(T) == 1) {
      std::memset(d, static_cast<unsigned char>(v), static_cast<std::size_t>(count));
    } else {
      for (std::int64_t j = 0; j < count; ++j) d[j] = v;
    }
  }
}

// Rows shorter than this (a channels_last image's pixels) are walked by dim-1 runs.
constexpr std::int64_t kShortRow = 16;

// The reversed rows and RGB pixels streamed through a buffer (layout.cpp) use this many bytes of it.
constexpr std::int64_t kStreamChunk = 4096;

// elementwise_run for a contiguous output run, written with streaming stores: the op's values
// for one 64-byte line at a time go to a line-sized local block (kept in registers or the store
// buffer) and from there to memory with stream_line. A 4 KB buffer filled by the plain loop and
// then streamed out was slower than plain stores for uint8 ops (its read and write phases
// alternate instead of overlapping); lines are 1.4x faster (a uint8 invert of 1080p, C, one
// thread: 0.72-0.85 against 1.01-1.10 ms). The run's ragged ends keep plain stores.
template <class In, class Out, class Op>
SV_FORCE_INLINE void elementwise_run_streamed(const In* src, Out* dst, std::int64_t count, std::int64_t is0,
                                              std::uint32_t channel, const Op& op_ref) {
  if constexpr (std::is_same_v<Op, kernels::CopyOp> && std::is_same_v<In, Out>) {
    if (is0 == 1) {  // a contiguous copy streams straight from the input
      stream_bytes(dst, src, static_cast<std::size_t>(count) * sizeof(Out));
      return;
    }
  }
  using Local = std::conditional_t<(sizeof(Op) <= 256), const Op, const Op&>;  // as in elementwise_run
  Local op = op_ref;
  constexpr std::int64_t kLine = 64 / static_cast<std::int64_t>(sizeof(Out));
  const std::int64_t head =
      std::min(count, static_cast<std::int64_t>((64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64 / sizeof(Out)));
  if (head > 0) elementwise_run(src, dst, head, is0, 1, channel, op);
  std::int64_t j = head;
  for (; j + kLine <= count; j += kLine) {
    alignas(64) Out line[kLine];
    for (std::int64_t k = 0; k < kLine; ++k) line[k] = op(src[(j + k) * is0], channel);
    stream_line(dst + j, line);
  }
  if (j < count) elementwise_run(src + j * is0, dst + j, count - j, is0, 1, channel, op);
}

// Which runs stream: 1-byte outputs (the lines above) and copies of any width (a 90-degree
// rotation's strided reads). Ops with wider outputs (to_dtype, normalize, float brightness) keep
// plain stores: through a 4 KB L1 buffer emptied by non-temporal stores, to_dtype uint8 -> float32
// of a 1080p image took 0.90 ms on one thread and on two, plain stores 0.83 and 0.46; float32
// normalize 1.27 / 0.94 against 1.18 / 0.76 (the development machine, twenty-seventh session). The
// buffer had been measured faster on outputs mapped afresh each call; an output the heap hands back
// is still in the L3, and the next op reads it from there.
template <class In, class Out, class Op>
inline constexpr bool kStreamedRuns = sizeof(Out) == 1 || (std::is_same_v<Op, kernels::CopyOp> && std::is_same_v<In, Out>);

template <class In, class Out, class Op>
SV_CPU_V3 void elementwise_run_streamed_v3(const In* src, Out* dst, std::int64_t count, std::int64_t is0, std::int64_t,
                                           std::uint32_t channel, const Op& op) {
  elementwise_run_streamed(src, dst, count, is0, channel, op);
}
template <class In, class Out, class Op>
SV_CPU_V4 void elementwise_run_streamed_v4(const In* src, Out* dst, std::int64_t count, std::int64_t is0, std::int64_t,
                                           std::uint32_t channel, const Op& op) {
  elementwise_run_streamed(src, dst, count, is0, channel, op);
}
template <class In, class Out, class Op>
void elementwise_run_streamed_base(const In* src, Out* dst, std::int64_t count, std::int64_t is0, std::int64_t,
                                   std::uint32_t channel, const Op& op) {
  elementwise_run_streamed(src, dst, count, is0, channel, op);
}

// Whether the output fills its memory without gaps, each dim walked forwards or backwards (a
// vertical flip writes its rows backwards). Streaming stores only pay on whole cache lines: the
// rows of an erased window, 200 of every 224 bytes, streamed, were written 4x slower, as each
// line shared with a neighbour went to memory in two partial writes.
inline bool dense_output(const kernels::ElementwisePlan& plan) {
  std::int64_t expected = 1;
  for (int d = 0; d < plan.rank; ++d) {
    if (plan.size[d] != 1 && plan.out_stride[d] != expected && plan.out_stride[d] != -expected) return false;
    expected *= plan.size[d];
  }
  return true;
}

// The input and output offsets of the plan's rows (dims 1 and up) from a given row on, one row
// at a time: the first row's index is divided out once, the next ones carry like an odometer
// (a division per dim per row cost as much as copying a 224-byte row).
class RowWalker {
 public:
  RowWalker(const kernels::ElementwisePlan& plan, std::int64_t row) : plan_(plan) {
    for (int d = 1; d < plan.rank; ++d) {
      index_[d] = row % plan.size[d];
      row /= plan.size[d];
      in_ += index_[d] * plan.in_stride[d];
      out_ += index_[d] * plan.out_stride[d];
    }
  }
  std::int64_t in() const { return in_; }
  std::int64_t out() const { return out_; }
  void next() {
    for (int d = 1; d < plan_.rank; ++d) {
      in_ += plan_.in_stride[d];
      out_ += plan_.out_stride[d];
      if (++index_[d] < plan_.size[d]) return;
      in_ -= plan_.size[d] * plan_.in_stride[d];
      out_ -= plan_.size[d] * plan_.out_stride[d];
      index_[d] = 0;
    }
  }

 private:
  const kernels::ElementwisePlan& plan_;
  std::int64_t index_[kMaxRank] = {};
  std::int64_t in_ = 0, out_ = 0;
};

// body(in_offset, out_offset, count) for each run of consecutive dim-1 rows of `plan` (rows of one
// plane: offsets step by the dim-1 strides within a run), rows [0, rows) spread over the pool in
// tasks of `grain` rows or more; each task ends with stream_fence() when `streaming`.
template <class Body>
void for_each_row_run(const kernels::ElementwisePlan& plan, std::int64_t rows, std::int64_t grain, bool streaming, const Body& body) {
  const std::int64_t n1 = plan.size[1];
  parallel_for(rows, grain, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t row = first; row < last;) {
      const std::int64_t run = std::min(last - row, n1 - row % n1);
      const RowWalker at(plan, row);
      body(at.in(), at.out(), run);
      row += run;
    }
    if (streaming) stream_fence();
  });
}

// Ops that are a uint8 table (kernels::LutOp<uint8_t>: kByteTable, a `lut` of 256 entries).
template <class Op, class = void>
struct ByteTable : std::false_type {};
template <class Op>
struct ByteTable<Op, std::void_t<decltype(Op::kByteTable)>> : std::bool_constant<Op::kByteTable> {};

// A run of such an op: unit-stride runs by byte_table_run (64 bytes a lookup where the CPU has
// AVX-512 VBMI), others by the plain loops.
template <bool kStreaming, class Op>
void byte_table_elementwise(const std::uint8_t* src, std::uint8_t* dst, std::int64_t count, std::int64_t is0, std::int64_t os0,
                            std::uint32_t channel, const Op& op) {
  if (is0 == 1 && os0 == 1) return byte_table_run(src, dst, count, op.lut, kStreaming);
  if constexpr (kStreaming) {
    elementwise_run_streamed_base(src, dst, count, is0, os0, channel, op);
  } else {
    elementwise_run_base(src, dst, count, is0, os0, channel, op);
  }
}

template <class In, class Out, class Op>
void run_elementwise(const kernels::ElementwisePlan& plan, const In* in, Out* out, const Op& op) {
  if (plan.numel == 0) return;
  auto run_fn = cpu_is_x86_64_v3() ? &elementwise_run_v3<In, Out, Op> : &elementwise_run_base<In, Out, Op>;
  if constexpr (WideVectors<Op>::value) {
    if (cpu_is_x86_64_v4()) run_fn = &elementwise_run_v4<In, Out, Op>;
  }
  auto stream_fn = run_fn;  // taken only where the op's runs stream (kStreamedRuns)
  if constexpr (kStreamedRuns<In, Out, Op>) {
    stream_fn = cpu_is_x86_64_v3() ? &elementwise_run_streamed_v3<In, Out, Op> : &elementwise_run_streamed_base<In, Out, Op>;
    if constexpr (WideVectors<Op>::value) {
      if (cpu_is_x86_64_v4()) stream_fn = &elementwise_run_streamed_v4<In, Out, Op>;
    }
  }
  if constexpr (ByteTable<Op>::value && std::is_same_v<In, std::uint8_t> && std::is_same_v<Out, std::uint8_t>) {
    if (byte_table_vectorised()) {
      run_fn = &byte_table_elementwise<false, Op>;
      stream_fn = &byte_table_elementwise<true, Op>;
    }
  }
  const std::int64_t row_len = plan.size[0];
  const std::int64_t rows = plan.numel / row_len;
  const std::int64_t is0 = plan.in_stride[0];
  const std::int64_t os0 = plan.out_stride[0];
  // Large dense outputs are written with streaming stores; each task then ends with
  // stream_fence(), before the pool (or the op's return) publishes its result.
  // Rows (and pixel runs) must start on 16 bytes, so that every store of a line is a streaming one:
  // a line written partly with plain stores and partly streamed went to memory twice (a uint8 pad's
  // 232-byte rows streamed ran 2.5x slower).
  const bool dense_large = kStreamedRuns<In, Out, Op> && dense_output(plan) && reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
                           stream_output(static_cast<std::size_t>(plan.numel) * sizeof(Out));
  const bool streaming = dense_large && row_len * static_cast<std::int64_t>(sizeof(Out)) % 16 == 0;
  if constexpr (!Op::kUsesChannel) {
    if (row_len < kShortRow && plan.rank >= 2) {
      // Short rows (a channels_last flip: rows of one pixel's channels): the rows of dim 1 in one
      // loop, offsets computed once per dim-1 run.
      const std::int64_t n1 = plan.size[1], is1 = plan.in_stride[1], os1 = plan.out_stride[1];
      const bool stream_runs = dense_large && n1 * row_len * static_cast<std::int64_t>(sizeof(Out)) % 16 == 0;
      parallel_for(rows / n1, std::max<std::int64_t>(1, 16384 / (row_len * n1)), [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t run = first; run < last; ++run) {
          std::int64_t in_off = 0, out_off = 0, rest = run;
          for (int d = 2; d < plan.rank; ++d) {
            const std::int64_t i = rest % plan.size[d];
            rest /= plan.size[d];
            in_off += i * plan.in_stride[d];
            out_off += i * plan.out_stride[d];
          }
          const In* src = in + in_off;
          Out* dst = out + out_off;
          if constexpr (std::is_same_v<Op, kernels::CopyOp> && std::is_same_v<In, Out> && sizeof(In) <= 4) {
            if (is0 == 1 && os0 == 1 && row_len == 3 && os1 == 3 && (is1 >= 3 || is1 <= -3)) {
              // Not 1-byte pixels: streamed, a 1080p uint8 channels_last flip took 1.48 against 1.28 ms
              // (float32: 4.46 against 4.71).
              (stream_runs && sizeof(In) > 1 ? copy_rgb_pixels_streamed : copy_rgb_pixels)(src, is1, dst, n1, sizeof(In));
              continue;
            }
          }
          if (is0 == 1 && os0 == 1 && row_len == 3) {  // RGB pixels: a fixed-size body per pixel
            for (std::int64_t i = 0; i < n1; ++i) short_row<3>(src + i * is1, dst + i * os1, op);
          } else if (is0 == 1 && os0 == 1 && row_len == 4) {
            for (std::int64_t i = 0; i < n1; ++i) short_row<4>(src + i * is1, dst + i * os1, op);
          } else {
            for (std::int64_t i = 0; i < n1; ++i) elementwise_run(src + i * is1, dst + i * os1, row_len, is0, os0, 0u, op);
          }
        }
        if (stream_runs) stream_fence();
      });
      return;
    }
  }
  // Work items are pieces of rows (a contiguous image is one long row), so that one image
  // spreads over the threads too.
  constexpr std::int64_t kPiece = std::int64_t{1} << 15;
  const std::int64_t pieces = (row_len + kPiece - 1) / kPiece;
  if constexpr (std::is_same_v<Op, kernels::CopyOp> && std::is_same_v<In, Out>) {
    // Copies of whole rows take one call per run of dim-1 rows rather than a call through run_fn
    // per row (a 224-byte row cost as much in calls as in copying).
    if (plan.rank >= 2 && pieces == 1 && os0 == 1) {
      const std::int64_t grain = std::max<std::int64_t>(1, kPiece / row_len);
      const std::int64_t is1 = plan.in_stride[1], os1 = plan.out_stride[1];
      if constexpr (sizeof(In) <= 4) {
        if (is0 == -1) {  // a horizontal flip (also of a crop's rows, with a wider stride)
          const auto reverse = streaming ? &reverse_rows_streamed : &reverse_rows;
          for_each_row_run(plan, rows, grain, streaming, [&](std::int64_t in_off, std::int64_t out_off, std::int64_t run) {
            reverse(in + in_off, is1, out + out_off, os1, row_len, run, sizeof(In));
          });
          return;
        }
        if (is0 == 1) {  // a vertical flip, a crop
          constexpr std::int64_t item = static_cast<std::int64_t>(sizeof(In));
          for_each_row_run(plan, rows, grain, streaming, [&](std::int64_t in_off, std::int64_t out_off, std::int64_t run) {
            copy_rows(in + in_off, is1 * item, out + out_off, os1 * item, row_len * item, run, streaming);
          });
          return;
        }
      }
      if (is0 == 0 && !streaming) {  // one value per row (erase's window, a constant per channel)
        for_each_row_run(plan, rows, grain, false, [&](std::int64_t in_off, std::int64_t out_off, std::int64_t run) {
          fill_rows(in + in_off, is1, out + out_off, os1, row_len, run);
        });
        return;
      }
    }
  }
  parallel_for(rows * pieces, std::max<std::int64_t>(1, kPiece / row_len), [&](std::int64_t first, std::int64_t last) {
    std::int64_t row = first / pieces, piece = first % pieces;
    RowWalker walk(plan, row);
    for (std::int64_t item = first; item < last; ++item) {
      if (piece == pieces) {
        piece = 0;
        ++row;
        walk.next();
      }
      const std::int64_t j0 = piece++ * kPiece;
      const std::int64_t count = std::min(kPiece, row_len - j0);
      const In* src = in + walk.in() + j0 * is0;
      Out* dst = out + walk.out() + j0 * os0;
      if constexpr (Op::kUsesChannel) {
        // Runs of one channel: channel_inner elements per channel step of the walk.
        const std::int64_t flat = row * row_len + j0;
        std::int64_t within = flat % plan.channel_inner;
        std::uint32_t channel = static_cast<std::uint32_t>((flat / plan.channel_inner) % plan.channels);
        if (plan.channel_inner < 16) {  // channels_last: the channel changes every few elements
          for (std::int64_t j = 0; j < count; ++j) {
            dst[j * os0] = op(src[j * is0], channel);
            if (++within == plan.channel_inner) {
              within = 0;
              if (++channel == plan.channels) channel = 0;
            }
          }
          continue;
        }
        for (std::int64_t j = 0; j < count;) {
          const std::int64_t run = std::min(count - j, plan.channel_inner - within);
          (streaming ? stream_fn : run_fn)(src + j * is0, dst + j * os0, run, is0, os0, channel, op);
          j += run;
          within = 0;
          if (++channel == plan.channels) channel = 0;
        }
      } else {
        (streaming ? stream_fn : run_fn)(src, dst, count, is0, os0, 0u, op);
      }
    }
    if (streaming) stream_fence();
  });
}

// The elementwise engine over same-dtype tensors (input and output may be the same tensor).
template <class T, class Op>
void run_map(const Tensor& input, const Tensor& output, const Op& op) {
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(detail::strided_view(input), detail::strided_view(output));
  run_elementwise(plan, static_cast<const T*>(input.data()), static_cast<T*>(output.data()), op);
}

// out = in element by element, any dtype (cpu/layout.cpp).
void copy_view(const kernels::StridedView& in, const kernels::StridedView& out);

}  // namespace streamvision::cpu
