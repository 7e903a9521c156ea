// The CUDA geometry engines equal the CPU engines bit for bit (pad, crops, resize in every mode,
// the warps) over dtypes, shapes, layouts and parameters; they run on the op's stream; large
// outputs launched in pieces stay exact. Skipped without a GPU.
#include <random>

#include "geometry_test_utils.hpp"

namespace svt {
namespace {

const Device kGpu = Device::cuda(0);

// Shapes for the GPU comparisons: the common ones plus sizes that take the vector paths.
std::vector<Dims> gpu_shapes() {
  std::vector<Dims> shapes = test_shapes();
  shapes.push_back({2, 4, 67, 301});
  shapes.push_back({1, 3, 270, 480});
  return shapes;
}

TEST(GeometryCuda, PadAndCropEqualCpu) {
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
        // Crops at odd offsets (misaligned sources), partly outside, and a per-channel fill.
        for (const auto& win : std::vector<std::array<std::int64_t, 4>>{{1, 3, h / 2 + 1, w / 2 + 5}, {-2, -7, h + 3, w + 9}, {0, 0, h, w}}) {
          SCOPED_TRACE(describe(shape, dtype, layout) + " crop");
          ASSERT_TRUE(bitwise_equal(functional::crop(cpu_in, win[0], win[1], win[2], win[3]),
                                    functional::crop(gpu_in, win[0], win[1], win[2], win[3])));
        }
        if (shape.size() >= 3 && shape[shape.size() - 3] > 1 && src.numel() > 0) {
          std::vector<double> fill;
          for (std::int64_t c = 0; c < shape[shape.size() - 3]; ++c) fill.push_back(static_cast<double>(c) + 0.5);
          ASSERT_TRUE(bitwise_equal(functional::pad(cpu_in, {3, 1}, fill), functional::pad(gpu_in, {3, 1}, fill)));
        }
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
  // center / five / ten crops.
  const Tensor src = random_cpu({2, 3, 37, 53}, DType::UInt8, 77);
  const Tensor gpu = with_layout(src, Layout::ChannelsLast, kGpu);
  EXPECT_TRUE(bitwise_equal(functional::center_crop(src, {20, 31}), functional::center_crop(gpu, {20, 31})));
  EXPECT_TRUE(bitwise_equal(functional::center_crop(src, {40, 61}), functional::center_crop(gpu, {40, 61})));
  const auto cpu_ten = functional::ten_crop(src, {11, 17}), gpu_ten = functional::ten_crop(gpu, {11, 17});
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(bitwise_equal(cpu_ten[i], gpu_ten[i])) << i;
}

TEST(GeometryCuda, ResizeEqualsCpu) {
  SV_REQUIRE_GPU();
  std::vector<Dims> shapes{{3, 5, 7}, {2, 3, 9, 13}, {2, 1, 2, 6, 11}, {1, 1, 37}, {3, 17, 1}, {2, 4, 67, 301}, {1, 3, 270, 480}, {0, 3, 4, 5}};
  std::uint64_t seed = 6000;
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1];
    const std::vector<std::vector<std::int64_t>> sizes{{h * 2 + 1, w + 3}, {std::max<std::int64_t>(h / 3, 1), std::max<std::int64_t>(w / 5, 1)},
                                                       {h, w * 2}, {std::max<std::int64_t>(h - 1, 1), w}, {1, 1}, {224, 224}};
    for (DType dtype : kGeometryDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::NearestExact, InterpolationMode::Bilinear,
                                       InterpolationMode::Bicubic}) {
          // uint8 bilinear: the CPU engine follows torchvision's CPU result (torch's integer
          // path), the CUDA engine torchvision's CUDA result; they differ by design.
          if (dtype == DType::UInt8 && mode == InterpolationMode::Bilinear) continue;
          for (bool aa : {true, false}) {
            if (aa && (mode == InterpolationMode::Nearest || mode == InterpolationMode::NearestExact)) continue;
            for (const auto& size : sizes) {
              if (size[0] == h && size[1] == w) continue;
              SCOPED_TRACE(describe(shape, dtype, layout) + " " + interpolation_mode_name(mode) + (aa ? " aa -> " : " -> ") +
                           std::to_string(size[0]) + "x" + std::to_string(size[1]));
              const Tensor expected = functional::resize(cpu_in, size, mode, std::nullopt, aa);
              const Tensor actual = functional::resize(gpu_in, size, mode, std::nullopt, aa);
              ASSERT_TRUE(bitwise_equal(expected, actual));
              expect_layout_kept(actual, shape, layout);
            }
          }
        }
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
  // A crop of a larger image resized from a view.
  const Tensor big = random_cpu({2, 3, 100, 90}, DType::Float32, 61);
  const Tensor gbig = with_layout(big, Layout::ChannelsLast, kGpu);
  EXPECT_TRUE(bitwise_equal(functional::resized_crop(big, 7, 9, 50, 61, {32, 32}), functional::resized_crop(gbig, 7, 9, 50, 61, {32, 32})));
}

