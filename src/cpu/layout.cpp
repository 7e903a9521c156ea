// CPU kernel of copy (layout conversion), and copy_view, the one strided copy that flips, erase,
// permute_channels and rotate's right angles are made of.
#include "core/dtype_dispatch.hpp"
#include "cpu/elementwise.hpp"
#include "kernels/copy.hpp"
#include "streamvision/functional/layout.hpp"

namespace streamvision::cpu {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SV_REVERSE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SV_REVERSE_CLONES
#endif

// Plain reversed loops: with AVX2 the compiler turns them into 32-byte loads, a permute and stores.
template <class T>
inline void reverse_items(const T* src, T* dst, std::int64_t count) {
  for (std::int64_t j = 0; j < count; ++j) dst[j] = src[-j];
}

SV_REVERSE_CLONES void reverse_1(const std::uint8_t* src, std::uint8_t* dst, std::int64_t count) { reverse_items(src, dst, count); }
SV_REVERSE_CLONES void reverse_2(const std::uint16_t* src, std::uint16_t* dst, std::int64_t count) { reverse_items(src, dst, count); }
SV_REVERSE_CLONES void reverse_4(const std::uint32_t* src, std::uint32_t* dst, std::int64_t count) { reverse_items(src, dst, count); }

}  // namespace

void reverse_copy(const void* src, void* dst, std::int64_t count, std::size_t itemsize) {
  switch (itemsize) {
    case 1: reverse_1(static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), count); break;
    case 2: reverse_2(static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst), count); break;
    default: reverse_4(static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst), count); break;
  }
}

void copy_view(const kernels::StridedView& in, const kernels::StridedView& out) {
  const kernels::ElementwisePlan plan = kernels::plan_elementwise(in, out);
  detail::dispatch_itemsize(itemsize(in.dtype), [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_elementwise(plan, static_cast<const T*>(in.data), static_cast<T*>(out.data), kernels::CopyOp{});
  });
}

namespace {

void copy(const Tensor& input, const Tensor& output, const Stream&) {
  copy_view(detail::strided_view(input), detail::strided_view(output));
}

SV_REGISTER_KERNEL(ops::Copy, DeviceType::CPU, &copy, detail::AllDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
