// resized_crop_batch and color_jitter_batch: each image of the result equals the chain of
// functionals with that image's parameters, on the CPU and (skipped without a GPU) on CUDA, where
// the batch kernels must reproduce the CUDA functionals bit for bit.
#include <algorithm>
#include <array>
#include <cmath>

#include "streamvision/functional/batch.hpp"
#include "test_utils.hpp"

namespace svt {
namespace {

// Images of different sizes (uint8 or float32 in [0, 1]) and boxes inside them.
struct Case {
  std::vector<Tensor> images;
  std::vector<std::int64_t> boxes;  // N x (top, left, height, width)
  std::vector<bool> flips;
};

Case make_case(DType dtype, std::uint64_t seed) {
  Case c;
  const std::int64_t sizes[][2] = {{31, 47}, {40, 29}, {64, 80}, {17, 23}};
  std::uint64_t s = seed;
  auto next = [&](std::int64_t hi) { s = s * 6364136223846793005ULL + 1442695040888963407ULL; return static_cast<std::int64_t>((s >> 33) % static_cast<std::uint64_t>(hi)); };
  for (auto [h, w] : sizes) {
    c.images.push_back(random_cpu({3, h, w}, dtype, seed++, 0.0, 1.0));
    const std::int64_t bh = 1 + next(h), bw = 1 + next(w);
    c.boxes.insert(c.boxes.end(), {next(h - bh + 1), next(w - bw + 1), bh, bw});
    c.flips.push_back(next(2) == 1);
  }
  return c;
}

Tensor tensor_of(const std::vector<std::int64_t>& v, Dims shape) {
  Tensor t = empty(shape, DType::Int64, Device::cpu());
  std::copy(v.begin(), v.end(), t.data_as<std::int64_t>());
  return t;
}

Tensor flags_of(const std::vector<bool>& v) {
  Tensor t = empty({static_cast<std::int64_t>(v.size())}, DType::Bool, Device::cpu());
  for (std::size_t i = 0; i < v.size(); ++i) t.data_as<bool>()[i] = v[i];
  return t;
}

// The chain of functionals image by image, on `device`.
Tensor chain(const Case& c, Device device, const std::vector<std::int64_t>& size, const BatchTail& tail, std::size_t i) {
  const Tensor x = to_device(c.images[i], device);
  const std::int64_t* b = c.boxes.data() + 4 * i;
  Tensor y = functional::resized_crop(x, b[0], b[1], b[2], b[3], size);
  if (c.flips[i]) y = functional::horizontal_flip(y);
  if (tail.dtype) y = functional::to_dtype(y, *tail.dtype, tail.scale);
  if (!tail.mean.empty()) y = functional::normalize(y, tail.mean, tail.std);
  return to_cpu(y);
}

void check_resized_crop_batch(Device device) {
  const std::vector<std::int64_t> size{19, 26};
  for (DType dtype : {DType::UInt8, DType::Float32}) {
    for (bool convert : {false, true}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + (convert ? " -> float32 normalized" : ""));
      const Case c = make_case(dtype, 7);
      BatchTail tail;
      if (convert) tail = {DType::Float32, true, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}};
      std::vector<Tensor> images;
      for (const Tensor& x : c.images) images.push_back(to_device(x, device));
      const Tensor out = to_cpu(functional::resized_crop_batch(images, to_device(tensor_of(c.boxes, {4, 4}), device), size,
                                                               InterpolationMode::Bilinear, true,
                                                               to_device(flags_of(c.flips), device), tail));
      for (std::size_t i = 0; i < images.size(); ++i) {
        EXPECT_TRUE(bitwise_equal(chain(c, device, size, tail, i), out.select(0, static_cast<std::int64_t>(i)))) << "image " << i;
      }
    }
  }
}

TEST(Batch, ResizedCropBatchEqualsTheChainOnCpu) { check_resized_crop_batch(Device::cpu()); }

