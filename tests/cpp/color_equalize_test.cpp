// autocontrast and equalize on the CPU: hand-computed images and references transcribing
// torchvision (equalize's reference follows its cumsum / argmax formulation). On CUDA, the colour
// reductions (contrast, autocontrast, equalize) equal the CPU bit for bit (skipped without a GPU).
#include <algorithm>
#include <random>

#include "color_test_utils.hpp"

namespace svt {
namespace {

template <class T>
Tensor ref_autocontrast(const Tensor& in) {
  using F = Calc<T>;
  const ImageIndex ii(in);
  std::vector<F> lo(static_cast<std::size_t>(ii.images * ii.c)), inv(lo.size());
  for (std::int64_t n = 0; n < ii.images; ++n) {
    for (std::int64_t c = 0; c < ii.c; ++c) {
      F mn = to_calc(at<T>(in, n, c, 0, 0)), mx = mn;
      for (std::int64_t y = 0; y < ii.h; ++y) {
        for (std::int64_t x = 0; x < ii.w; ++x) {
          mn = std::min(mn, to_calc(at<T>(in, n, c, y, x)));
          mx = std::max(mx, to_calc(at<T>(in, n, c, y, x)));
        }
      }
      const std::size_t k = static_cast<std::size_t>(n * ii.c + c);
      // inv_scale = (max - min) * (1 / bound); constant channels: min 0, scale 1.
      const bool eq = mx == mn;
      lo[k] = eq ? F(0) : mn;
      inv[k] = eq ? F(1) : keep<T>(keep<T>(mx - mn) * static_cast<F>(1.0 / max_of<T>()));
    }
  }
  return per_pixel<T>(in, ii.c, [&](std::int64_t n, const std::vector<T>& p) {
    std::vector<T> out;
    for (std::size_t c = 0; c < p.size(); ++c) {
      const std::size_t k = static_cast<std::size_t>(n * ii.c) + c;
      const F diff = keep<T>(to_calc(p[c]) - lo[k]);
      out.push_back(to_t<T>(clampf(keep<T>(diff / inv[k]), F(0), static_cast<F>(max_of<T>()))));
    }
    return out;
  });
}

// to_dtype(image, uint8, scale=True) and back, as torchvision (torch's float -> uint8 goes
// through int64 and wraps).
template <class T>
std::uint8_t to_u8(T x) {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return x;
  } else if constexpr (std::is_same_v<T, std::uint16_t>) {
    return static_cast<std::uint8_t>(x >> 8);
  } else {
    const Calc<T> v = keep<T>(to_calc(x) * static_cast<Calc<T>>(255.999));
    return static_cast<std::uint8_t>(static_cast<std::int64_t>(v));
  }
}

template <class T>
T from_u8(std::uint8_t x) {
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    return x;
  } else if constexpr (std::is_same_v<T, std::uint16_t>) {
    return static_cast<T>(x << 8);
  } else {
    return to_t<T>(static_cast<Calc<T>>(x) * static_cast<Calc<T>>(1.0 / 255.0));
  }
}

template <class T>
Tensor ref_equalize(const Tensor& in) {
  const ImageIndex ii(in);
  Tensor out = empty(Dims(in.shape()), in.dtype(), Device::cpu());
  const std::int64_t pixels = ii.h * ii.w;
  for (std::int64_t n = 0; n < ii.images; ++n) {
    for (std::int64_t c = 0; c < ii.c; ++c) {
      std::vector<std::int64_t> hist(256, 0);
      for (std::int64_t y = 0; y < ii.h; ++y)
        for (std::int64_t x = 0; x < ii.w; ++x) ++hist[to_u8(at<T>(in, n, c, y, x))];
      std::vector<std::int64_t> cum(256);
      std::partial_sum(hist.begin(), hist.end(), cum.begin());
      const auto index = std::max_element(cum.begin(), cum.end()) - cum.begin();  // first maximum
      const std::int64_t step = (pixels - hist[static_cast<std::size_t>(index)]) / 255;
      std::vector<std::uint8_t> lut(256, 0);
      for (int k = 0; k < 255; ++k) {
        lut[static_cast<std::size_t>(k + 1)] = static_cast<std::uint8_t>(
            std::clamp<std::int64_t>((cum[static_cast<std::size_t>(k)] + step / 2) / std::max<std::int64_t>(step, 1), 0, 255));
      }
      for (std::int64_t y = 0; y < ii.h; ++y) {
        for (std::int64_t x = 0; x < ii.w; ++x) {
          const std::uint8_t v = to_u8(at<T>(in, n, c, y, x));
          set<T>(out, n, c, y, x, from_u8<T>(step != 0 ? lut[v] : v));
        }
      }
    }
  }
  return out;
}

