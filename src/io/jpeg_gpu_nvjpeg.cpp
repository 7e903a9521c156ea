// The GPU JPEG decoder: nvJPEG, batched, ordered on the caller's stream without host syncs.
//
// Two nvJPEG paths, chosen per image:
//  * the hardware engine (A100, H100, H200...: NVJPEG_BACKEND_HARDWARE, nvjpegDecodeBatched) for
//    the baseline JPEGs it supports (nvjpegDecodeBatchedSupported);
//  * the decoupled hybrid API (Huffman on the host, the rest in kernels) for the others
//    (progressive JPEGs...), and for everything on GPUs without the engine.
// Images nvJPEG cannot decode at all (CMYK, 12-bit...) fall back to the CPU decoder and are copied
// to the device on the stream.
//
// Ordering. The hybrid path honours the stream: it writes the outputs directly. The hardware
// engine does not: it writes its destinations when nvjpegDecodeBatched is called, before work
// already queued on the stream has run, and a cudaStreamWaitEvent cannot hold it back (measured
// by torchcodec, PR #1634, nvJPEG 12.3-13.2). Handing it the output tensors, which the stream's
// allocator may have recycled from blocks that queued kernels still read, would corrupt them.
// So the engine decodes into staging buffers that only this decoder owns, allocated with plain
// cudaMalloc (never stream-ordered memory, which is only free in stream order), and one kernel on
// the caller's stream (cuda/copy_buffers) moves the images into their outputs; an event recorded
// after the copies marks when a staging buffer may be written again, and a busy buffer is never
// waited for: another one is taken (or made, up to a few; past that the batch takes the hybrid
// path). The engine is given a stream of this decoder's own, not the caller's: nvjpegDecodeBatched
// returns only once that stream has drained (measured on the H200: given the caller's stream, it
// waited for a 100 ms kernel queued there before the call), and the engine reads nothing the
// caller's stream produces (host bitstreams in, decoder-owned staging out). Its completion is
// ordered on that stream; an event recorded there is what the copies on the caller's stream wait
// for (cudaStreamWaitEvent, no host wait), so they see whole images. The host never waits for the
// caller's work; the one wait is back-pressure on the hybrid path's own uploads when more than
// kMaxPinnedBuffers are queued (idle_pinned).
//
// Allocation: outputs come from empty() on the caller's stream (PyTorch's caching allocator when
// called from Python); the hybrid path's device buffer from streamvision's stream-ordered
// allocator through nvJPEG's V2 allocator hooks; everything else nvJPEG allocates, and the
// staging buffers, from a RetainedPool that never frees (cudaFree and cudaFreeHost wait for the
// whole device), so steady-state calls allocate nothing and no call frees synchronously.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "cuda/copy_buffers.hpp"
#include "io/codecs.hpp"
#include "io/jpeg_gpu.hpp"
#include "io/nvjpeg_library.hpp"
#include "streamvision/core/allocator.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::io::detail {