TEST(Batch, ResizedCropBatchEqualsTheChainOnCuda) {
  SV_REQUIRE_GPU();
  check_resized_crop_batch(kGpu);
}

// uint8 rows go through the resize's vertical filter four columns a word (cuda/byte_quad.cuh):
// widths of every remainder mod 4, narrow images with no whole quad inside, boxes at the left and
// right edges, rows whose addresses are aligned, shifted (sliced views: odd offsets and row
// strides) or not unit-stride at all (channels_last, strided), through both schedules (the
// 700-column image down to 7 columns overflows a tile's shared memory: two-pass; to 41, tiles).
// Each image equals the chain.
void check_resized_crop_batch_layouts(Device device) {
  const std::int64_t dims[][2] = {{37, 61}, {29, 5}, {44, 64}, {23, 9}, {50, 130}, {31, 67}, {26, 12}, {40, 98}, {20, 700}};
  for (const Layout layout : kAllLayouts) {
    for (const std::vector<std::int64_t>& size : {std::vector<std::int64_t>{6, 7}, std::vector<std::int64_t>{33, 41}}) {
      SCOPED_TRACE(std::string(layout_name(layout)) + ", output " + std::to_string(size[0]) + "x" + std::to_string(size[1]));
      Case c;
      std::uint64_t seed = 11;
      for (std::size_t i = 0; i < std::size(dims); ++i) {
        const auto [h, w] = dims[i];
        c.images.push_back(with_layout(random_cpu({3, h, w}, DType::UInt8, seed++), layout, Device::cpu()));
        // Whole image, flush left, flush right, and inner boxes of odd offsets.
        const std::int64_t left = i % 4 == 0 ? 0 : i % 4 == 1 ? w / 3 : i % 4 == 2 ? 1 : w / 2;
        const std::int64_t bw = i % 4 == 3 ? w - left : std::max<std::int64_t>(1, w - left - static_cast<std::int64_t>(i % 3));
        const std::int64_t top = static_cast<std::int64_t>(i % 3), bh = h - top - static_cast<std::int64_t>(i % 2);
        c.boxes.insert(c.boxes.end(), {top, left, bh, bw});
        c.flips.push_back(i % 3 == 1);
      }
      std::vector<Tensor> images;
      for (const Tensor& x : c.images) images.push_back(with_layout(contiguous_copy(x), layout, device));
      const BatchTail tail;
      const Tensor out = to_cpu(functional::resized_crop_batch(images, to_device(tensor_of(c.boxes, {static_cast<std::int64_t>(std::size(dims)), 4}), device), size,
                                                               InterpolationMode::Bilinear, true, to_device(flags_of(c.flips), device), tail));
      for (std::size_t i = 0; i < images.size(); ++i) {
        const std::int64_t* b = c.boxes.data() + 4 * i;
        Tensor y = functional::resized_crop(images[i], b[0], b[1], b[2], b[3], size);
        if (c.flips[i]) y = functional::horizontal_flip(y);
        EXPECT_TRUE(bitwise_equal(to_cpu(y), out.select(0, static_cast<std::int64_t>(i)))) << "image " << i;
      }
    }
  }
}