TEST(ColorAutocontrast, KnownValues) {
  // (x - 10) / (100 / 255) in float32, truncated: 110 maps to 254.99997 -> 254, as torchvision.
  const Tensor img = tensor_of({1, 1, 4}, DType::UInt8, {10, 60, 110, 35});
  EXPECT_EQ(values_of(functional::autocontrast(img)), (std::vector<double>{0, 127, 254, 63}));
  // Per channel: a constant channel passes through; floats stretch to [0, 1].
  const Tensor rgb = tensor_of({3, 1, 2}, DType::UInt8, {7, 7, 0, 255, 20, 30});
  EXPECT_EQ(values_of(functional::autocontrast(rgb)), (std::vector<double>{7, 7, 0, 255, 0, 254}));
  const Tensor f = tensor_of({1, 1, 3}, DType::Float32, {0.25, 0.5, 0.75});
  EXPECT_EQ(values_of(functional::autocontrast(f)), (std::vector<double>{0.0, 0.5, 1.0}));
}

TEST(ColorAutocontrast, MatchesReference) {
  std::uint64_t seed = 1100;
  for (const Dims& shape : color_shapes()) {
    for (DType dtype : kImageDTypes) {
      const Tensor src = random_cpu(shape, dtype, seed++);
      Tensor expected;
      with_dtype(dtype, [&](auto tag) { expected = ref_autocontrast<typename decltype(tag)::type>(src); });
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor in = with_layout(src, layout, Device::cpu());
        const Tensor out = functional::autocontrast(in);
        if (src.numel() == 0) continue;
        EXPECT_TRUE(bitwise_equal(expected, out));
        EXPECT_TRUE(bitwise_equal(src, in));
      }
    }
  }
}

// Planes of more than 64K pixels are reduced in row chunks, in parallel, and combined: extremes
// in the last chunk of one channel and the first of another, every image dtype and layout, one
// thread and several (uint8 also takes the lookup-table pass).
TEST(ColorAutocontrast, LargePlanesReduceInChunks) {
  std::uint64_t seed = 1200;
  const int initial_threads = get_num_threads();
  for (const Dims& shape : {Dims{2, 3, 260, 300}, Dims{1, 1, 700, 130}}) {
    for (DType dtype : kImageDTypes) {
      Tensor src = random_cpu(shape, dtype, seed++, 0.3, 0.7);
      const std::int64_t h = shape[2], w = shape[3];
      with_dtype(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = static_cast<T*>(src.data());
        const T lo = to_t<T>(Calc<T>(0.05 * max_of<T>())), hi = to_t<T>(Calc<T>(0.95 * max_of<T>()));
        p[(h - 1) * w + w - 2] = lo;                                      // image 0, channel 0, last row
        p[(shape[1] - 1) * h * w + 3] = hi;                                // image 0, last channel, first row
        p[(shape[0] - 1) * shape[1] * h * w + (h / 2) * w + w / 2] = hi;  // the last image, middle
      });
      Tensor expected;
      with_dtype(dtype, [&](auto tag) { expected = ref_autocontrast<typename decltype(tag)::type>(src); });
      for (int threads : {1, 3}) {
        set_num_threads(threads);
        for (Layout layout : kAllLayouts) {
          SCOPED_TRACE(describe(shape, dtype, layout) + " threads " + std::to_string(threads));
          EXPECT_TRUE(bitwise_equal(expected, functional::autocontrast(with_layout(src, layout, Device::cpu()))));
        }
      }
      set_num_threads(initial_threads);
    }
  }
}

