// pad on the CPU: hand-computed small cases for every mode, a reference loop written from
// torchvision's definitions over dtypes, shapes, layouts and paddings, fill conversions, and bad
// input. On CUDA: equal to the CPU bit for bit, also for outputs launched in pieces (skipped
// without a GPU).
#include <cmath>
#include <limits>

#include "geometry_test_utils.hpp"

namespace svt {
namespace {

// v[y][x] = 10 * y + x on a 4x5 single-channel uint8 image.
Tensor ramp_4x5() {
  Tensor t = empty({1, 4, 5}, DType::UInt8, Device::cpu());
  auto* p = t.data_as<std::uint8_t>();
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) p[y * 5 + x] = static_cast<std::uint8_t>(10 * y + x);
  return t;
}

// Expected image from per-axis source index maps (-1: fill).
void expect_maps(const Tensor& out, const std::vector<int>& ymap, const std::vector<int>& xmap, int fill) {
  ASSERT_EQ(out.size(-2), static_cast<std::int64_t>(ymap.size()));
  ASSERT_EQ(out.size(-1), static_cast<std::int64_t>(xmap.size()));
  for (std::size_t y = 0; y < ymap.size(); ++y) {
    for (std::size_t x = 0; x < xmap.size(); ++x) {
      const std::int64_t idx[3] = {0, static_cast<std::int64_t>(y), static_cast<std::int64_t>(x)};
      const int expected = ymap[y] < 0 || xmap[x] < 0 ? fill : 10 * ymap[y] + xmap[x];
      EXPECT_EQ(load<std::uint8_t>(out, idx), expected) << "at y=" << y << " x=" << x;
    }
  }
}

TEST(Pad, KnownValues4x5EveryMode) {
  const Tensor img = ramp_4x5();
  const std::vector<std::int64_t> padding{2, 1, 1, 2};  // left, top, right, bottom
  expect_maps(functional::pad(img, padding, std::vector<double>{99}, PaddingMode::Constant), {-1, 0, 1, 2, 3, -1, -1},
              {-1, -1, 0, 1, 2, 3, 4, -1}, 99);
  expect_maps(functional::pad(img, padding, std::nullopt, PaddingMode::Edge), {0, 0, 1, 2, 3, 3, 3},
              {0, 0, 0, 1, 2, 3, 4, 4}, 0);
  expect_maps(functional::pad(img, padding, std::nullopt, PaddingMode::Reflect), {1, 0, 1, 2, 3, 2, 1},
              {2, 1, 0, 1, 2, 3, 4, 3}, 0);
  expect_maps(functional::pad(img, padding, std::nullopt, PaddingMode::Symmetric), {0, 0, 1, 2, 3, 3, 2},
              {1, 0, 0, 1, 2, 3, 4, 4}, 0);
  // Padding forms: [all], [left/right, top/bottom].
  expect_maps(functional::pad(img, {1}), {-1, 0, 1, 2, 3, -1}, {-1, 0, 1, 2, 3, 4, -1}, 0);
  expect_maps(functional::pad(img, {2, 0}, std::nullopt, PaddingMode::Reflect), {0, 1, 2, 3}, {2, 1, 0, 1, 2, 3, 4, 3, 2}, 0);
  // Negative padding crops: constant and reflect read the original coordinates, symmetric crops first.
  expect_maps(functional::pad(img, {-1, 1, 2, -2}), {-1, 0, 1}, {1, 2, 3, 4, -1, -1}, 0);
  expect_maps(functional::pad(img, {-2, 0, 3, 0}, std::nullopt, PaddingMode::Reflect), {0, 1, 2, 3}, {2, 3, 4, 3, 2, 1}, 0);
  expect_maps(functional::pad(img, {-2, 0, 3, 0}, std::nullopt, PaddingMode::Symmetric), {0, 1, 2, 3}, {2, 3, 4, 4, 3, 2}, 0);
  expect_maps(functional::pad(img, {3, 0, -2, 0}, std::nullopt, PaddingMode::Symmetric), {0, 1, 2, 3}, {2, 1, 0, 0, 1, 2}, 0);
}

// ---- reference ----------------------------------------------------------------------------

std::int64_t ref_index(std::int64_t j, std::int64_t pad_before, std::int64_t pad_after, std::int64_t size, PaddingMode mode) {
  if (mode == PaddingMode::Symmetric) {
    // torchvision's _pad_symmetric: crop the negative paddings, then index lists.
    const std::int64_t crop_before = std::max<std::int64_t>(-pad_before, 0);
    const std::int64_t kept = size - crop_before - std::max<std::int64_t>(-pad_after, 0);
    const std::int64_t before = std::max<std::int64_t>(pad_before, 0);
    std::vector<std::int64_t> idx;
    for (std::int64_t i = before - 1; i >= 0; --i) idx.push_back(i);
    for (std::int64_t i = 0; i < kept; ++i) idx.push_back(i);
    for (std::int64_t i = 0; i < std::max<std::int64_t>(pad_after, 0); ++i) idx.push_back(kept - 1 - i);
    return idx.at(static_cast<std::size_t>(j)) + crop_before;
  }
  const std::int64_t x = j - pad_before;
  if (x >= 0 && x < size) return x;
  if (mode == PaddingMode::Constant) return -1;
  if (mode == PaddingMode::Edge) return x < 0 ? 0 : size - 1;
  return x < 0 ? -x : 2 * (size - 1) - x;  // torch's reflection (padding < size)
}

Tensor reference_pad(const Tensor& in, std::int64_t l, std::int64_t t, std::int64_t r, std::int64_t b,
                     const std::vector<double>& fill, PaddingMode mode) {
  const int rank = in.dim();
  const std::int64_t h = in.size(-2), w = in.size(-1);
  Dims shape(in.shape());
  shape[rank - 2] = h + t + b;
  shape[rank - 1] = w + l + r;
  Tensor out = empty(shape, in.dtype(), Device::cpu());
  for_each_index(out.shape(), [&](const std::int64_t* idx) {
    const std::int64_t sy = ref_index(idx[rank - 2], t, b, h, mode), sx = ref_index(idx[rank - 1], l, r, w, mode);
    if (sy < 0 || sx < 0) {
      const std::int64_t c = rank >= 3 ? idx[rank - 3] : 0;
      const double f = fill.size() == 1 ? fill[0] : fill[static_cast<std::size_t>(c)];
      switch (in.dtype()) {
        case DType::Bool: store<bool>(out, idx, f != 0); break;
        case DType::UInt8: store<std::uint8_t>(out, idx, static_cast<std::uint8_t>(f)); break;
        case DType::Int8: store<std::int8_t>(out, idx, static_cast<std::int8_t>(f)); break;
        case DType::UInt16: store<std::uint16_t>(out, idx, static_cast<std::uint16_t>(f)); break;
        case DType::Int16: store<std::int16_t>(out, idx, static_cast<std::int16_t>(f)); break;
        case DType::Int32: store<std::int32_t>(out, idx, static_cast<std::int32_t>(f)); break;
        case DType::Int64: store<std::int64_t>(out, idx, static_cast<std::int64_t>(f)); break;
        case DType::Float16: store<Half>(out, idx, Half(static_cast<float>(f))); break;
        case DType::BFloat16: store<BFloat16>(out, idx, BFloat16(static_cast<float>(f))); break;
        case DType::Float32: store<float>(out, idx, static_cast<float>(f)); break;
        case DType::Float64: store<double>(out, idx, f); break;
      }
      return;
    }
    std::int64_t src[kMaxRank];
    std::copy(idx, idx + rank, src);
    src[rank - 2] = sy;
    src[rank - 1] = sx;
    if ((in.dtype() == DType::Int32 || in.dtype() == DType::Int64) && (mode == PaddingMode::Edge || mode == PaddingMode::Reflect)) {
      // torchvision pads these through float32.
      if (in.dtype() == DType::Int32) {
        const float f = static_cast<float>(load<std::int32_t>(in, src));
        store<std::int32_t>(out, idx, f >= 2147483648.0f ? std::numeric_limits<std::int32_t>::max() : static_cast<std::int32_t>(f));
      } else {
        const float f = static_cast<float>(load<std::int64_t>(in, src));
        store<std::int64_t>(out, idx, f >= 9.2233720368547758e18f ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(f));
      }
      return;
    }
    store_bits(out, idx, load_bits(in, src));
  });
  return out;
}

struct PadCase {
  std::int64_t l, t, r, b;
};

// Paddings valid for every mode on an H x W image (reflect needs |pad| < size, symmetric pad <= kept size).
std::vector<PadCase> pad_cases(std::int64_t h, std::int64_t w) {
  std::vector<PadCase> cases{{0, 0, 0, 0}};
  auto clip = [](std::int64_t p, std::int64_t size) { return std::min<std::int64_t>(p, std::max<std::int64_t>(size - 1, 0)); };
  cases.push_back({clip(1, w), clip(2, h), clip(3, w), clip(1, h)});
  cases.push_back({clip(4, w), clip(4, h), clip(4, w), clip(4, h)});
  if (w > 2 && h > 2) {
    cases.push_back({-1, 1, 1, -1});
    cases.push_back({clip(2, w - 1), -1, -1, clip(1, h - 1)});
  }
  return cases;
}

TEST(Pad, MatchesReferenceForEveryDtypeShapeLayoutAndMode) {
  std::uint64_t seed = 7;
  std::vector<Dims> shapes = test_shapes();
  shapes.push_back({2, 4, 6, 9});  // 4 channels
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1];
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor in = with_layout(src, layout, Device::cpu());
        for (PaddingMode mode : {PaddingMode::Constant, PaddingMode::Edge, PaddingMode::Reflect, PaddingMode::Symmetric}) {
          if (mode != PaddingMode::Constant && src.numel() == 0) continue;
          for (const PadCase& pc : pad_cases(h, w)) {
            SCOPED_TRACE(describe(shape, dtype, layout) + " " + padding_mode_name(mode) + " [" + std::to_string(pc.l) + "," +
                         std::to_string(pc.t) + "," + std::to_string(pc.r) + "," + std::to_string(pc.b) + "]");
            const Tensor expected = reference_pad(src, pc.l, pc.t, pc.r, pc.b, {1.0}, mode);
            const Tensor out = functional::pad(in, {pc.l, pc.t, pc.r, pc.b}, std::vector<double>{1.0}, mode);
            ASSERT_TRUE(bitwise_equal(expected, out));
            expect_layout_kept(out, shape, layout);
          }
        }
        EXPECT_TRUE(bitwise_equal(src, in)) << "the input must not change";
      }
    }
  }
}

