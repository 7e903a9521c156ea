// Batch ops: one call for a whole batch whose images each have their own parameters (the
// per-sample mode of the transform classes); resized_crop_batch takes images of different sizes.
//
// resized_crop_batch: image i is cropped to boxes[i] = (top, left, height, width), resized to
// `size` (torchvision's resized_crop), flipped horizontally when hflip[i], then optionally
// converted (to_dtype with scale) and normalized (a `window` crops the resized image before the
// flip, see BatchWindow): the result's image i equals that chain of
// functionals on image i, bit for bit, in one [N, C, size[0], size[1]] tensor. On CUDA it is one
// launch per 192 images (two for float images at milder scales than ~3x each way, and for downscales
// beyond ~20x), whatever N and the sizes (the per-image parameters are read from
// `boxes` and `hflip` on the device; image pointers and sizes travel in the kernel arguments), so
// it never synchronises with the host and can be captured in a CUDA graph.
//
// images: [C, H, W] tensors, one device, dtype and channel count (a uniform batch passes its
// images as views). boxes: int64 [N, 4] on the images' device, or int64 [4] on the CPU: one box
// for every image. hflip: bool [N] there, or bool [1] on the CPU (one flip for every image), or
// none. One box or flip on the host costs nothing on the device (on CUDA its values travel in
// the kernel arguments): the form for a uniform batch (Resize then CenterCrop, one draw per call).
// On the CPU the boxes are checked (inside their image, height and width > 0); on CUDA they
// cannot be read without a synchronisation, so a box is clamped into its image instead: boxes as
// RandomResizedCrop draws them are always inside.
// CUDA supports bilinear with antialias (RandomResizedCrop's default) for uint8 and float32
// images; other modes raise NotImplemented there (the per-image ops remain).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "streamvision/core/registry.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/geometry.hpp"