// Antialiased resize at the benchmark's size and at extreme ratios: tall row bands, wide filter
// spans (a whole 3000-row column or 5000-element row per output), and more planes than one grid
// dimension holds.
TEST(GeometryCuda, AntialiasResizeLargeRatiosEqualCpu) {
  SV_REQUIRE_GPU();
  struct Case {
    Dims shape;
    std::vector<std::int64_t> size;
    std::vector<DType> dtypes;
  };
  const std::vector<Case> cases{{{2, 3, 1080, 1920}, {224, 224}, {DType::UInt8, DType::Float32}},
                                {{1, 1, 3000, 2}, {1, 1}, {DType::UInt8, DType::Float64}},
                                {{1, 1, 2, 5000}, {2, 3}, {DType::Float32, DType::Float64}},
                                {{70000, 1, 3, 3}, {2, 2}, {DType::UInt8}}};
  std::uint64_t seed = 6500;
  for (const Case& c : cases) {
    for (DType dtype : c.dtypes) {
      const Tensor src = random_cpu(c.shape, dtype, seed++);
      for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast}) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (InterpolationMode mode : {InterpolationMode::Bilinear, InterpolationMode::Bicubic}) {
          if (dtype == DType::UInt8 && mode == InterpolationMode::Bilinear) continue;  // CPU: torch's CPU integer path
          SCOPED_TRACE(describe(c.shape, dtype, layout) + " " + interpolation_mode_name(mode));
          ASSERT_TRUE(bitwise_equal(functional::resize(cpu_in, c.size, mode, std::nullopt, true),
                                    functional::resize(gpu_in, c.size, mode, std::nullopt, true)));
        }
      }
    }
  }
}

// uint8 bicubic (torch's CPU integer path) at the benchmark's size with and without antialias,
// and upscaled: the fused kernel's bands, ring slots and staged rows against the CPU engine.
TEST(GeometryCuda, Uint8BicubicResizeEqualsCpu) {
  SV_REQUIRE_GPU();
  const std::vector<std::pair<Dims, std::vector<std::int64_t>>> cases{{{2, 3, 1080, 1920}, {224, 224}}, {{2, 3, 45, 70}, {301, 97}}};
  std::uint64_t seed = 6600;
  for (const auto& [shape, size] : cases) {
    const Tensor src = random_cpu(shape, DType::UInt8, seed++);
    for (Layout layout : {Layout::Contiguous, Layout::ChannelsLast}) {
      const Tensor cpu_in = with_layout(src, layout, Device::cpu());
      const Tensor gpu_in = with_layout(src, layout, kGpu);
      for (bool aa : {true, false}) {
        SCOPED_TRACE(describe(shape, DType::UInt8, layout) + (aa ? " aa" : ""));
        ASSERT_TRUE(bitwise_equal(functional::resize(cpu_in, size, InterpolationMode::Bicubic, std::nullopt, aa),
                                  functional::resize(gpu_in, size, InterpolationMode::Bicubic, std::nullopt, aa)));
      }
    }
  }
}

