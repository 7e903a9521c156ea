// libFuzzer target over the public C++ functionals on the CPU engine: the input bytes decode into
// one op call (op_case.hpp). Returning a result or throwing streamvision::Error is fine; anything
// else (another exception, a sanitizer report, a crash, a hang) is a bug.
//
// Built by -DSTREAMVISION_BUILD_FUZZ=ON (clang); run by scripts/fuzz over tests/fuzz/corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "op_case.hpp"

namespace {

// Reads the elements of a result (a sanitizer sees a result that points outside its memory):
// every element of small results, the first and the farthest of large ones.
void touch(const streamvision::Tensor& t) {
  if (!t.defined() || t.numel() == 0 || !t.device().is_cpu()) return;
  const auto* base = static_cast<const unsigned char*>(t.data());
  const std::size_t item = t.itemsize();
  volatile unsigned char sink = 0;
  if (t.numel() > (std::int64_t{1} << 16)) {
    std::int64_t last = 0;
    for (int d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
    sink = sink ^ base[0] ^ base[last * static_cast<std::int64_t>(item) + static_cast<std::int64_t>(item) - 1];
    return;
  }
  std::int64_t index[streamvision::kMaxRank] = {};
  for (std::int64_t n = 0; n < t.numel(); ++n) {
    std::int64_t offset = 0;
    for (int d = 0; d < t.dim(); ++d) offset += index[d] * t.stride(d);
    for (std::size_t b = 0; b < item; ++b) sink = sink ^ base[offset * static_cast<std::int64_t>(item) + b];
    for (int d = t.dim() - 1; d >= 0; --d) {
      if (++index[d] < t.size(d)) break;
      index[d] = 0;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sv_fuzz::ByteSource in(data, size);
  try {
    const sv_fuzz::Case c = sv_fuzz::decode_case(in, sv_fuzz::host_buffer);
    if (std::getenv("SV_FUZZ_VERBOSE")) std::fprintf(stderr, "%s %s\n", c.op->name, c.image.str().c_str());
    for (const auto& t : c.op->run(in, c.image, sv_fuzz::host_buffer)) touch(t);
  } catch (const streamvision::Error&) {
    // A refused input: the library's documented outcome.
  }
  return 0;
}