namespace streamvision {

// What follows the resize in one pass: to_dtype(dtype, scale) when dtype is set, then
// normalize(mean, std) when mean is not empty (needs a float dtype).
// A window of the resized image, when the crop comes after the resize (Resize then CenterCrop):
// each image is resized to resize_h x resize_w and the output is the window at (top, left) of
// the output size. Without one, the output is the whole resized image.
struct BatchWindow {
  std::int64_t resize_h = 0, resize_w = 0, top = 0, left = 0;
};

struct BatchTail {
  std::optional<DType> dtype;
  bool scale = true;
  std::vector<double> mean, std;
};

namespace ops {
// Kernel contract: images checked (same device/dtype/channels, 3-D, non-empty), boxes int64
// contiguous [N, 4] on their device or [4] on the CPU, hflip (or an undefined Tensor) bool
// contiguous [N] on their device or [1] on the CPU,
// output [N, C, out_h, out_w] contiguous or channels-last, of the tail's dtype; mean/std hold one
// value per channel.
struct ResizedCropBatch {
  static constexpr const char* name = "resized_crop_batch";
  static constexpr int kMaxChannels = 4;
  using Kernel = void (*)(const std::vector<Tensor>& images, const Tensor& boxes, const Tensor& hflip,
                          const Tensor& output, InterpolationMode mode, bool antialias, const BatchWindow& window,
                          const BatchTail& tail, const Stream& stream);
};
// Kernel contract: random float32 contiguous [N, 2 * attempts + 2] on its device, sizes N
// (height, width) pairs on the host (each > 0), scale and ratio checked, boxes int64 contiguous
// [N, 4] on random's device.
struct ResizedCropBoxes {
  static constexpr const char* name = "resized_crop_boxes";
  using Kernel = void (*)(const Tensor& random, const std::vector<std::array<std::int64_t, 2>>& sizes,
                          const std::array<double, 2>& scale, const std::array<double, 2>& ratio, const Tensor& boxes,
                          const Stream& stream);
};
// Kernel contract: random float32 contiguous [N, 8] on its device, ranges checked (lo <= hi,
// finite), factors float64 and order int64 contiguous [N, 4] there.
struct ColorJitterParams {
  static constexpr const char* name = "color_jitter_params";
  using Kernel = void (*)(const Tensor& random, const std::array<std::optional<std::array<double, 2>>, 4>& ranges,
                          const Tensor& factors, const Tensor& order, const Stream& stream);
};
// Kernel contract: images [N, 3, H, W] (any strides), factors float64 [N, 4] and order int64
// [N, 4] contiguous on their device, output like images; enabled[k] says whether op k applies.
struct ColorJitterBatch {
  static constexpr const char* name = "color_jitter_batch";
  // tail: the optional to_dtype and normalize of the result (mean/std one value per channel),
  // output of the tail's dtype (the images' when none).
  using Kernel = void (*)(const Tensor& images, const Tensor& factors, const Tensor& order,
                          const std::array<bool, 4>& enabled, const BatchTail& tail, const Tensor& output,
                          const Stream& stream);
};
}  // namespace ops

namespace functional {

// format: the output's layout, Contiguous ([N, C, H, W]) or ChannelsLast (C innermost, as the
// per-image ops give for channels-last images), written directly by the kernels.
Tensor resized_crop_batch(const std::vector<Tensor>& images, const Tensor& boxes, const std::vector<std::int64_t>& size,
                          InterpolationMode interpolation = InterpolationMode::Bilinear,
                          std::optional<bool> antialias = true, const std::optional<Tensor>& hflip = std::nullopt,
                          const BatchTail& tail = {}, const std::optional<BatchWindow>& window = std::nullopt,
                          MemoryFormat format = MemoryFormat::Contiguous, const std::optional<Stream>& stream = std::nullopt);

// resized_crop_boxes: RandomResizedCrop's boxes for N images of the given (height, width) sizes
// from uniform random numbers, torchvision's get_params per image (kernels/resized_crop_boxes.hpp
// says which number is which): random is float32 [N, 2 * attempts + 2] with values in [0, 1),
// scale and ratio are RandomResizedCrop's (lo <= hi, ratio > 0). Returns int64 [N, 4] (top, left,
// height, width) on random's device: one launch on CUDA, sizes in its arguments, so a batch's
// sampling is torch.rand and this call, with no host-to-device copy (capturable).
Tensor resized_crop_boxes(const Tensor& random, const std::vector<std::array<std::int64_t, 2>>& sizes,
                          const std::array<double, 2>& scale, const std::array<double, 2>& ratio,
                          const std::optional<Stream>& stream = std::nullopt);

// color_jitter_params: ColorJitter's per-image draws for N images from uniform random numbers
// (kernels/color_jitter_params.hpp says which number is which): random is float32 [N, 8] with
// values in [0, 1); ranges[k] is op k's (min, max) factor range, or none for an op that does not
// apply (factor 0). Returns (factors float64 [N, 4], order int64 [N, 4]) on random's device, as
// color_jitter_batch takes them: one launch on CUDA, nothing copied from the host (capturable).
std::array<Tensor, 2> color_jitter_params(const Tensor& random,
                                          const std::array<std::optional<std::array<double, 2>>, 4>& ranges,
                                          const std::optional<Stream>& stream = std::nullopt);

// color_jitter_batch: ColorJitter's ops with each image's own factors and order. For image i,
// for k in order[i] (a permutation of 0 brightness, 1 contrast, 2 saturation, 3 hue): when
// enabled[k], adjust_<op>(image, factors[i][k]); the result equals those functionals in that
// order, bit for bit. images: [N, C, H, W] (C = 3; C = 1 on the CPU), factors float64 [N, 4],
// order int64 [N, 4], on the images' device. On CUDA it is one pass over the batch for the four
// steps (plus one reduction for the contrast means when contrast is enabled). An order that is
// not a permutation raises on the CPU, as does a hue factor outside [-0.5, 0.5]; the device
// cannot raise, so on CUDA an entry that is not 0-3 or a hue factor outside [-0.5, 0.5] (or NaN)
// leaves the image as it is at that step, and a repeated contrast blends with the mean taken
// before the first.
//
// tail (optional): then to_dtype(dtype, scale) and normalize(mean, std) of each result, as
// resized_crop_batch's tail: ColorJitter -> ToDtype -> Normalize as one pass on CUDA, the result
// equal to the three steps bit for bit.
Tensor color_jitter_batch(const Tensor& images, const Tensor& factors, const Tensor& order,
                          const std::array<bool, 4>& enabled, const BatchTail& tail = {},
                          const std::optional<Stream>& stream = std::nullopt);

}  // namespace functional
}  // namespace streamvision

SV_DECLARE_KERNEL_TABLE(streamvision::ops::ResizedCropBatch)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::ColorJitterBatch)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::ResizedCropBoxes)
SV_DECLARE_KERNEL_TABLE(streamvision::ops::ColorJitterParams)