namespace {

using streamvision::detail::CudaDeviceGuard;
using streamvision::detail::require_cuda_device;

constexpr const char* kOp = "decode_jpeg";
constexpr int kMaxDevices = 64;
constexpr std::size_t kStagingAlignment = 256;
constexpr std::size_t kMaxStagingBuffers = 4;  // whole batches decoded by the engine, copies pending
constexpr std::size_t kMaxPinnedBuffers = 64;  // hybrid-path uploads pending
constexpr std::size_t kMaxBatchedStates = 8;   // the engine's states, one per (format, batch size)

[[noreturn]] void throw_nvjpeg(const char* call, nvjpegStatus_t status) {
  throw Error(ErrorKind::Runtime, kOp, std::string("nvJPEG call ") + call + " failed: " + nvjpeg_status_name(status));
}

#define SV_NVJPEG_CHECK(call)                                           \
  do {                                                                  \
    const nvjpegStatus_t sv_status_ = (call);                           \
    if (sv_status_ != NVJPEG_STATUS_SUCCESS) throw_nvjpeg(#call, sv_status_); \
  } while (0)

// nvJPEG's V2 device allocator hooks on streamvision's allocator: the hybrid path's device buffer
// is allocated and freed in order on the stream nvJPEG names (the caller's).
int device_malloc(void* context, void** ptr, std::size_t size, cudaStream_t stream) {
  const int device = static_cast<int>(reinterpret_cast<std::intptr_t>(context));
  try {
    *ptr = get_allocator(DeviceType::CUDA).allocate(size, Device::cuda(device), Stream::borrow(stream, device));
    return 0;
  } catch (...) {
    return 1;
  }
}

int device_free(void* context, void* ptr, std::size_t size, cudaStream_t stream) {
  const int device = static_cast<int>(reinterpret_cast<std::intptr_t>(context));
  get_allocator(DeviceType::CUDA).deallocate(ptr, size, Device::cuda(device), Stream::borrow(stream, device));
  return 0;
}

// A buffer reused across calls once the work that read it (recorded in `done`) has finished;
// the query never blocks.
struct Reusable {
  cudaEvent_t done = nullptr;
  bool recorded = false;
  std::uint64_t sequence = 0;  // when it was last recorded (larger: later)
  bool idle() const { return !recorded || cudaEventQuery(done) == cudaSuccess; }
};

// Memory nvJPEG allocates for itself: the handle's device buffers (the hardware engine's and the
// hybrid decoder's scratch) and the pinned host buffers of the hybrid path. With nvJPEG's default
// allocators a buffer that grows is freed with cudaFree or cudaFreeHost, and both wait on the host
// for the whole device: a decode called while the caller's stream still has work queued would
// return only when that work is done. So nothing nvJPEG frees is freed: the block comes back here
// with an event recorded on the stream nvJPEG names, and is handed out again only once that event
// has completed (queried, never waited for), so it is free now, not only in some stream's order
// (the hardware engine writes when called). The pool holds at most what the largest decodes have
// needed at once, for the life of the decoder (the process).
class RetainedPool {
 public:
  using AllocateFn = cudaError_t (*)(void** data, std::size_t size);
  explicit RetainedPool(AllocateFn allocate) : allocate_(allocate) {}

  // nvJPEG's V2 allocator hooks; the context is the pool.
  static int malloc_hook(void* context, void** data, std::size_t size, cudaStream_t) {
    return static_cast<RetainedPool*>(context)->take(data, size) ? 0 : 1;
  }
  static int free_hook(void* context, void* data, std::size_t, cudaStream_t stream) {
    return static_cast<RetainedPool*>(context)->give_back(data, stream) ? 0 : 1;
  }

  struct Block : Reusable {  // `done`: recorded when it was given back
    void* data = nullptr;
    std::size_t size = 0;
    bool in_use = true;
  };

  // The smallest idle block that fits, else a new one. Called inside a decode, which holds the
  // device's lock.
  bool take(void** data, std::size_t size) {
    Block* best = nullptr;
    for (Block& block : blocks_) {
      if (block.in_use || block.size < size || (best != nullptr && block.size >= best->size) || !block.idle()) continue;
      best = &block;
    }
    if (best == nullptr) {
      Block block;
      block.size = size;
      if (allocate_(&block.data, size) != cudaSuccess) {
        (void)cudaGetLastError();  // the failure is reported to the caller, not left sticky
        return false;
      }
      blocks_.push_back(block);
      best = &blocks_.back();
    }
    best->in_use = true;
    *data = best->data;
    return true;
  }

  // Reusable once the work queued on `stream` so far has run.
  bool give_back(void* data, cudaStream_t stream) {
    for (Block& block : blocks_) {
      if (block.data != data || !block.in_use) continue;
      if (block.done == nullptr && cudaEventCreateWithFlags(&block.done, cudaEventDisableTiming) != cudaSuccess) {
        return false;
      }
      if (cudaEventRecord(block.done, stream) != cudaSuccess) return false;
      block.recorded = true;
      block.in_use = false;
      return true;
    }
    return data == nullptr;
  }

 private:
  AllocateFn allocate_;
  std::vector<Block> blocks_;
};

cudaError_t allocate_device(void** data, std::size_t size) { return cudaMalloc(data, size); }
cudaError_t allocate_pinned(void** data, std::size_t size) { return cudaHostAlloc(data, size, cudaHostAllocDefault); }

struct StagingBuffer : Reusable {
  void* data = nullptr;
  std::size_t capacity = 0;
};

struct PinnedBuffer : Reusable {
  nvjpegBufferPinned_t buffer = nullptr;
};

// What the header says about one image.
struct ImageInfo {
  unsigned width = 0, height = 0, components = 0;
  nvjpegChromaSubsampling_t subsampling = NVJPEG_CSS_UNKNOWN;
  nvjpegExifOrientation_t orientation = NVJPEG_ORIENTATION_UNKNOWN;
  bool hardware = false;  // the engine can decode it
};

// One per device, created on first use and kept for the process (like torchvision's, it is never
// destroyed: at exit the CUDA runtime may already be gone).
class Decoder {
 public:
  explicit Decoder(int device) : device_(device), api_(*nvjpeg_api()) {
    CudaDeviceGuard guard(device);
    // STREAMVISION_NVJPEG_HARDWARE=0 leaves the engine out: every image takes the hybrid path. For
    // testing that path on GPUs with an engine, and for compute-sanitizer's initcheck, which cannot
    // see the engine's writes (they are not made by kernels or copies) and so flags nvJPEG's own
    // conversion kernel reading them.
    const char* use_engine = std::getenv("STREAMVISION_NVJPEG_HARDWARE");
    nvjpegStatus_t status = NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED;
    if (use_engine == nullptr || std::string(use_engine) != "0") {
      status = api_.nvjpegCreateExV2(NVJPEG_BACKEND_HARDWARE, &retained_device_, &retained_pinned_,
                                     NVJPEG_FLAGS_DEFAULT, &handle_);
    }
    hardware_ = status == NVJPEG_STATUS_SUCCESS;
    if (!hardware_) {  // no engine on this GPU (ARCH_MISMATCH) or none usable: the hybrid path only
      SV_NVJPEG_CHECK(api_.nvjpegCreateExV2(NVJPEG_BACKEND_DEFAULT, &retained_device_, &retained_pinned_,
                                            NVJPEG_FLAGS_DEFAULT, &handle_));
    }
    if (hardware_) {
      SV_CUDA_CHECK(cudaStreamCreateWithFlags(&engine_stream_, cudaStreamNonBlocking), kOp);
      SV_CUDA_CHECK(cudaEventCreateWithFlags(&engine_done_, cudaEventDisableTiming), kOp);
    }
    SV_NVJPEG_CHECK(api_.nvjpegDecoderCreate(handle_, NVJPEG_BACKEND_DEFAULT, &hybrid_decoder_));
    SV_NVJPEG_CHECK(api_.nvjpegDecoderStateCreate(handle_, hybrid_decoder_, &hybrid_state_));
    SV_NVJPEG_CHECK(api_.nvjpegDecodeParamsCreate(handle_, &params_));
    SV_NVJPEG_CHECK(api_.nvjpegJpegStreamCreate(handle_, &header_stream_));
    SV_NVJPEG_CHECK(api_.nvjpegJpegStreamCreate(handle_, &decode_stream_));
    nvjpegDevAllocatorV2_t allocator{&device_malloc, &device_free,
                                     reinterpret_cast<void*>(static_cast<std::intptr_t>(device))};
    SV_NVJPEG_CHECK(api_.nvjpegBufferDeviceCreateV2(handle_, &allocator, &device_buffer_));
    SV_CUDA_CHECK(cudaEventCreateWithFlags(&hybrid_done_, cudaEventDisableTiming), kOp);
  }

  std::vector<std::variant<Tensor, std::string>> decode(const std::vector<Tensor>& data, ImageReadMode mode,
                                                        bool apply_orientation, const Stream& stream) {
    CudaDeviceGuard guard(device_);
    const std::size_t n = data.size();
    std::vector<std::variant<Tensor, std::string>> results(n);
    std::vector<ImageInfo> infos(n);
    std::vector<std::size_t> hardware_rgb, hardware_gray, hybrid, on_cpu;
    for (std::size_t i = 0; i < n; ++i) {
      const auto* bytes = static_cast<const unsigned char*>(data[i].data());
      const nvjpegStatus_t status =
          api_.nvjpegJpegStreamParseHeader(handle_, bytes, static_cast<std::size_t>(data[i].numel()), header_stream_);
      if (status != NVJPEG_STATUS_SUCCESS) {
        // Not something nvJPEG reads: the CPU decoder gives the precise message, or decodes it.
        on_cpu.push_back(i);
        continue;
      }
      if (!jpeg_has_end_of_image(bytes, static_cast<std::size_t>(data[i].numel()))) {
        on_cpu.push_back(i);  // truncated (or not JPEG): the CPU decoder's error, as torchvision's
        continue;
      }
      ImageInfo& info = infos[i];
      SV_NVJPEG_CHECK(api_.nvjpegJpegStreamGetFrameDimensions(header_stream_, &info.width, &info.height));
      SV_NVJPEG_CHECK(api_.nvjpegJpegStreamGetComponentsNum(header_stream_, &info.components));
      SV_NVJPEG_CHECK(api_.nvjpegJpegStreamGetChromaSubsampling(header_stream_, &info.subsampling));
      if (api_.nvjpegJpegStreamGetExifOrientation(header_stream_, &info.orientation) != NVJPEG_STATUS_SUCCESS) {
        info.orientation = NVJPEG_ORIENTATION_UNKNOWN;
      }
      if ((info.components != 1 && info.components != 3) || info.subsampling == NVJPEG_CSS_UNKNOWN ||
          info.width == 0 || info.height == 0) {
        on_cpu.push_back(i);  // CMYK/YCCK, odd samplings: what torchvision's CPU decoder handles
        continue;
      }
      int unsupported = 1;
      if (hardware_ && api_.nvjpegDecodeBatchedSupported(handle_, header_stream_, &unsupported) == NVJPEG_STATUS_SUCCESS &&
          unsupported == 0) {
        info.hardware = true;
        (channels(mode, info) == 3 ? hardware_rgb : hardware_gray).push_back(i);
      } else {
        hybrid.push_back(i);
      }
    }

    // Outputs first, all on the caller's stream: channels_last [C, H, W] (H x W x C in memory, what
    // nvJPEG's interleaved formats write and what the CPU decoder returns).
    std::vector<Tensor> outputs(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (infos[i].width == 0) continue;
      const int c = channels(mode, infos[i]);
      outputs[i] = empty({c, static_cast<std::int64_t>(infos[i].height), static_cast<std::int64_t>(infos[i].width)},
                         DType::UInt8, Device::cuda(device_), MemoryFormat::ChannelsLast, stream);
    }

    for (const auto* group : {&hardware_rgb, &hardware_gray}) {
      if (group->empty()) continue;
      if (!decode_on_engine(data, *group, outputs, stream)) {
        // The engine refused the batch as a whole: decode its images one by one on the hybrid
        // path, which names the bad ones.
        hybrid.insert(hybrid.end(), group->begin(), group->end());
      }
    }
    if (!hybrid.empty()) decode_hybrid(data, hybrid, outputs, results, on_cpu, stream);

    for (std::size_t i = 0; i < n; ++i) {
      if (std::holds_alternative<std::string>(results[i]) || !outputs[i].defined()) continue;
      results[i] = outputs[i];
    }
    // The CPU decoder for what nvJPEG cannot read: its result (or its error message) is what
    // torchvision's CPU decode gives; copied to the device on the caller's stream.
    std::vector<char> oriented_on_cpu(n, 0);
    for (std::size_t i : on_cpu) {
      oriented_on_cpu[i] = 1;
      try {
        Tensor image = decode_jpeg_cpu(data[i], mode, apply_orientation);
        results[i] = streamvision::to_device(image, Device::cuda(device_), stream);
      } catch (const Error& error) {
        results[i] = std::string(error.what());
      }
    }
    if (apply_orientation) {
      StreamGuard on_stream(stream);  // the flips run on the caller's stream
      for (std::size_t i = 0; i < n; ++i) {
        const int orientation = static_cast<int>(infos[i].orientation);
        if (oriented_on_cpu[i] || orientation < 2 || orientation > 8) continue;
        if (auto* image = std::get_if<Tensor>(&results[i])) *image = apply_exif_orientation(*image, orientation);
      }
    }
    return results;
  }

 private:
  static int channels(ImageReadMode mode, const ImageInfo& info) {
    if (mode == ImageReadMode::Gray) return 1;
    if (mode == ImageReadMode::RGB) return 3;
    return static_cast<int>(info.components);  // Unchanged: 1 or 3 here (others went to the CPU)
  }
  static nvjpegOutputFormat_t format_for(int channels) { return channels == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGBI; }

  // One nvjpegDecodeBatched call on the engine into a staging buffer, then stream-ordered copies
  // into the outputs (see the file comment). False when nvJPEG refuses the batch.
  bool decode_on_engine(const std::vector<Tensor>& data, const std::vector<std::size_t>& group,
                        std::vector<Tensor>& outputs, const Stream& stream) {
    std::vector<std::size_t> offsets(group.size());
    std::size_t total = 0;
    for (std::size_t k = 0; k < group.size(); ++k) {
      offsets[k] = total;
      total += (outputs[group[k]].nbytes() + kStagingAlignment - 1) / kStagingAlignment * kStagingAlignment;
    }
    StagingBuffer* staging = idle_staging(total);
    if (staging == nullptr) return false;
    std::vector<const unsigned char*> bitstreams(group.size());
    std::vector<std::size_t> lengths(group.size());
    std::vector<nvjpegImage_t> destinations(group.size());
    for (std::size_t k = 0; k < group.size(); ++k) {
      const Tensor& out = outputs[group[k]];
      bitstreams[k] = static_cast<const unsigned char*>(data[group[k]].data());
      lengths[k] = static_cast<std::size_t>(data[group[k]].numel());
      destinations[k] = nvjpegImage_t{};
      destinations[k].channel[0] = static_cast<unsigned char*>(staging->data) + offsets[k];
      destinations[k].pitch[0] = static_cast<std::size_t>(out.size(2) * out.size(0));  // W * C
    }
    const nvjpegOutputFormat_t format = format_for(static_cast<int>(outputs[group[0]].size(0)));
    const int batch = static_cast<int>(group.size());
    nvjpegJpegState_t state = batched_state(format, batch);
    if (api_.nvjpegDecodeBatchedInitialize(handle_, state, batch, 1, format) != NVJPEG_STATUS_SUCCESS ||
        api_.nvjpegDecodeBatched(handle_, state, bitstreams.data(), lengths.data(), destinations.data(),
                                 engine_stream_) != NVJPEG_STATUS_SUCCESS) {
      return false;
    }
    // The copies below wait on the device for the engine's completion (see the file comment).
    SV_CUDA_CHECK(cudaEventRecord(engine_done_, engine_stream_), kOp);
    SV_CUDA_CHECK(cudaStreamWaitEvent(stream.handle(), engine_done_, 0), kOp);
    std::vector<cuda::BufferCopy> copies(group.size());
    for (std::size_t k = 0; k < group.size(); ++k) {
      const Tensor& out = outputs[group[k]];
      copies[k] = {out.data(), static_cast<unsigned char*>(staging->data) + offsets[k],
                   static_cast<std::int64_t>(out.nbytes())};
    }
    cuda::copy_buffers(copies.data(), copies.size(), stream, kOp);  // one launch, not a copy per image
    record(*staging, stream);
    return true;
  }

  // The engine's state for batches of this format and size. Re-initialising one state for
  // another output format made nvjpegDecodeBatched wait on the host for the whole device
  // (measured on the H200: an RGB batch after a gray one waited for a 100 ms kernel queued on the
  // caller's stream), so each (format, batch size) keeps a state of its own and none is ever
  // re-initialised for another; measured with this, alternating formats and batch sizes never
  // wait. The least recently used of kMaxBatchedStates is destroyed to make room (its engine work
  // has drained: see the file comment), which may wait, when a caller cycles through more.
  nvjpegJpegState_t batched_state(nvjpegOutputFormat_t format, int batch) {
    BatchedState* lru = nullptr;
    for (auto& entry : batched_states_) {
      if (entry.format == format && entry.batch == batch) {
        entry.last_used = ++sequence_;
        return entry.state;
      }
      if (lru == nullptr || entry.last_used < lru->last_used) lru = &entry;
    }
    if (batched_states_.size() >= kMaxBatchedStates) {
      SV_NVJPEG_CHECK(api_.nvjpegJpegStateDestroy(lru->state));
      *lru = batched_states_.back();
      batched_states_.pop_back();
    }
    BatchedState entry{nullptr, format, batch, ++sequence_};
    SV_NVJPEG_CHECK(api_.nvjpegJpegStateCreate(handle_, &entry.state));
    batched_states_.push_back(entry);
    return entry.state;
  }

  // A staging buffer of at least `bytes` that no queued copy still reads, or nullptr. Never waits:
  // a busy or small buffer is passed over and a new one taken from the retained pool (memory that
  // is free now, not only in some stream's order, since the engine writes at once). At most
  // kMaxStagingBuffers exist (each holds a whole batch): when all are busy — the host runs that
  // many batches ahead of the stream — the caller decodes on the hybrid path instead, which
  // writes in stream order and needs no staging.
  StagingBuffer* idle_staging(std::size_t bytes) {
    StagingBuffer* small_idle = nullptr;
    for (auto& buffer : staging_) {
      if (!buffer->idle()) continue;
      if (buffer->capacity >= bytes) return buffer.get();
      small_idle = buffer.get();
    }
    StagingBuffer* target = small_idle;
    if (target == nullptr) {
      if (staging_.size() >= kMaxStagingBuffers) return nullptr;
      staging_.push_back(std::make_unique<StagingBuffer>());
      target = staging_.back().get();
      SV_CUDA_CHECK(cudaEventCreateWithFlags(&target->done, cudaEventDisableTiming), kOp);
    } else {
      // Idle and too small: its memory goes back to the pool (not cudaFree: see RetainedPool).
      device_pool_.give_back(target->data, engine_stream_);
      target->data = nullptr;
      target->capacity = 0;
    }
    const std::size_t capacity = bytes + bytes / 4;  // headroom for the next, slightly larger batch
    if (!device_pool_.take(&target->data, capacity)) {
      throw Error(ErrorKind::Runtime, kOp, "out of GPU memory for a " + std::to_string(capacity) + "-byte staging buffer");
    }
    target->capacity = capacity;
    return target;
  }

  // A pinned buffer whose last upload has run. New ones are made while fewer than
  // kMaxPinnedBuffers exist; past that (that many uploads queued behind the caller's work) the
  // host waits for the oldest upload: the one wait in the decoder, back-pressure that bounds
  // pinned memory, reached only when the host is that far ahead of the stream.
  PinnedBuffer& idle_pinned() {
    PinnedBuffer* oldest = nullptr;
    for (auto& buffer : pinned_) {
      if (buffer->idle()) return *buffer;
      if (oldest == nullptr || buffer->sequence < oldest->sequence) oldest = buffer.get();
    }
    if (pinned_.size() >= kMaxPinnedBuffers) {
      SV_CUDA_CHECK(cudaEventSynchronize(oldest->done), kOp);
      return *oldest;
    }
    pinned_.push_back(std::make_unique<PinnedBuffer>());
    PinnedBuffer& buffer = *pinned_.back();
    SV_CUDA_CHECK(cudaEventCreateWithFlags(&buffer.done, cudaEventDisableTiming), kOp);
    SV_NVJPEG_CHECK(api_.nvjpegBufferPinnedCreateV2(handle_, &retained_pinned_, &buffer.buffer));
    return buffer;
  }

  void record(Reusable& buffer, const Stream& stream) {
    SV_CUDA_CHECK(cudaEventRecord(buffer.done, stream.handle()), kOp);
    buffer.recorded = true;
    buffer.sequence = ++sequence_;
  }

  // The decoupled API image by image: Huffman decoding on the host into a pinned buffer, its
  // upload and the GPU stages on the caller's stream, writing the output directly.
  void decode_hybrid(const std::vector<Tensor>& data, const std::vector<std::size_t>& indices, std::vector<Tensor>& outputs,
                     std::vector<std::variant<Tensor, std::string>>& results, std::vector<std::size_t>& on_cpu,
                     const Stream& stream) {
    // The device buffer and the state are shared by every stream that calls: order this call
    // after the previous one's GPU stages (a device-side wait; nothing blocks the host).
    if (hybrid_used_) SV_CUDA_CHECK(cudaStreamWaitEvent(stream.handle(), hybrid_done_, 0), kOp);
    SV_NVJPEG_CHECK(api_.nvjpegStateAttachDeviceBuffer(hybrid_state_, device_buffer_));
    for (std::size_t i : indices) {
      const auto* bytes = static_cast<const unsigned char*>(data[i].data());
      const std::size_t length = static_cast<std::size_t>(data[i].numel());
      Tensor& out = outputs[i];
      PinnedBuffer& pinned = idle_pinned();
      SV_NVJPEG_CHECK(api_.nvjpegStateAttachPinnedBuffer(hybrid_state_, pinned.buffer));
      SV_NVJPEG_CHECK(api_.nvjpegDecodeParamsSetOutputFormat(params_, format_for(static_cast<int>(out.size(0)))));
      nvjpegStatus_t status = api_.nvjpegJpegStreamParse(handle_, bytes, length, 0, 0, decode_stream_);
      if (status == NVJPEG_STATUS_SUCCESS) {
        status = api_.nvjpegDecodeJpegHost(handle_, hybrid_decoder_, hybrid_state_, params_, decode_stream_);
      }
      if (status == NVJPEG_STATUS_JPEG_NOT_SUPPORTED || status == NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED) {
        out = Tensor();
        on_cpu.push_back(i);
        continue;
      }
      if (status != NVJPEG_STATUS_SUCCESS) {
        out = Tensor();
        results[i] = std::string("corrupt or truncated JPEG data (nvJPEG: ") + nvjpeg_status_name(status) + ")";
        continue;
      }
      {
  SV_NVJPEG_CHECK(
          api_.nvjpegDecodeJpegTransferToDevice(handle_, hybrid_decoder_, hybrid_state_, decode_stream_, stream.handle()));
      }
      // The pinned buffer is free again once its upload has run.
      record(pinned, stream);
      nvjpegImage_t destination{};
      destination.channel[0] = static_cast<unsigned char*>(out.data());
      destination.pitch[0] = static_cast<std::size_t>(out.size(2) * out.size(0));  // W * C
      {
  status = api_.nvjpegDecodeJpegDevice(handle_, hybrid_decoder_, hybrid_state_, &destination, stream.handle());
      }
      if (status != NVJPEG_STATUS_SUCCESS) {
        out = Tensor();
        results[i] = std::string("corrupt or truncated JPEG data (nvJPEG: ") + nvjpeg_status_name(status) + ")";
      }
    }
    SV_CUDA_CHECK(cudaEventRecord(hybrid_done_, stream.handle()), kOp);
    hybrid_used_ = true;
  }

  int device_;
  const NvjpegApi& api_;
  // Declared before the handle that uses them (see RetainedPool).
  RetainedPool device_pool_{&allocate_device};
  RetainedPool pinned_pool_{&allocate_pinned};
  nvjpegDevAllocatorV2_t retained_device_{&RetainedPool::malloc_hook, &RetainedPool::free_hook, &device_pool_};
  nvjpegPinnedAllocatorV2_t retained_pinned_{&RetainedPool::malloc_hook, &RetainedPool::free_hook, &pinned_pool_};
  bool hardware_ = false;
  nvjpegHandle_t handle_ = nullptr;
  struct BatchedState {
    nvjpegJpegState_t state;
    nvjpegOutputFormat_t format;
    int batch;
    std::uint64_t last_used;
  };
  std::vector<BatchedState> batched_states_;  // the engine's, per (format, batch size)
  cudaStream_t engine_stream_ = nullptr;  // the hardware engine's (see the file comment)
  cudaEvent_t engine_done_ = nullptr;
  nvjpegJpegDecoder_t hybrid_decoder_ = nullptr;
  nvjpegJpegState_t hybrid_state_ = nullptr;
  nvjpegDecodeParams_t params_ = nullptr;
  nvjpegJpegStream_t header_stream_ = nullptr;
  nvjpegJpegStream_t decode_stream_ = nullptr;
  nvjpegBufferDevice_t device_buffer_ = nullptr;
  cudaEvent_t hybrid_done_ = nullptr;
  bool hybrid_used_ = false;
  std::vector<std::unique_ptr<StagingBuffer>> staging_;
  std::vector<std::unique_ptr<PinnedBuffer>> pinned_;
  std::uint64_t sequence_ = 0;
};

// One decoder per device; a call holds its device's lock (nvJPEG's states are not shared
// between threads).
struct DecoderSlot {
  std::mutex mutex;
  Decoder* decoder = nullptr;  // leaked on purpose: see Decoder
};
std::array<DecoderSlot, kMaxDevices> decoders;

}  // namespace

bool gpu_jpeg_decoder_available() { return nvjpeg_api() != nullptr; }

std::vector<std::variant<Tensor, std::string>> decode_jpeg_gpu(const std::vector<Tensor>& data, ImageReadMode mode,
                                                               bool apply_exif_orientation, Device device,
                                                               const Stream& stream) {
  if (mode != ImageReadMode::Unchanged && mode != ImageReadMode::Gray && mode != ImageReadMode::RGB) {
    throw Error(ErrorKind::Runtime, kOp,
                std::string("The provided mode is not supported for JPEG files (mode=") + image_read_mode_name(mode) +
                    "; JPEG decodes to UNCHANGED, GRAY or RGB)");
  }
  std::string why;
  if (nvjpeg_api(&why) == nullptr) throw Error(ErrorKind::Runtime, kOp, "device='" + device.str() + "': " + why);
  if (device.index < 0 || device.index >= kMaxDevices) {
    throw Error(ErrorKind::Value, kOp, "device", "a CUDA device with an index", device.str());
  }
  require_cuda_device(device.index, kOp);
  // nvJPEG decodes partly on the host (Huffman) and on the engine, outside any stream: nothing of
  // it can be recorded into a CUDA graph. Refuse clearly rather than record half a decode.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  SV_CUDA_CHECK(cudaStreamIsCapturing(stream.handle(), &capture), kOp);
  if (capture != cudaStreamCaptureStatusNone) {
    throw Error(ErrorKind::Runtime, kOp,
                "cannot run while the stream is being captured into a CUDA graph (nvJPEG decodes on the host and "
                "on the JPEG engine, outside the stream); decode before the capture and capture what follows");
  }
  if (data.empty()) return {};
  DecoderSlot& slot = decoders[static_cast<std::size_t>(device.index)];
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (slot.decoder == nullptr) slot.decoder = new Decoder(device.index);
  return slot.decoder->decode(data, mode, apply_exif_orientation, stream);
}

}  // namespace streamvision::io::detail
