// Everything of streamvision's C++ API.
#pragma once

#include "streamvision/core/allocator.hpp"
#include "streamvision/core/cuda.hpp"
#include "streamvision/core/device.hpp"
#include "streamvision/core/dtype.hpp"
#include "streamvision/core/error.hpp"
#include "streamvision/core/half.hpp"
#include "streamvision/core/stream.hpp"
#include "streamvision/core/tensor.hpp"
#include "streamvision/functional/flip.hpp"
#include "streamvision/functional/layout.hpp"
#include "streamvision/functional/normalize.hpp"
#include "streamvision/functional/registry.hpp"
#include "streamvision/functional/to_dtype.hpp"
