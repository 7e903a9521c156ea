// The GPU JPEG hook of a build without nvJPEG (CMake's SV_IO_NVJPEG OFF): device='cuda' decoding
// raises a clear Error instead of silently decoding on the CPU.
#include "io/jpeg_gpu.hpp"

#include "streamvision/core/error.hpp"

namespace streamvision::io::detail {

bool gpu_jpeg_decoder_available() { return false; }

std::vector<std::variant<Tensor, std::string>> decode_jpeg_gpu(const std::vector<Tensor>&, ImageReadMode, bool,
                                                               Device device, const Stream&) {
  throw Error(ErrorKind::Runtime, "decode_jpeg",
              "device='" + device.str() +
                  "' needs the nvJPEG decoder, which this build does not have (build with CUDA and nvJPEG, "
                  "CMake option SV_IO_NVJPEG=ON; or decode with device='cpu')");
}

}  // namespace streamvision::io::detail