TEST(GeometryCuda, WarpsEqualCpu) {
  SV_REQUIRE_GPU();
  std::vector<Dims> shapes{{3, 5, 7}, {2, 3, 9, 13}, {2, 1, 2, 6, 11}, {1, 1, 37}, {3, 17, 1}, {2, 4, 67, 101}, {0, 3, 4, 5}};
  std::uint64_t seed = 7000;
  for (const Dims& shape : shapes) {
    const std::int64_t h = shape[shape.size() - 2], w = shape[shape.size() - 1], c = shape[shape.size() - 3];
    std::vector<double> per_channel;
    for (std::int64_t k = 0; k < c; ++k) per_channel.push_back(0.3 + 40.0 * static_cast<double>(k));
    const std::vector<Fill> fills{std::nullopt, std::vector<double>{0.5}, per_channel};
    const Tensor disp = random_cpu({1, h, w, 2}, DType::Float32, seed++, -0.2, 0.2);
    const Tensor gdisp = with_layout(disp, Layout::Contiguous, kGpu);
    for (DType dtype : kGeometryDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      for (Layout layout : kAllLayouts) {
        const Tensor cpu_in = with_layout(src, layout, Device::cpu());
        const Tensor gpu_in = with_layout(src, layout, kGpu);
        for (InterpolationMode mode : {InterpolationMode::Nearest, InterpolationMode::Bilinear}) {
          for (const Fill& fill : fills) {
            SCOPED_TRACE(describe(shape, dtype, layout) + " " + interpolation_mode_name(mode) + (fill ? " fill" : ""));
            ASSERT_TRUE(bitwise_equal(functional::affine(cpu_in, 27.0, {1.5, -2.0}, 0.9, {10.0, -4.0}, mode, fill),
                                      functional::affine(gpu_in, 27.0, {1.5, -2.0}, 0.9, {10.0, -4.0}, mode, fill)));
            for (double angle : {-33.0, 90.0, 180.0}) {
              for (bool expand : {false, true}) {
                ASSERT_TRUE(bitwise_equal(functional::rotate(cpu_in, angle, mode, expand, std::nullopt, fill),
                                          functional::rotate(gpu_in, angle, mode, expand, std::nullopt, fill)));
              }
            }
            ASSERT_TRUE(bitwise_equal(functional::rotate(cpu_in, 61.0, mode, false, std::vector<double>{1.0, 2.5}, fill),
                                      functional::rotate(gpu_in, 61.0, mode, false, std::vector<double>{1.0, 2.5}, fill)));
            if (h > 2 && w > 3) {  // corner points of thinner images are degenerate
              const functional::Points start{{0, 0}, {w - 1.0, 0}, {w - 1.0, h - 1.0}, {0, h - 1.0}};
              const functional::Points end{{1, 2}, {w - 3.0, 1}, {w - 1.0, h - 2.0}, {2, h - 1.0}};
              ASSERT_TRUE(bitwise_equal(functional::perspective(cpu_in, start, end, mode, fill),
                                        functional::perspective(gpu_in, start, end, mode, fill)));
            }
            const std::vector<double> k{0.97, 0.04, 0.6, -0.05, 1.03, -0.4, 0.003, -0.002};
            ASSERT_TRUE(bitwise_equal(functional::perspective(cpu_in, std::nullopt, std::nullopt, mode, fill, k),
                                      functional::perspective(gpu_in, std::nullopt, std::nullopt, mode, fill, k)));
            ASSERT_TRUE(bitwise_equal(functional::elastic(cpu_in, disp, mode, fill), functional::elastic(gpu_in, gdisp, mode, fill)));
          }
        }
        EXPECT_TRUE(bitwise_equal(src, gpu_in)) << "the input must not change";
      }
    }
  }
}

TEST(GeometryCuda, RunOnTheOpsStreamAndCheckBeforeWriting) {
  SV_REQUIRE_GPU();
  const Tensor gpu = with_layout(random_cpu({2, 3, 40, 50}, DType::UInt8, 3), Layout::Contiguous, kGpu);
  const Stream s = Stream::create(0);
  functional::resize(gpu, std::vector<std::int64_t>{20, 20}, InterpolationMode::Bilinear, std::nullopt, true, s);
  EXPECT_EQ(last_launch_stream(), s);
  functional::resize(gpu, std::vector<std::int64_t>{20, 20}, InterpolationMode::Bicubic, std::nullopt, true, s);
  EXPECT_EQ(last_launch_stream(), s);
  functional::pad(gpu, {2}, std::nullopt, PaddingMode::Reflect, s);
  EXPECT_EQ(last_launch_stream(), s);
  functional::rotate(gpu, 30, InterpolationMode::Bilinear, true, std::nullopt, std::vector<double>{9}, s);
  EXPECT_EQ(last_launch_stream(), s);
  {
    const Stream guarded = Stream::create(0);
    StreamGuard guard(guarded);
    functional::crop(gpu, 1, 1, 10, 10);
    EXPECT_EQ(last_launch_stream(), guarded);
    functional::perspective(gpu, std::nullopt, std::nullopt, InterpolationMode::Nearest, std::nullopt,
                            std::vector<double>{1, 0.1, 0, 0, 1, 0, 0.001, 0});
    EXPECT_EQ(last_launch_stream(), guarded);
    guarded.synchronize();
  }
  s.synchronize();
  // Bad arguments raise before any launch.
  const Stream before = last_launch_stream();
  expect_error(ErrorKind::Value, "fill", [&] { functional::affine(gpu, 1, {0, 0}, 1, {0}, InterpolationMode::Nearest, std::vector<double>{1, 2}); });
  expect_error(ErrorKind::Runtime, "reflect", [&] { functional::pad(gpu, {60}, std::nullopt, PaddingMode::Reflect); });
  expect_error(ErrorKind::Value, "displacement", [&] {
    functional::elastic(gpu, empty({1, 40, 50, 2}, DType::Float32, Device::cpu()));
  });
  EXPECT_EQ(last_launch_stream(), before);
}

// Outputs above 2^30 elements are launched in pieces; the bookkeeping across pieces stays exact.
TEST(GeometryCuda, LargeOutputsSplitIntoPieces) {
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
