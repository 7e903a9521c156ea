// Loads libnvjpeg.so.13 on first use (see nvjpeg_library.hpp for why it is not linked).
#include "io/nvjpeg_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace streamvision::io::detail {

namespace {

constexpr const char* kSoname = "libnvjpeg.so.13";

struct Loaded {
  NvjpegApi api;
  bool ok = false;
  std::string why;
};

// Fills `api` from `handle`; false (and the missing name in `why`) when a symbol is absent, which
// means a library older than the header we were built with.
bool resolve(void* handle, NvjpegApi& api, std::string& why) {
#define SV_NVJPEG_RESOLVE(name)                                               \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name));      \
  if (api.name == nullptr) {                                                  \
    why = std::string(api.path) + " has no symbol " #name " (an older nvJPEG)"; \
    return false;                                                             \
  }
  SV_NVJPEG_FUNCTIONS(SV_NVJPEG_RESOLVE)
#undef SV_NVJPEG_RESOLVE
  return true;
}

Loaded load() {
  Loaded loaded;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("SV_NVJPEG_LIBRARY"); env != nullptr && *env != '\0') candidates.emplace_back(env);
  candidates.emplace_back(kSoname);
#ifdef SV_NVJPEG_LIBRARY_DIR
  candidates.emplace_back(std::string(SV_NVJPEG_LIBRARY_DIR) + "/" + kSoname);
#endif
  std::string tried;
  for (const std::string& candidate : candidates) {
    // RTLD_LOCAL: nvJPEG's symbols stay out of the global namespace (another copy, e.g.
    // torchvision's bundled one, may be loaded too). Never dlclosed: decoders live until exit.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      tried += "\n  " + candidate + ": " + (error != nullptr ? error : "not found");
      continue;
    }
    loaded.api.path = candidate;
    if (!resolve(handle, loaded.api, loaded.why)) return loaded;
    loaded.ok = true;
    return loaded;
  }
  loaded.why = std::string("cannot load nvJPEG (") + kSoname +
               "); install it with `pip install nvidia-nvjpeg` (CUDA 13), or name the file in "
               "SV_NVJPEG_LIBRARY. Tried:" + tried;
  return loaded;
}

}  // namespace

const NvjpegApi* nvjpeg_api(std::string* why) {
  static const Loaded loaded = load();  // C++ guarantees one thread-safe initialisation
  if (!loaded.ok && why != nullptr) *why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

const char* nvjpeg_status_name(nvjpegStatus_t status) {
  switch (status) {
    case NVJPEG_STATUS_SUCCESS: return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG: return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
  }
  return "NVJPEG_STATUS_UNKNOWN";
}

}  // namespace streamvision::io::detail