// 768 pixels: 256 each of 0, 100, 200. The last non-empty bin (200) holds 256, so
// step = (768 - 256) // 255 = 2, lut[k + 1] = (cum[k] + 1) // 2: 0 -> 0, 100 -> 128, 200 -> 255.
Tensor three_level_image(DType dtype) {
  std::vector<double> v(768);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i < 256 ? 0 : (i < 512 ? 100 : 200);
  std::mt19937 rng(3);
  std::shuffle(v.begin(), v.end(), rng);
  return tensor_of({1, 24, 32}, dtype, v);
}

TEST(ColorEqualize, KnownHistograms) {
  // A 4x4 image has fewer than 255 pixels outside its last bin: step 0, unchanged.
  const Tensor small = tensor_of({1, 4, 4}, DType::UInt8, {0, 0, 0, 0, 50, 50, 50, 50, 100, 100, 100, 100, 200, 200, 200, 201});
  EXPECT_EQ(values_of(functional::equalize(small)), values_of(small));

  const Tensor three = three_level_image(DType::UInt8);
  std::vector<double> expected = values_of(three);
  for (double& x : expected) x = x == 0 ? 0 : (x == 100 ? 128 : 255);
  EXPECT_EQ(values_of(functional::equalize(three)), expected);

  // 512 pixels: 128 each of 10, 20, 30, 40: step = 384 // 255 = 1, lut[k + 1] = cum[k] (max 255):
  // 10 -> 0, 20 -> 128, 30 -> 256 clamped to 255, 40 -> 255.
  std::vector<double> four(512);
  for (std::size_t i = 0; i < four.size(); ++i) four[i] = 10.0 * static_cast<double>(i / 128 + 1);
  const Tensor img = tensor_of({16, 32}, DType::UInt8, four);  // 2-D: one channel
  std::vector<double> want(512);
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = std::vector<double>{0, 128, 255, 255}[i / 128];
  const Tensor eq = functional::equalize(img);
  EXPECT_EQ(Dims(eq.shape()), (Dims{16, 32}));
  EXPECT_EQ(values_of(eq), want);

  // float32: k / 255 -> k through to_dtype, then back as lut / 255.
  std::vector<double> f = values_of(three);
  for (double& x : f) x = static_cast<float>(x) * static_cast<float>(1.0 / 255.0);
  std::vector<double> f_expected = values_of(three);
  for (double& x : f_expected) x = static_cast<float>(x == 0 ? 0 : (x == 100 ? 128 : 255)) * static_cast<float>(1.0 / 255.0);
  EXPECT_EQ(values_of(functional::equalize(tensor_of({1, 24, 32}, DType::Float32, f))), f_expected);
}

TEST(ColorEqualize, MatchesReference) {
  std::uint64_t seed = 1200;
  std::vector<Dims> shapes = test_shapes();  // any channel count
  shapes.push_back({2, 4, 20, 33});
  shapes.push_back({1, 3, 30, 31});
  for (const Dims& shape : shapes) {
    for (DType dtype : kImageDTypes) {
      // Skewed content so that equalization does something: low values are frequent.
      Tensor src = random_cpu(shape, dtype, seed++, 0.0, 1.0);
      for_each_index(src.shape(), [&](const std::int64_t* idx) {
        if (idx[src.dim() - 1] % 3 == 0) store_bits(src, idx, 0);
      });
      Tensor expected;
      with_dtype(dtype, [&](auto tag) { expected = ref_equalize<typename decltype(tag)::type>(src); });
      for (Layout layout : kAllLayouts) {
        SCOPED_TRACE(describe(shape, dtype, layout));
        const Tensor in = with_layout(src, layout, Device::cpu());
        const Tensor out = functional::equalize(in);
        EXPECT_TRUE(bitwise_equal(expected, out));
        EXPECT_TRUE(bitwise_equal(src, in));
      }
    }
  }
  // Values outside [0, 1] follow to_dtype's wrap (e.g. negative floats), as torchvision's.
  const Tensor wild = random_cpu({2, 3, 17, 19}, DType::Float32, 77);
  EXPECT_TRUE(bitwise_equal(ref_equalize<float>(wild), functional::equalize(wild)));
}

// ---- CUDA == CPU (skipped without a GPU) ---------------------------------------------------

