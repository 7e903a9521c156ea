// A batch's trips between the host and the device on `streamvision run`'s CUDA path, through
// page-locked memory, queued on the stream without the host waiting (copy_ with non_blocking).
#pragma once

#include <vector>

#include <streamvision/streamvision.hpp>

#include "pinned_pool.hpp"

namespace svtool {

struct Upload {
  std::vector<streamvision::Tensor> images;  // on the device, in the order given: views of one buffer
  // The page-locked block the transfer reads. Keep it until the transfer has run (an event
  // recorded on the stream after it has completed): only then may it be written again.
  streamvision::Tensor staging;
};

// Copies the CPU `images` into one pinned block (on the host, here) and queues one transfer of
// it to `device` on `stream`. The device images have the CPU images' layouts.
Upload upload(const std::vector<streamvision::Tensor>& images, streamvision::Device device,
              const streamvision::Stream& stream, PinnedPool& pool);

// Queues the download of each CUDA tensor into one pinned block on `stream` and returns the CPU
// tensors (in the order given, dense in the device tensors' dim order). They hold their values
// once an event recorded on `stream` after this call has completed; the host must not read them
// before.
std::vector<streamvision::Tensor> queue_download(const std::vector<streamvision::Tensor>& tensors,
                                                 const streamvision::Stream& stream, PinnedPool& pool);

}  // namespace svtool