// format = ChannelsLast: the same values in a channels-last tensor, written by the kernels, through
// both CUDA schedules (a 4x downscale takes tiles, a mild float32 one the two-pass kernels).
void check_resized_crop_batch_channels_last(Device device) {
  for (DType dtype : {DType::UInt8, DType::Float32}) {
    const Case c = make_case(dtype, 5);
    std::vector<Tensor> images;
    for (const Tensor& x : c.images) images.push_back(to_device(x, device));
    const Tensor boxes = to_device(tensor_of(c.boxes, {4, 4}), device);
    const Tensor flips = to_device(flags_of(c.flips), device);
    const BatchTail tail{DType::Float32, true, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}};
    for (const std::vector<std::int64_t>& size : {std::vector<std::int64_t>{11, 13}, std::vector<std::int64_t>{30, 40}}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " -> " + std::to_string(size[0]) + "x" + std::to_string(size[1]));
      const Tensor plain = functional::resized_crop_batch(images, boxes, size, InterpolationMode::Bilinear, true, flips, tail);
      const Tensor cl = functional::resized_crop_batch(images, boxes, size, InterpolationMode::Bilinear, true, flips, tail,
                                                       std::nullopt, MemoryFormat::ChannelsLast);
      EXPECT_TRUE(plain.is_contiguous());
      EXPECT_TRUE(cl.is_channels_last() && !cl.is_contiguous());
      EXPECT_TRUE(bitwise_equal(to_cpu(plain), to_cpu(cl)));
    }
  }
  const Case c = make_case(DType::UInt8, 5);
  std::vector<Tensor> images;
  for (const Tensor& x : c.images) images.push_back(to_device(x, device));
  const Tensor boxes = to_device(tensor_of(c.boxes, {4, 4}), device);
  const BatchTail tail{DType::Float32, true, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}};
  expect_error(ErrorKind::Value, "format", [&] {
    functional::resized_crop_batch(images, boxes, {11, 13}, InterpolationMode::Bilinear, true, std::nullopt, tail, std::nullopt,
                                   MemoryFormat::Preserve);
  });
}

TEST(Batch, ResizedCropBatchChannelsLastOutputOnCpu) { check_resized_crop_batch_channels_last(Device::cpu()); }

TEST(Batch, ResizedCropBatchChannelsLastOutputOnCuda) {
  SV_REQUIRE_GPU();
  check_resized_crop_batch_channels_last(kGpu);
}

TEST(Batch, ResizedCropBatchLayoutsEqualTheChainOnCpu) { check_resized_crop_batch_layouts(Device::cpu()); }

TEST(Batch, ResizedCropBatchByteQuadsEqualTheChainOnCuda) {
  SV_REQUIRE_GPU();
  check_resized_crop_batch_layouts(kGpu);
}

// Every one of the 24 orders (an image each), uint8 and float32, all ops or some: each image
// equals the functionals in its order. On CUDA the contrast means come from one reduction that
// applies the steps before contrast on the fly, so every position of contrast is covered.
void check_color_jitter_batch(Device device) {
  std::vector<std::array<std::int64_t, 4>> perms;
  std::array<std::int64_t, 4> p{0, 1, 2, 3};
  do {
    perms.push_back(p);
  } while (std::next_permutation(p.begin(), p.end()));
  const auto n = static_cast<std::int64_t>(perms.size());
  std::vector<double> factors;
  std::vector<std::int64_t> order;
  for (std::int64_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(n);
    factors.insert(factors.end(), {0.6 + 0.8 * t, 0.5 + 1.1 * t, 1.4 - 1.2 * t, -0.3 + 0.6 * t});
    order.insert(order.end(), perms[static_cast<std::size_t>(i)].begin(), perms[static_cast<std::size_t>(i)].end());
  }
  Tensor f = empty({n, 4}, DType::Float64, Device::cpu());
  std::copy(factors.begin(), factors.end(), f.data_as<double>());
  for (const DType dtype : {DType::UInt8, DType::Float32}) {
    const Tensor images = random_cpu({n, 3, 21, 34}, dtype, 3, 0.0, 1.0);
    for (const std::array<bool, 4> enabled : {std::array<bool, 4>{true, true, true, true}, std::array<bool, 4>{true, false, true, false},
                                              std::array<bool, 4>{false, true, false, true}}) {
      const Tensor x = to_device(images, device);
      const Tensor out = to_cpu(functional::color_jitter_batch(x, to_device(f, device), to_device(tensor_of(order, {n, 4}), device), enabled));
      for (std::int64_t i = 0; i < n; ++i) {
        Tensor y = x.select(0, i);
        for (int k = 0; k < 4; ++k) {
          const std::int64_t op = perms[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)];
          if (!enabled[static_cast<std::size_t>(op)]) continue;
          const double v = factors[static_cast<std::size_t>(4 * i + op)];
          y = op == 0 ? functional::adjust_brightness(y, v) : op == 1 ? functional::adjust_contrast(y, v)
              : op == 2 ? functional::adjust_saturation(y, v) : functional::adjust_hue(y, v);
        }
        EXPECT_TRUE(bitwise_equal(to_cpu(y), out.select(0, i))) << dtype_name(dtype) << " image " << i;
      }
    }
  }
}