TEST(Color, ReductionsCudaEqualsCpu) {
  SV_REQUIRE_GPU();
  std::vector<Dims> shapes = cuda_shapes();
  shapes.push_back({1, 3, 517, 1031});  // many chunks per image
  for (double f : {0.0, 0.6, 1.7}) {
    expect_cuda_equals_cpu("contrast", [=](const Tensor& x) { return functional::adjust_contrast(x, f); }, 20, shapes,
                           kImageDTypes);
  }
  expect_cuda_equals_cpu("autocontrast", [](const Tensor& x) { return functional::autocontrast(x); }, 21, shapes,
                         kImageDTypes);
  std::vector<Dims> eq_shapes = shapes;
  eq_shapes.push_back({2, 4, 33, 70});  // other channel counts run channel by channel
  eq_shapes.push_back({2, 2, 5, 9});
  eq_shapes.push_back({40, 61});        // 2-D: one channel
  expect_cuda_equals_cpu("equalize", [](const Tensor& x) { return functional::equalize(x); }, 22, eq_shapes,
                         kImageDTypes, 0.0, 1.0);
  expect_cuda_equals_cpu("equalize wild", [](const Tensor& x) { return functional::equalize(x); }, 23, shapes,
                         {DType::Float16, DType::Float32});
}

// autocontrast of dense planes on Hopper runs in one pass, a cluster of blocks per plane that
// keeps it whole (autocontrast_cluster.cuh: uint8, float32, float16, bfloat16; its words in
// registers and shared memory), else in three steps (uint8: cuda/byte_planes.cuh, 16 bytes a
// thread). Its min and max must see every element, so each plane holds values in
// [0.25, 0.7] of the range but for one low and one high extreme at places that test its parts:
// the first and last element, the unaligned head of a plane, a 32 KiB chunk's edge, the middle
// (where a cluster's blocks meet), and elsewhere. Planes of odd sizes (unaligned starts, heads and
// tails outside whole words), one and three channels, clusters of 1 to 16 blocks, 1000x1400 (about
// the most a cluster keeps for float16 and float32: every register and shared-memory slot), 1080p
// (uint8 in one pass; float16 and float32 in three steps), planes too large for the one pass, and a view whose planes are out of phase with the output's (the three steps;
// uint8: the lookup's byte-by-byte path). Equal to the CPU bit for bit.
TEST(Color, AutocontrastFindsRareExtremesOnCuda) {
  SV_REQUIRE_GPU();
  std::mt19937 rng(31);
  for (DType dtype : {DType::UInt8, DType::Float32, DType::Float16, DType::BFloat16}) {
    std::vector<Dims> shapes{{3, 37, 53},   {2, 3, 67, 259}, {1, 3, 517, 1031},  {3, 1, 130, 256},
                             {4, 3, 1, 33}, {2, 3, 301, 999}, {1, 1, 1000, 1400}, {1, 1, 1080, 1920}};
    // Past what a cluster keeps on chip (16 x 1024 threads x 22 words of 16 bytes, 5.8 MB).
    shapes.push_back(dtype == DType::UInt8 ? Dims{1, 1, 3500, 3500} : Dims{1, 1, 1801, 1700});
    for (const Dims& shape : shapes) {
      for (bool offset_view : {false, true}) {
        Dims big_shape = shape;
        big_shape[0] += 1;  // one more image (or channel) in front: the view starts after it
        Tensor big = empty(big_shape, dtype, Device::cpu());
        const std::int64_t plane = shape[shape.size() - 1] * shape[shape.size() - 2];
        with_dtype(dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          T* v = static_cast<T*>(big.data());
          auto at = [](double fraction) { return to_t<T>(Calc<T>(fraction * max_of<T>())); };
          for (std::int64_t i = 0; i < big.numel(); ++i) v[i] = at(0.25 + 0.45 * static_cast<double>(rng() % 1000) / 1000.0);
          for (std::int64_t p = 0; p < big.numel() / plane; ++p) {
            const std::int64_t spots[] = {0,
                                          plane - 1,
                                          std::min<std::int64_t>(plane - 1, 7),
                                          std::min<std::int64_t>(plane - 1, 32767),
                                          std::min<std::int64_t>(plane - 1, 32768),
                                          plane / 2,
                                          std::max<std::int64_t>(0, plane / 2 - 9),
                                          static_cast<std::int64_t>(rng() % plane)};
            const std::int64_t lo_at = spots[p % 8], hi_at = spots[(p + 3) % 8] == lo_at ? spots[(p + 4) % 8] : spots[(p + 3) % 8];
            v[p * plane + lo_at] = at(0.012 + 0.004 * static_cast<double>(p % 5));
            if (hi_at != lo_at) v[p * plane + hi_at] = at(0.98 - 0.004 * static_cast<double>(p % 5));
          }
        });
        const Tensor cpu = offset_view ? big.slice(0, 1, big_shape[0]) : big.slice(0, 0, shape[0]);
        const Tensor gpu_big = to_device(big, kGpu);
        const Tensor gpu = offset_view ? gpu_big.slice(0, 1, big_shape[0]) : gpu_big.slice(0, 0, shape[0]);
        SCOPED_TRACE(describe(shape, dtype, Layout::Contiguous) + (offset_view ? ", a view one image in" : ""));
        EXPECT_TRUE(bitwise_equal(functional::autocontrast(cpu), functional::autocontrast(gpu)));
      }
    }
  }
}

