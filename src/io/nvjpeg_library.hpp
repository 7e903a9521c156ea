// Internal: nvJPEG, loaded at first use with dlopen instead of linked.
//
// Why dlopen: libnvjpeg.so.13 is 6 MB that most users of the library never touch (every op but
// decode_jpeg(device='cuda')), it comes from a separate package (PyPI nvidia-nvjpeg, or a CUDA
// toolkit that has it) and it may be absent where streamvision is installed. Linked, its absence
// would stop libstreamvision.so from loading at all; loaded on demand, only the GPU decode fails,
// with an Error that says what was searched. The header (nvjpeg.h) is needed at build time only,
// for the types and the function signatures the table below is typed with.
#pragma once

#include <nvjpeg.h>

#include <string>

namespace streamvision::io::detail {

// Every nvJPEG function the decoder calls, so the table is typed by the header's declarations.
#define SV_NVJPEG_FUNCTIONS(X)          \
  X(nvjpegGetProperty)                  \
  X(nvjpegCreateExV2)                   \
  X(nvjpegJpegStateCreate)              \
  X(nvjpegJpegStateDestroy)             \
  X(nvjpegDecodeBatchedInitialize)      \
  X(nvjpegDecodeBatched)                \
  X(nvjpegDecodeBatchedSupported)       \
  X(nvjpegJpegStreamCreate)             \
  X(nvjpegJpegStreamParse)              \
  X(nvjpegJpegStreamParseHeader)        \
  X(nvjpegJpegStreamGetFrameDimensions) \
  X(nvjpegJpegStreamGetComponentsNum)   \
  X(nvjpegJpegStreamGetChromaSubsampling) \
  X(nvjpegJpegStreamGetExifOrientation) \
  X(nvjpegDecoderCreate)                \
  X(nvjpegDecoderStateCreate)           \
  X(nvjpegDecodeParamsCreate)           \
  X(nvjpegDecodeParamsSetOutputFormat)  \
  X(nvjpegBufferPinnedCreateV2)         \
  X(nvjpegBufferDeviceCreateV2)         \
  X(nvjpegStateAttachPinnedBuffer)      \
  X(nvjpegStateAttachDeviceBuffer)      \
  X(nvjpegDecodeJpegHost)               \
  X(nvjpegDecodeJpegTransferToDevice)   \
  X(nvjpegDecodeJpegDevice)

struct NvjpegApi {
#define SV_NVJPEG_MEMBER(name) decltype(&::name) name = nullptr;
  SV_NVJPEG_FUNCTIONS(SV_NVJPEG_MEMBER)
#undef SV_NVJPEG_MEMBER
  std::string path;  // the file that was loaded (for messages)
};

// The loaded library, or nullptr when it cannot be loaded; then `why` (if given) says what was
// tried. Searched in order: the file named by the environment variable SV_NVJPEG_LIBRARY; the
// soname libnvjpeg.so.13 through the dynamic loader (LD_LIBRARY_PATH, the system, or a copy the
// Python package already loaded from the nvidia-nvjpeg wheel); the folder CMake found at build
// time. Loaded once per process; thread-safe.
const NvjpegApi* nvjpeg_api(std::string* why = nullptr);

// "NVJPEG_STATUS_BAD_JPEG" etc.
const char* nvjpeg_status_name(nvjpegStatus_t status);

}  // namespace streamvision::io::detail