TEST(Batch, ColorJitterBatchEqualsTheChainOnCpu) { check_color_jitter_batch(Device::cpu()); }

// The tail: color_jitter_batch(..., {dtype, scale, mean, std}) equals the jitter, then to_dtype,
// then normalize, bit for bit (on CUDA one pass for uint8 and float32 images).
void check_color_jitter_batch_tail(Device device) {
  const std::int64_t n = 6;
  Tensor f = empty({n, 4}, DType::Float64, Device::cpu());
  std::vector<std::int64_t> order;
  for (std::int64_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(n);
    const double v[4] = {0.6 + 0.8 * t, 1.5 - t, 0.4 + 1.1 * t, 0.25 - 0.5 * t};
    std::copy(v, v + 4, f.data_as<double>() + 4 * i);
    const std::int64_t perms[6][4] = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 1, 0}, {3, 1, 0, 2}, {1, 2, 3, 0}, {0, 3, 2, 1}};
    order.insert(order.end(), perms[i], perms[i] + 4);
  }
  const Tensor o = tensor_of(order, {n, 4});
  const std::array<bool, 4> all{true, true, true, true};
  for (const DType dtype : {DType::UInt8, DType::Float32, DType::UInt16}) {
    const Tensor x = to_device(random_cpu({n, 3, 11, 37}, dtype, 5, 0.0, 1.0), device);
    const Tensor plain = functional::color_jitter_batch(x, to_device(f, device), to_device(o, device), all);
    for (const DType out : {DType::Float32, DType::Float16, DType::BFloat16}) {
      BatchTail tail;
      tail.dtype = out;
      tail.mean = {0.485, 0.456, 0.406};
      tail.std = {0.229, 0.224, 0.225};
      const Tensor got = functional::color_jitter_batch(x, to_device(f, device), to_device(o, device), all, tail);
      const Tensor want = functional::normalize(functional::to_dtype(plain, out, true), tail.mean, tail.std);
      EXPECT_EQ(got.dtype(), out);
      EXPECT_TRUE(bitwise_equal(to_cpu(got), to_cpu(want))) << dtype_name(dtype) << " -> " << dtype_name(out);
    }
  }
}

TEST(Batch, ColorJitterBatchTailEqualsTheSeparateOpsOnCpu) { check_color_jitter_batch_tail(Device::cpu()); }

TEST(Batch, ColorJitterBatchTailEqualsTheSeparateOpsOnCuda) {
  SV_REQUIRE_GPU();
  check_color_jitter_batch_tail(kGpu);
}

// The CPU raises for an order that is not a permutation (out of range, or repeated) and names it.
TEST(Batch, ColorJitterBatchRejectsAnOrderThatIsNotAPermutation) {
  const Tensor images = random_cpu({2, 3, 5, 6}, DType::UInt8, 4);
  Tensor f = empty({2, 4}, DType::Float64, Device::cpu());
  for (int k = 0; k < 8; ++k) f.data_as<double>()[k] = k % 4 == 3 ? 0.0 : 1.0;  // hue 0, the others 1
  const Tensor before = random_cpu({2, 3, 5, 6}, DType::UInt8, 4);
  for (const auto& [row, what] : {std::pair<std::vector<std::int64_t>, std::string>{{0, 1, 2, 4}, "order[1][3] = 4"},
                                  {{0, 1, 1, 3}, "order[1][2] = 1"}}) {
    std::vector<std::int64_t> o{0, 1, 2, 3};
    o.insert(o.end(), row.begin(), row.end());
    expect_error(ErrorKind::Value, "color_jitter_batch: argument 'order': expected a permutation of 0, 1, 2, 3 per image, got " + what,
                 [&] { functional::color_jitter_batch(images, f, tensor_of(o, {2, 4}), {true, true, true, true}); }, images,
                 before);
  }
}

