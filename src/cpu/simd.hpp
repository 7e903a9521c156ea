// Internal: hot CPU loops compiled twice, for x86-64-v3 (AVX2, FMA, F16C) and for the baseline,
// the copy picked once at load time from the CPU (GCC's target_clones), so one binary is fast on
// today's CPUs and still runs on any x86-64. Put SV_CPU_CLONES on a non-template function: the
// templates and functors it inlines are compiled for each target with it, so write the loop body
// as an inline template and stamp out one cloned overload per type.
//
// The build passes -ffp-contract=off, so FMA hardware changes no rounding: only explicit fma()
// calls fuse, as on CUDA, and both copies give the same bits.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SV_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SV_CPU_CLONES
#endif

// SV_IVDEP before a loop: its iterations do not depend on each other through memory (the
// programmer knows; the compiler could only check at run time, and gives up past a few pointers).
#if defined(__clang__)
#define SV_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define SV_IVDEP _Pragma("GCC ivdep")
#else
#define SV_IVDEP
#endif

// SV_PREFETCH(address): a hint to bring the cache line of `address` (an integer, so that any
// value is allowed: a prefetch never faults) into the cache ahead of its use.
#if defined(__GNUC__)
#define SV_PREFETCH(address) __builtin_prefetch(reinterpret_cast<const void*>(address))
#else
#define SV_PREFETCH(address) ((void)(address))
#endif

// For templates (target_clones cannot clone them): SV_CPU_V3 compiles one instantiation for
// x86-64-v3, and cpu_is_x86_64_v3() says, once per process, whether to run it: when the CPU can
// and STREAMVISION_CPU_BASELINE is not set (tests run both copies and compare their bits; the
// target_clones functions always follow the CPU).
//
// SV_CPU_V4 and cpu_is_x86_64_v4(): a third, AVX-512 instantiation, for the few compute-bound
// loops where 16 lanes pay (float gamma's pow: 1.37x over the AVX2 copy on the development
// machine's AMD EPYC). STREAMVISION_CPU_NO_V4 (or STREAMVISION_CPU_BASELINE) keeps them on the
// copies below it, so tests compare all three.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <cstdlib>
#define SV_CPU_V3 __attribute__((target("arch=x86-64-v3")))
#define SV_CPU_V4 __attribute__((target("arch=x86-64-v4")))
namespace streamvision::cpu {
inline bool cpu_is_x86_64_v3() {
  static const bool yes = __builtin_cpu_supports("x86-64-v3") != 0 && std::getenv("STREAMVISION_CPU_BASELINE") == nullptr;
  return yes;
}
inline bool cpu_is_x86_64_v4() {
  static const bool yes = cpu_is_x86_64_v3() && __builtin_cpu_supports("x86-64-v4") != 0 &&
                          std::getenv("STREAMVISION_CPU_NO_V4") == nullptr;
  return yes;
}
}  // namespace streamvision::cpu
#else
#define SV_CPU_V3
#define SV_CPU_V4
namespace streamvision::cpu {
inline bool cpu_is_x86_64_v3() { return false; }
inline bool cpu_is_x86_64_v4() { return false; }
}  // namespace streamvision::cpu
#endif
