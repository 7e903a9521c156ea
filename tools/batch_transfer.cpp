#include "batch_transfer.hpp"

#include <cstdint>
#include <cstring>

namespace svtool {

namespace sv = streamvision;

namespace {

// Where each tensor goes in one buffer: dense in its own dim order, at offsets aligned for the
// kernels' vector loads.
struct Packing {
  std::vector<std::size_t> offsets;
  std::vector<sv::Dims> strides;
  std::size_t bytes = 0;
};

constexpr std::size_t kAlignment = 256;

Packing pack(const std::vector<sv::Tensor>& tensors) {
  Packing p;
  for (const sv::Tensor& t : tensors) {
    p.offsets.push_back(p.bytes);
    p.strides.push_back(sv::dense_strides_like(sv::Dims(t.shape()), t.strides()));
    p.bytes += (t.nbytes() + kAlignment - 1) / kAlignment * kAlignment;
  }
  return p;
}

sv::Tensor view_at(const sv::Tensor& buffer, const Packing& p, std::size_t k, const sv::Tensor& like) {
  return sv::from_blob(static_cast<std::uint8_t*>(buffer.data()) + p.offsets[k], sv::Dims(like.shape()), p.strides[k],
                       like.dtype(), buffer.device(), buffer.owner());
}

}  // namespace

Upload upload(const std::vector<sv::Tensor>& images, sv::Device device, const sv::Stream& stream, PinnedPool& pool) {
  Upload out;
  if (images.empty()) return out;
  const Packing p = pack(images);
  out.staging = pool.take(p.bytes);
  for (std::size_t k = 0; k < images.size(); ++k) {
    const sv::Tensor host = view_at(out.staging, p, k, images[k]);
    if (images[k].is_non_overlapping_and_dense()) {
      std::memcpy(host.data(), images[k].data(), images[k].nbytes());  // decoded images: same layout
    } else {
      sv::copy_(host, images[k]);
    }
  }
  const auto bytes = static_cast<std::int64_t>(p.bytes);
  const sv::Tensor buffer = sv::empty({bytes}, sv::DType::UInt8, device, sv::MemoryFormat::Contiguous, stream);
  sv::copy_(buffer, out.staging.slice(0, 0, bytes), stream, /*non_blocking=*/true);
  for (std::size_t k = 0; k < images.size(); ++k) out.images.push_back(view_at(buffer, p, k, images[k]));
  return out;
}

std::vector<sv::Tensor> queue_download(const std::vector<sv::Tensor>& tensors, const sv::Stream& stream,
                                       PinnedPool& pool) {
  std::vector<sv::Tensor> out;
  if (tensors.empty()) return out;
  const Packing p = pack(tensors);
  const sv::Tensor block = pool.take(p.bytes);
  try {
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      out.push_back(view_at(block, p, k, tensors[k]));
      sv::copy_(out.back(), tensors[k], stream, /*non_blocking=*/true);
    }
  } catch (...) {
    // The block goes back to the pool with the views: the copies already queued into it must
    // have run by then, or they would write into the next batch's buffer. (An error path: the
    // host may wait here.)
    try {
      stream.synchronize();
    } catch (const std::exception&) {
      // The device failed: nothing more can be done for this batch, the caller reports it.
    }
    throw;
  }
  return out;
}

}  // namespace svtool