TEST(Batch, ColorJitterBatchEqualsTheChainOnCuda) {
  SV_REQUIRE_GPU();
  check_color_jitter_batch(kGpu);
}

// The CPU raises for a hue factor outside [-0.5, 0.5] (adjust_hue's check); CUDA cannot raise and
// leaves the image as it is at that step: the other steps still apply, in their order.
TEST(Batch, ColorJitterBatchHueFactorOutOfRange) {
  const Tensor images = random_cpu({3, 3, 9, 20}, DType::UInt8, 6);
  const std::vector<double> factors{1.2, 0.7, 1.3, 0.51, 0.8, 1.1, 0.6, -0.7, 1.0, 1.0, 1.5, std::nan("")};
  Tensor f = empty({3, 4}, DType::Float64, Device::cpu());
  std::copy(factors.begin(), factors.end(), f.data_as<double>());
  const std::vector<std::int64_t> order{3, 0, 1, 2, 0, 3, 2, 1, 2, 1, 3, 0};
  const Tensor o = tensor_of(order, {3, 4});
  const std::array<bool, 4> all{true, true, true, true};
  expect_error(ErrorKind::Value, "hue_factor", [&] { functional::color_jitter_batch(images, f, o, all); }, images,
               random_cpu({3, 3, 9, 20}, DType::UInt8, 6));
  SV_REQUIRE_GPU();  // the CPU half ran
  const Tensor out = to_cpu(functional::color_jitter_batch(to_device(images, kGpu), to_device(f, kGpu), to_device(o, kGpu), all));
  for (std::int64_t i = 0; i < 3; ++i) {
    Tensor y = images.select(0, i);
    for (int k = 0; k < 4; ++k) {
      const std::int64_t op = order[static_cast<std::size_t>(4 * i + k)];
      const double v = factors[static_cast<std::size_t>(4 * i + op)];
      y = op == 0 ? functional::adjust_brightness(y, v) : op == 1 ? functional::adjust_contrast(y, v)
          : op == 2 ? functional::adjust_saturation(y, v) : y;  // hue left out
    }
    EXPECT_TRUE(bitwise_equal(y, out.select(0, i))) << "image " << i;
  }
}

