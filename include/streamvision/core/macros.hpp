// Compiler portability macros shared by host-only and CUDA translation units.
#pragma once

// Functions that must run on both engines (the shared per-pixel math in src/kernels/) are
// marked SV_HOST_DEVICE; under a host compiler the marker disappears.
#if defined(__CUDACC__)
#define SV_HOST_DEVICE __host__ __device__
#define SV_FORCE_INLINE __forceinline__
#else
#define SV_HOST_DEVICE
#define SV_FORCE_INLINE inline __attribute__((always_inline))
#endif
