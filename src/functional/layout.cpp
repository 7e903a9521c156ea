// Layout conversion and copies, within and across devices.
#include "streamvision/functional/layout.hpp"

#include <string>

#include "functional/op_context.hpp"
#include "streamvision/core/error.hpp"

#if SV_WITH_CUDA
#include "core/cuda_check.hpp"
#endif

SV_DEFINE_KERNEL_TABLE(streamvision::ops::Copy)

namespace streamvision {

namespace {

void check_same_shape(const char* op, const Tensor& dst, const Tensor& src) {
  if (!dst.defined() || !src.defined()) throw Error(ErrorKind::Type, op, "src", "defined tensors", "an undefined tensor");
  if (!(Dims(dst.shape()) == Dims(src.shape())) || dst.dtype() != src.dtype()) {
    throw Error(ErrorKind::Value, op, "src", "shape " + Dims(dst.shape()).str() + " and dtype " + dtype_name(dst.dtype()),
                "shape " + Dims(src.shape()).str() + " and dtype " + dtype_name(src.dtype()));
  }
}

// Same-device copy through the registered kernel.
void copy_same_device(const Tensor& dst, const Tensor& src, const Stream& stream) {
  if (dst.numel() == 0) return;
  kernel_table<ops::Copy>().get(src.device(), src.dtype())(src, dst, stream);
}

#if SV_WITH_CUDA
// A dense tensor on src's device holding src's elements in the dim order of `order_like`,
// so that a plain memcpy of its span can land in a tensor with those strides.
Tensor dense_in_order(const Tensor& src, const Tensor& order_like, const Stream& stream) {
  const Dims shape(src.shape());
  const Dims strides = dense_strides_like(shape, order_like.strides());
  if (Dims(src.strides()) == strides) return src;
  Tensor staged = empty_strided(shape, strides, src.dtype(), src.device(), stream);
  copy_same_device(staged, src, stream);
  return staged;
}

// copy_ with non_blocking between a CUDA tensor and a page-locked CPU tensor: queues the
// transfer on `on` and returns true, or returns false (nothing done) when the CPU side cannot
// be moved by one transfer without the host waiting, and the blocking path must run.
bool queue_host_transfer(const Tensor& dst, const Tensor& src, const Stream& on) {
  // is_pinned may ask the driver, from the current device's context: the copy's, not another
  // device's that would be created for the question.
  const detail::CudaDeviceGuard guard(on.device_index());
  if (dst.device().is_cpu() && src.device().is_cuda()) {
    // To the host: the device side is made dense in dst's order first (on the stream, freed in
    // its order after the transfer), then one transfer fills dst.
    if (!dst.is_non_overlapping_and_dense() || !is_pinned(dst)) return false;
    const Tensor staged_src = dense_in_order(src, dst, on);
    detail::copy_bytes_async(dst.data(), dst.device(), staged_src.data(), src.device(), staged_src.nbytes(), on);
    return true;
  }
  if (src.device().is_cpu() && dst.device().is_cuda()) {
    // From the host: one transfer of src's span, straight into dst when both are dense in the
    // same order, else into a device buffer in src's layout that the copy kernel then moves
    // into dst. No host-side staging, whose pageable buffer would make the transfer block.
    if (!src.is_non_overlapping_and_dense() || !is_pinned(src)) return false;
    const Dims shape(src.shape());
    const bool direct = dst.is_non_overlapping_and_dense() && Dims(src.strides()) == dense_strides_like(shape, dst.strides());
    const Tensor landing = direct ? dst : empty_strided(shape, Dims(src.strides()), src.dtype(), dst.device(), on);
    detail::copy_bytes_async(landing.data(), dst.device(), src.data(), src.device(), src.nbytes(), on);
    if (!direct) copy_same_device(dst, landing, on);
    return true;
  }
  return false;
}

#endif

}  // namespace

namespace functional {

Tensor convert_layout(const Tensor& image, MemoryFormat format, const std::optional<Stream>& stream) {
  detail::check_image("convert_layout", image, format == MemoryFormat::ChannelsLast ? 3 : 0);
  if (format == MemoryFormat::Preserve) {
    throw Error(ErrorKind::Value, "convert_layout", "format", "Contiguous or ChannelsLast", "Preserve");
  }
  if (format == MemoryFormat::Contiguous ? image.is_contiguous() : image.is_channels_last()) return image;
  const auto kernel = kernel_table<ops::Copy>().get(image.device(), image.dtype());
  const Stream on = detail::op_stream("convert_layout", image, stream);
  Tensor out = empty(Dims(image.shape()), image.dtype(), image.device(), format, on);
  if (out.numel() > 0) kernel(image, out, on);
  return out;
}

}  // namespace functional

void copy_(const Tensor& dst, const Tensor& src, const std::optional<Stream>& stream, bool non_blocking) {
  check_same_shape("copy_", dst, src);
  detail::check_no_internal_overlap("copy_", "dst", dst);
  if (dst.device() == src.device()) {
    copy_same_device(dst, src, detail::op_stream("copy_", src, stream));
    return;
  }
  if (dst.numel() == 0) return;
#if SV_WITH_CUDA
  // The CUDA side's stream orders the transfer (for CUDA -> CUDA, the destination's).
  const Device cuda_side = dst.device().is_cuda() ? dst.device() : src.device();
  const Stream on = stream ? *stream : Stream::current(cuda_side.index);
  if (!on.is_valid() || on.device_index() != cuda_side.index) {
    throw Error(ErrorKind::Value, "copy_", "stream", "a stream on " + cuda_side.str(), "another device's stream");
  }
  if (non_blocking && queue_host_transfer(dst, src, on)) return;
  // Stage src densely in dst's dim order, memcpy the span, then scatter into dst if dst is
  // not dense itself.
  const bool dst_dense = dst.is_non_overlapping_and_dense();
  const Stream src_stream = src.device().is_cuda() ? (src.device() == cuda_side ? on : Stream::current(src.device().index)) : Stream();
  const Tensor staged_src = dense_in_order(src, dst, src_stream);
  const Dims shape(dst.shape());
  const Dims strides = dense_strides_like(shape, dst.strides());
  const Tensor landing = dst_dense ? dst : empty_strided(shape, strides, dst.dtype(), dst.device(), on);
  if (src.device().is_cuda() && dst.device().is_cuda()) on.wait(src_stream);  // after the staging on the source device
  detail::copy_bytes_async(landing.data(), dst.device(), staged_src.data(), src.device(), staged_src.nbytes(), on);
  if (src.device().is_cuda() && dst.device().is_cuda()) {
    src_stream.wait(on);  // the staging buffer is freed on the source stream: keep that after the transfer
  } else if (dst.device().is_cpu()) {
    on.synchronize();  // the host reads dst next: wait for the transfer
  }
  if (!dst_dense) copy_same_device(dst, landing, dst.device().is_cuda() ? on : Stream());
#else
  (void)stream;
  (void)non_blocking;
  throw Error(ErrorKind::Runtime, "copy_", "dst", "a device this build supports",
              dst.device().str() + " / " + src.device().str() + " (streamvision was built without CUDA)");
#endif
}

Tensor to_device(const Tensor& t, Device device, const std::optional<Stream>& stream, bool non_blocking) {
  if (!t.defined()) throw Error(ErrorKind::Type, "to_device", "t", "a tensor", "an undefined tensor");
  if (t.device() == device) return t;
  const Dims shape(t.shape());
  std::optional<Stream> alloc_stream;
  if (device.is_cuda()) alloc_stream = stream ? stream : std::optional<Stream>(Stream::current(device.index));
  Tensor out = empty_strided(shape, dense_strides_like(shape, t.strides()), t.dtype(), device, alloc_stream);
  copy_(out, t, stream, non_blocking);
  return out;
}

}  // namespace streamvision
