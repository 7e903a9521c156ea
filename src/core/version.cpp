#include "streamvision/version.hpp"

namespace streamvision {

const char* version() noexcept { return STREAMVISION_VERSION; }

}  // namespace streamvision