TEST(Pad, PerChannelFillAndFillConversions) {
  const Tensor src = random_cpu({2, 3, 4, 5}, DType::UInt8, 3);
  for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast}) {
    const Tensor in = with_layout(src, layout, Device::cpu());
    // A per-channel list that is not all integers goes through float32, then truncates and wraps
    // in uint8 (torch.tensor(fill).to(uint8)).
    const std::vector<double> fill{1.5, 300.0, 2.0};
    const Tensor out = functional::pad(in, {1, 2}, fill);
    EXPECT_TRUE(bitwise_equal(reference_pad(src, 1, 2, 1, 2, {1.0, 44.0, 2.0}, PaddingMode::Constant), out));
  }
  // A scalar float fill truncates (torch's fill_ conversion).
  const Tensor f = functional::pad(src, {1}, std::vector<double>{3.7});
  const std::int64_t corner[4] = {0, 0, 0, 0};
  EXPECT_EQ(load<std::uint8_t>(f, corner), 3);
  // float64 images keep a scalar fill exact; a non-integral per-channel list is float32-rounded.
  const Tensor d = random_cpu({2, 4, 4}, DType::Float64, 4);
  EXPECT_EQ(load<double>(functional::pad(d, {1}, std::vector<double>{0.1}), corner), 0.1);
  EXPECT_EQ(load<double>(functional::pad(d, {1}, std::vector<double>{0.1, 0.2}), corner), static_cast<double>(0.1f));
}