// uint8 adjust_contrast of dense planes sums its grayscale values 16 bytes a thread
// (cuda/byte_planes.cuh). With factor 0 the output is the image mean, truncated, so the sums must
// count every pixel once: every pixel (101, 101, 101), gray 100, gives exactly 100, and one pixel
// missed 99; the same image with one pixel black (gray 0, at the plane's first or last byte, a
// 32 KiB chunk's edge) gives 100 (N - 1) / N, truncated (99 for large planes), and one pixel
// counted twice 100.
// Planes aligned and not, one chunk and several, a view one image in (planes out of phase with
// the output's). The CPU gives the expected values; the GPU equals it.
TEST(Color, Uint8ContrastMeanCountsEveryPixel) {
  const std::vector<Dims> shapes{{3, 37, 53}, {2, 3, 67, 259}, {1, 3, 512, 1024}, {1, 3, 517, 1031}, {4, 3, 1, 33}};
  for (const Dims& shape : shapes) {
    const std::int64_t plane = shape[shape.size() - 1] * shape[shape.size() - 2];
    for (std::int64_t black : {std::int64_t{-1}, std::int64_t{0}, plane - 1, std::min<std::int64_t>(plane - 1, 32768)}) {
      for (bool offset_view : {false, true}) {
        Dims big_shape = shape;
        big_shape[0] += 1;  // one more image (or channel) in front: the view starts after it
        Tensor big = empty(big_shape, DType::UInt8, Device::cpu());
        auto* v = static_cast<std::uint8_t*>(big.data());
        std::fill(v, v + big.numel(), std::uint8_t{101});
        if (black >= 0) {
          for (std::int64_t p = 0; p < big.numel(); p += plane) v[p + black] = 0;  // every channel of every image
        }
        const Tensor cpu = offset_view ? big.slice(0, 1, big_shape[0]) : big.slice(0, 0, shape[0]);
        SCOPED_TRACE(describe(shape, DType::UInt8, Layout::Contiguous) + " black pixel " + std::to_string(black) +
                     (offset_view ? ", a view one image in" : ""));
        const Tensor expected = functional::adjust_contrast(cpu, 0.0);
        const auto* e = static_cast<const std::uint8_t*>(expected.data());
        const int mean = black < 0 ? 100 : static_cast<int>(static_cast<float>(100.0 * static_cast<double>(plane - 1) / static_cast<double>(plane)));
        ASSERT_TRUE(std::all_of(e, e + expected.numel(), [&](std::uint8_t x) { return x == mean; })) << "mean " << mean;
        if (!::streamvision::built_with_cuda() || !::streamvision::cuda_is_available()) continue;
        const Tensor gpu_big = to_device(big, kGpu);
        const Tensor gpu = offset_view ? gpu_big.slice(0, 1, big_shape[0]) : gpu_big.slice(0, 0, shape[0]);
        EXPECT_TRUE(bitwise_equal(expected, functional::adjust_contrast(gpu, 0.0)));
      }
    }
  }
}

}  // namespace
}  // namespace svt
