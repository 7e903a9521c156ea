// Compiler portability macros shared by host-only and CUDA translation units.
#pragma once

// Functions that must run on both engines (the shared per-pixel math in src/kernels/) are
// marked SV_HOST_DEVICE; under a host compiler the marker disappears.
//
// SV_UNROLL before a short loop over channels unrolls it on both compilers: the CPU engine's
// vectoriser only turns a pixel loop into vector code when the channel loops inside it are gone.
#if defined(__CUDACC__)
#define SV_HOST_DEVICE __host__ __device__
#define SV_FORCE_INLINE __forceinline__
#define SV_NOINLINE __noinline__
#if defined(__CUDA_ARCH__)
#define SV_UNROLL _Pragma("unroll")
#else
#define SV_UNROLL  // nvcc's host pass: the host compiler would warn about an unknown pragma
#endif
#else
#define SV_HOST_DEVICE
#define SV_FORCE_INLINE inline __attribute__((always_inline))
#define SV_NOINLINE __attribute__((noinline))
#if defined(__clang__)
#define SV_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define SV_UNROLL _Pragma("GCC unroll 16")
#else
#define SV_UNROLL
#endif
#endif