// resized_crop_boxes: a box that fits at the first attempt (u picks the whole image), torchvision's
// centred fallback for an image no attempt fits, positions from the last two numbers, and CUDA
// equal to the CPU on a few thousand random rows.
void check_resized_crop_boxes(Device device) {
  // Row 0: fraction 1, log ratio midway (ratio 1): a 40x40 image's whole box, at (0, 0).
  // Row 1: a 10x100 image and scale (5, 6): nothing fits; in_ratio 10 > 4/3: h = 10,
  //        w = round(10 * 4/3) = 13, centred at left (100 - 13) / 2 = 43.
  // Row 2: fraction 0.25 of a 40x80 image (u = 0.25 over scale (0, 1)), ratio 1: a 28x28 box
  //        (round(sqrt(800)) = 28) at floor(0.5 * 13) = 6, floor(0.999 * 53) = 52.
  auto box = [&](std::array<float, 4> numbers, std::array<std::int64_t, 2> size, std::array<double, 2> scale,
                 std::array<double, 2> ratio) {
    Tensor u = empty({1, 4}, DType::Float32, Device::cpu());
    std::copy(numbers.begin(), numbers.end(), u.data_as<float>());
    const Tensor b = to_cpu(functional::resized_crop_boxes(to_device(u, device), {size}, scale, ratio));
    return std::vector<std::int64_t>(b.data_as<std::int64_t>(), b.data_as<std::int64_t>() + 4);
  };
  EXPECT_EQ(box({1.0f - 1.0f / 16777216.0f, 0.5f, 0.0f, 0.0f}, {40, 40}, {0.0, 1.0}, {1.0, 1.0}),
            (std::vector<std::int64_t>{0, 0, 40, 40}));
  EXPECT_EQ(box({0.0f, 0.0f, 0.0f, 0.0f}, {10, 100}, {5.0, 6.0}, {0.75, 4.0 / 3.0}), (std::vector<std::int64_t>{0, 43, 10, 13}));
  EXPECT_EQ(box({0.25f, 0.5f, 0.5f, 0.999f}, {40, 80}, {0.0, 1.0}, {1.0, 1.0}), (std::vector<std::int64_t>{6, 52, 28, 28}));
}

TEST(Batch, ResizedCropBoxesOnCpu) { check_resized_crop_boxes(Device::cpu()); }

TEST(Batch, ResizedCropBoxesOnCuda) {
  SV_REQUIRE_GPU();
  check_resized_crop_boxes(kGpu);
  // Many rows (three launches' worth): CUDA's boxes are the CPU's.
  const std::int64_t n = 2500;
  const Tensor u = random_cpu({n, 22}, DType::Float32, 11, 0.0, 0.999);
  std::vector<std::array<std::int64_t, 2>> sizes;
  for (std::int64_t i = 0; i < n; ++i) sizes.push_back({1 + (i * 37) % 900, 1 + (i * 91) % 1300});
  const Tensor cpu = functional::resized_crop_boxes(u, sizes, {0.08, 1.0}, {0.75, 4.0 / 3.0});
  const Tensor cuda = to_cpu(functional::resized_crop_boxes(to_device(u, kGpu), sizes, {0.08, 1.0}, {0.75, 4.0 / 3.0}));
  EXPECT_TRUE(bitwise_equal(cpu, cuda));
}

// color_jitter_params: the order is the stable argsort of the first four numbers, factor k the
// float32 uniform mapping of number 4 + k onto range k (0 for an op without a range); CUDA equals
// the CPU exactly (no transcendental function is involved).
void check_color_jitter_params(Device device) {
  Tensor u = empty({2, 8}, DType::Float32, Device::cpu());
  const float values[] = {0.5f, 0.5f, 0.25f, 0.5f, 0.0f, 0.5f, 0.5f, 0.75f,    //
                          0.9f, 0.1f, 0.3f, 0.2f, 0.5f, 0.5f, 0.25f, 0.999f};
  std::copy(values, values + 16, u.data_as<float>());
  const std::array<std::optional<std::array<double, 2>>, 4> ranges{std::array<double, 2>{0.6, 1.4}, std::nullopt,
                                                                   std::array<double, 2>{0.0, 2.0},
                                                                   std::array<double, 2>{-0.5, 0.5}};
  const auto out = functional::color_jitter_params(to_device(u, device), ranges);
  const Tensor f = to_cpu(out[0]), o = to_cpu(out[1]);
  EXPECT_EQ(std::vector<std::int64_t>(o.data_as<std::int64_t>(), o.data_as<std::int64_t>() + 8),
            (std::vector<std::int64_t>{2, 0, 1, 3, 1, 3, 2, 0}));
  const float mid = 0.5f * (1.4f - 0.6f) + 0.6f;
  const std::vector<double> want{0.6f, 0.0, 1.0, 0.25, static_cast<double>(mid), 0.0, 0.5, static_cast<double>(0.999f * 1.0f - 0.5f)};
  EXPECT_EQ(std::vector<double>(f.data_as<double>(), f.data_as<double>() + 8), want);
}