TEST(Pad, BadInput) {
  const Tensor img = random_cpu({3, 4, 5}, DType::UInt8, 9);
  const Tensor before = contiguous_copy(img);
  expect_error(ErrorKind::Value, "padding", [&] { functional::pad(img, {1, 2, 3}); });
  expect_error(ErrorKind::Value, "padding", [&] { functional::pad(img, {}); });
  expect_error(ErrorKind::Value, "not supported if fill is not scalar",
               [&] { functional::pad(img, {1}, std::vector<double>{1, 2, 3}, PaddingMode::Edge); });
  expect_error(ErrorKind::Runtime, "fill", [&] { functional::pad(img, {1}, std::vector<double>{1, 2}); });
  expect_error(ErrorKind::Runtime, "fill", [&] { functional::pad(img, {1}, std::vector<double>{300}); });
  expect_error(ErrorKind::Runtime, "fill", [&] { functional::pad(img, {1}, std::vector<double>{-1}); });
  expect_error(ErrorKind::Runtime, "reflect", [&] { functional::pad(img, {5, 0}, std::nullopt, PaddingMode::Reflect); });
  expect_error(ErrorKind::Value, "symmetric", [&] { functional::pad(img, {6, 0}, std::nullopt, PaddingMode::Symmetric); });
  expect_error(ErrorKind::Runtime, "non-negative", [&] { functional::pad(img, {-3, 0}); });
  expect_error(ErrorKind::Value, "padding_mode", [&] { padding_mode_from_string("wrap"); });
  expect_error(ErrorKind::Value, "at least 2 dims", [&] { functional::pad(random_cpu({5}, DType::UInt8, 1), {1}); });
  EXPECT_TRUE(bitwise_equal(before, img));
  EXPECT_EQ(padding_mode_from_string("symmetric"), PaddingMode::Symmetric);
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Pad, CudaEqualsCpu) {
  SV_REQUIRE_GPU();
  std::uint64_t seed = 5000;
  for (const Dims& shape : gpu_shapes()) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1];
    for (int dt = 0; dt < kNumDTypes; ++dt) {
      const DType dtype = static_cast<DType>(dt);
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (PaddingMode mode : {PaddingMode::Constant, PaddingMode::Edge, PaddingMode::Reflect, PaddingMode::Symmetric}) {
          if (mode != PaddingMode::Constant && src.numel() == 0) continue;
          const std::int64_t px = std::min<std::int64_t>(5, w - 1), py = std::min<std::int64_t>(3, h - 1);
          for (const std::vector<std::int64_t>& padding :
               {std::vector<std::int64_t>{px, py, std::max<std::int64_t>(px - 1, 0), py}, std::vector<std::int64_t>{0, 0, px, 0},
                std::vector<std::int64_t>{w > 3 ? -2 : 0, 0, 0, h > 2 ? -1 : 0}}) {
            SCOPED_TRACE(describe(shape, dtype, layout) + " " + padding_mode_name(mode));
            const Fill fill = std::vector<double>{1.0};
            ASSERT_TRUE(bitwise_equal(functional::pad(cpu_in, padding, fill, mode), functional::pad(gpu_in, padding, fill, mode)));
          }
        }
        // A per-channel fill.
        if (shape.size() >= 3 && shape[shape.size() - 3] > 1 && src.numel() > 0) {
          std::vector<double> fill;
          for (std::int64_t c = 0; c < shape[shape.size() - 3]; ++c) fill.push_back(static_cast<double>(c) + 0.5);
          ASSERT_TRUE(bitwise_equal(functional::pad(cpu_in, {3, 1}, fill), functional::pad(gpu_in, {3, 1}, fill)));
        }
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
}

// Outputs above 2^30 elements are launched in pieces; the bookkeeping across pieces stays exact
// (crop runs pad's kernel).
TEST(Pad, LargeOutputsSplitIntoPiecesCuda) {
  SV_REQUIRE_GPU();
  const Dims shape{3, 19000, 19000};  // 1.08e9 elements
  const Tensor plane = random_cpu({1, 19000, 19000}, DType::UInt8, 12);
  Tensor gpu = empty(shape, DType::UInt8, kGpu);
  Tensor cpu = empty(shape, DType::UInt8, Device::cpu());
  for (int c = 0; c < 3; ++c) {
    copy_(gpu.slice(0, c, c + 1), plane);
    copy_(cpu.slice(0, c, c + 1), plane);
  }
  EXPECT_TRUE(bitwise_equal(functional::pad(cpu, {3, 1}, std::vector<double>{7}), functional::pad(gpu, {3, 1}, std::vector<double>{7})));
  EXPECT_TRUE(bitwise_equal(functional::crop(cpu, -2, 5, 18999, 19001), functional::crop(gpu, -2, 5, 18999, 19001)));
}

}  // namespace
}  // namespace svt
