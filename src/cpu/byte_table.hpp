// Internal: out[i] = table[in[i]] over runs of bytes, the CPU engine's uint8 lookups (gamma,
// brightness, and the apply passes of contrast, autocontrast and equalize). A scalar lookup moves
// about a byte a cycle (a 1080p uint8 adjust_gamma took 1.85 ms on one thread, invert 0.15);
// AVX-512 VBMI's two-table byte permute looks up 64 bytes in a 128-entry half of the table per
// instruction, so a 256-entry table costs two permutes and a blend per 64 bytes and the loop runs
// at the speed of a copy.
#pragma once

#include <cstdint>

#include "kernels/image_batch.hpp"

namespace streamvision::cpu {

// Whether byte_table_run has its vector loop here: x86-64 with AVX-512 VBMI (Intel since Ice
// Lake, AMD since Zen 4), unless STREAMVISION_CPU_BASELINE or STREAMVISION_CPU_NO_V4 asks for the
// plainer copies (the tests compare them). Read once.
bool byte_table_vectorised();

// out[i] = table[in[i]] for i in [0, n); the ranges may be equal, not otherwise overlap. With
// `streaming`, the 64-byte-aligned part of out is written with non-temporal stores (the caller
// ends its task with stream_fence(), as for stream_bytes). Without the vector loop, a scalar one.
void byte_table_run(const std::uint8_t* in, std::uint8_t* out, std::int64_t n, const std::uint8_t* table, bool streaming);

// Plane (n, c) of the uint8 batch `out` = tables[n * per_image + c * per_channel + in's value]
// (256 entries a table), rows over the pool, when the vector loop exists and both batches' rows
// are unit-stride (planar), or, with one table an image (per_channel 0), rows of packed pixels
// (channels-last); false, and nothing written, otherwise (the caller's pixel loop then runs).
// The colour ops whose apply pass is a table per image or channel use it: contrast, autocontrast,
// equalize.
bool lookup_planes(const kernels::ImageBatch& in, const kernels::ImageBatch& out, const std::uint8_t* tables,
                   std::int64_t per_image, std::int64_t per_channel);

}  // namespace streamvision::cpu