TEST(Batch, ColorJitterParamsOnCpu) { check_color_jitter_params(Device::cpu()); }

TEST(Batch, ColorJitterParamsOnCuda) {
  SV_REQUIRE_GPU();
  check_color_jitter_params(kGpu);
  const Tensor u = random_cpu({3000, 8}, DType::Float32, 12, 0.0, 0.999);
  const std::array<std::optional<std::array<double, 2>>, 4> ranges{std::array<double, 2>{0.6, 1.4}, std::array<double, 2>{0.5, 1.5},
                                                                   std::nullopt, std::array<double, 2>{-0.1, 0.1}};
  const auto cpu = functional::color_jitter_params(u, ranges);
  const auto cuda = functional::color_jitter_params(to_device(u, kGpu), ranges);
  EXPECT_TRUE(bitwise_equal(cpu[0], to_cpu(cuda[0])));
  EXPECT_TRUE(bitwise_equal(cpu[1], to_cpu(cuda[1])));
}

TEST(Batch, BadArguments) {
  const Case c = make_case(DType::UInt8, 3);
  const Tensor boxes = tensor_of(c.boxes, {4, 4});
  expect_error(ErrorKind::Value, "boxes", [&] { functional::resized_crop_batch(c.images, tensor_of(c.boxes, {2, 8}), {8, 8}); });
  expect_error(ErrorKind::Value, "images[1]", [&] {
    functional::resized_crop_batch({c.images[0], random_cpu({3, 5, 5}, DType::Float32, 1)}, tensor_of({0, 0, 1, 1, 0, 0, 1, 1}, {2, 4}), {8, 8});
  });
  expect_error(ErrorKind::Value, "size", [&] { functional::resized_crop_batch(c.images, boxes, {8}); });
  expect_error(ErrorKind::Value, "inside", [&] {
    functional::resized_crop_batch({c.images[0]}, tensor_of({0, 0, 500, 5}, {1, 4}), {8, 8});
  });
  expect_error(ErrorKind::Type, "mean", [&] {
    functional::resized_crop_batch(c.images, boxes, {8, 8}, InterpolationMode::Bilinear, true, std::nullopt, BatchTail{std::nullopt, true, {0.5}, {0.5}});
  });
  expect_error(ErrorKind::Value, "images", [&] { functional::resized_crop_batch({}, boxes, {8, 8}); });
  const Tensor u = random_cpu({2, 22}, DType::Float32, 1, 0.0, 0.9);
  expect_error(ErrorKind::Value, "random", [&] { functional::resized_crop_boxes(u, {{4, 4}}, {0.08, 1.0}, {0.75, 1.3}); });
  expect_error(ErrorKind::Value, "sizes[1]", [&] { functional::resized_crop_boxes(u, {{4, 4}, {4, 0}}, {0.08, 1.0}, {0.75, 1.3}); });
  expect_error(ErrorKind::Value, "scale", [&] { functional::resized_crop_boxes(u, {{4, 4}, {4, 4}}, {1.0, 0.08}, {0.75, 1.3}); });
  expect_error(ErrorKind::Value, "ratio", [&] { functional::resized_crop_boxes(u, {{4, 4}, {4, 4}}, {0.08, 1.0}, {0.0, 1.3}); });
  const std::array<std::optional<std::array<double, 2>>, 4> none{};
  expect_error(ErrorKind::Value, "random", [&] { functional::color_jitter_params(u, none); });
  const Tensor u8 = random_cpu({2, 8}, DType::Float32, 1, 0.0, 0.9);
  expect_error(ErrorKind::Value, "saturation", [&] {
    functional::color_jitter_params(u8, {std::nullopt, std::nullopt, std::array<double, 2>{2.0, 1.0}, std::nullopt});
  });
}

}  // namespace
}  // namespace svt
