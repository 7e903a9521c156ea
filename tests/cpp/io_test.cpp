// streamvision::io in C++: PNG round trips are exact for every channel count and both bit
// depths, JPEG round trips stay close, the EXIF orientation parser and transform follow
// torchvision's table, bad data raises errors naming the op (and the index in a batch), and
// on_error=Skip decodes the rest, and the GPU decoder's truncation check on the raw bytes
// agrees with a forward scan. (Bit-identity with torchvision is tested in
// tests/python/test_io.py, against torchvision itself.)
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "io/codecs.hpp"     // the EXIF helpers (internal, tested directly)
#include "io/jpeg_gpu.hpp"
#include "streamvision/io/image_io.hpp"
#include "test_utils.hpp"

namespace {

using namespace svt;
namespace io = streamvision::io;

// Independent reference: element (c, y, x) read through strides.
std::uint64_t at(const Tensor& t, std::int64_t c, std::int64_t y, std::int64_t x) {
  const std::int64_t idx[3] = {c, y, x};
  return load_bits(t, idx);
}

void expect_equal_images(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(Dims(a.shape()), Dims(b.shape()));
  ASSERT_EQ(a.dtype(), b.dtype());
  for (std::int64_t c = 0; c < a.size(0); ++c)
    for (std::int64_t y = 0; y < a.size(1); ++y)
      for (std::int64_t x = 0; x < a.size(2); ++x) ASSERT_EQ(at(a, c, y, x), at(b, c, y, x)) << c << "," << y << "," << x;
}

Tensor random_image(std::int64_t c, std::int64_t h, std::int64_t w, DType dtype, std::uint64_t seed) {
  return random_cpu({c, h, w}, dtype, seed, 0.0, 1.0);
}

TEST(Io, PngRoundTripIsExact) {
  for (DType dtype : {DType::UInt8, DType::UInt16}) {
    for (std::int64_t c = 1; c <= 4; ++c) {
      const Tensor image = random_image(c, 13, 7, dtype, 10 + c);
      const Tensor bytes = io::encode_png(image, 6);
      EXPECT_EQ(bytes.dim(), 1);
      const Tensor back = io::decode_png(bytes);
      expect_equal_images(back, image);
      expect_equal_images(io::decode_image(bytes), image);
    }
  }
}

TEST(Io, PngModesConvertChannels) {
  const Tensor rgb = random_image(3, 5, 9, DType::UInt8, 3);
  const Tensor bytes = io::encode_png(rgb);
  EXPECT_EQ(io::decode_png(bytes, io::ImageReadMode::Gray).size(0), 1);
  EXPECT_EQ(io::decode_png(bytes, io::ImageReadMode::GrayAlpha).size(0), 2);
  const Tensor rgba = io::decode_png(bytes, io::ImageReadMode::RGBAlpha);
  ASSERT_EQ(rgba.size(0), 4);
  for (std::int64_t y = 0; y < 5; ++y)
    for (std::int64_t x = 0; x < 9; ++x) {
      EXPECT_EQ(at(rgba, 3, y, x), 255u);
      EXPECT_EQ(at(rgba, 1, y, x), at(rgb, 1, y, x));
    }
  const Tensor gray = random_image(1, 4, 4, DType::UInt8, 4);
  const Tensor gray3 = io::decode_png(io::encode_png(gray), io::ImageReadMode::RGB);
  ASSERT_EQ(gray3.size(0), 3);
  EXPECT_EQ(at(gray3, 2, 1, 3), at(gray, 0, 1, 3));
}

TEST(Io, JpegRoundTripIsClose) {
  for (std::int64_t c : {1, 3}) {
    const Tensor smooth = empty({c, 32, 48}, DType::UInt8, Device::cpu());
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t y = 0; y < 32; ++y)
        for (std::int64_t x = 0; x < 48; ++x) {
          const std::int64_t idx[3] = {ch, y, x};
          store_bits(smooth, idx, static_cast<std::uint64_t>(x * 2 + y * 2 + ch * 20 + 40));
        }
    const Tensor back = io::decode_jpeg(io::encode_jpeg(smooth, 95));
    ASSERT_EQ(Dims(back.shape()), Dims(smooth.shape()));
    double worst = 0;
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t y = 0; y < 32; ++y)
        for (std::int64_t x = 0; x < 48; ++x)
          worst = std::max(worst, std::abs(double(at(back, ch, y, x)) - double(at(smooth, ch, y, x))));
    EXPECT_LE(worst, 8.0);
    EXPECT_EQ(io::decode_jpeg(io::encode_jpeg(smooth), io::ImageReadMode::RGB).size(0), 3);
    EXPECT_EQ(io::decode_jpeg(io::encode_jpeg(smooth), io::ImageReadMode::Gray).size(0), 1);
  }
}

TEST(Io, ExifOrientationParserAndTransform) {
  // A little-endian TIFF block with one IFD entry: orientation (0x0112), SHORT, count 1.
  for (int orientation = 1; orientation <= 8; ++orientation) {
    const std::uint8_t ii[] = {'I', 'I', 0x2a, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
                               static_cast<std::uint8_t>(orientation), 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(io::detail::exif_orientation_from_tiff(ii, sizeof(ii)), orientation);
    const std::uint8_t mm[] = {'M', 'M', 0, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1,
                               0, static_cast<std::uint8_t>(orientation), 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(io::detail::exif_orientation_from_tiff(mm, sizeof(mm)), orientation);
  }
  const std::uint8_t bad[] = {'I', 'M', 0x2a, 0};
  EXPECT_EQ(io::detail::exif_orientation_from_tiff(bad, sizeof(bad)), -1);
  // Orientation 6 (rotate 90 clockwise): out(c, y, x) = in(c, H - 1 - x, y).
  const Tensor image = random_image(2, 3, 5, DType::UInt8, 6);
  const Tensor r = io::detail::apply_exif_orientation(image, 6);
  ASSERT_EQ(Dims(r.shape()), Dims({2, 5, 3}));
  for (std::int64_t c = 0; c < 2; ++c)
    for (std::int64_t y = 0; y < 5; ++y)
      for (std::int64_t x = 0; x < 3; ++x) EXPECT_EQ(at(r, c, y, x), at(image, c, 2 - x, y));
}

TEST(Io, BadDataRaisesAndBatchesNameTheIndex) {
  const Tensor good = io::encode_jpeg(random_image(3, 16, 16, DType::UInt8, 1));
  const Tensor truncated = good.slice(0, 0, good.numel() / 2);
  const Tensor junk = io::encode_png(random_image(1, 2, 2, DType::UInt8, 2)).slice(0, 0, 20);
  expect_error(ErrorKind::Runtime, "decode_jpeg: Image is incomplete or truncated", [&] { io::decode_jpeg(truncated); });
  expect_error(ErrorKind::Runtime, "decode_png:", [&] { io::decode_png(junk); });
  expect_error(ErrorKind::Runtime, "Content is not png", [&] { io::decode_png(good); });
  expect_error(ErrorKind::Runtime, "neither JPEG nor PNG", [&] { io::decode_image(good.slice(0, 5, 40)); });
  expect_error(ErrorKind::Type, "expected a uint8 tensor", [&] { io::decode_jpeg(random_image(1, 1, 4, DType::UInt16, 1)); });
  expect_error(ErrorKind::Value, "non-empty 1-D", [&] { io::decode_jpeg(good.slice(0, 0, 0)); });
  expect_error(ErrorKind::Runtime, "not supported for JPEG", [&] { io::decode_jpeg(good, io::ImageReadMode::RGBAlpha); });
  expect_error(ErrorKind::Runtime, "image 1 of the batch: Image is incomplete", [&] {
    io::decode_jpeg(std::vector<Tensor>{good, truncated, good});
  });
  std::vector<std::string> errors;
  const auto out = io::decode_image(std::vector<Tensor>{good, junk, good}, io::ImageReadMode::Unchanged, false,
                                    Device::cpu(), io::OnError::Skip, &errors);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].defined() && out[2].defined());
  EXPECT_FALSE(out[1].defined());
  EXPECT_TRUE(errors[0].empty() && errors[2].empty());
  EXPECT_NE(errors[1].find("image 1 of the batch"), std::string::npos) << errors[1];
  expect_equal_images(out[0], io::decode_jpeg(good));
}

// The GPU decoder's truncation check (it looks for FF D9 from the end of the file) against a
// straightforward forward scan of the bytes after the first SOS, on whole files, files cut
// anywhere, files with trailing padding, a marker planted at a random cut, and a file whose APP1
// segment holds a thumbnail with an FF D9 of its own before the scan.
bool end_marker_by_forward_scan(const std::vector<std::uint8_t>& b) {
  const std::size_t n = b.size();
  if (n < 4 || b[0] != 0xFF || b[1] != 0xD8) return false;
  std::size_t i = 2;
  while (i + 4 <= n && b[i] == 0xFF) {
    if (b[i + 1] == 0xFF) {
      ++i;
      continue;
    }
    const std::size_t length = (std::size_t{b[i + 2]} << 8) | b[i + 3];
    if (b[i + 1] == 0xDA) {
      for (std::size_t j = i + 2 + length; j + 1 < n; ++j) {
        if (b[j] == 0xFF && b[j + 1] == 0xD9) return true;
      }
      return false;
    }
    i += 2 + length;
  }
  return false;
}

TEST(Io, JpegEndMarkerCheckEqualsAForwardScan) {
  std::vector<std::vector<std::uint8_t>> files;
  auto bytes_of = [](const Tensor& t) {
    const auto* p = static_cast<const std::uint8_t*>(t.data());
    return std::vector<std::uint8_t>(p, p + t.numel());
  };
  files.push_back(bytes_of(io::encode_jpeg(random_image(3, 37, 53, DType::UInt8, 3), 90)));
  files.push_back(bytes_of(io::encode_jpeg(random_image(1, 20, 9, DType::UInt8, 4), 50)));
  const std::vector<std::uint8_t> thumb = bytes_of(io::encode_jpeg(random_image(3, 8, 8, DType::UInt8, 5)));
  std::vector<std::uint8_t> with_thumb(files[0].begin(), files[0].begin() + 2);
  const std::size_t length = thumb.size() + 2;
  for (std::uint8_t b : {std::uint8_t{0xFF}, std::uint8_t{0xE1}, static_cast<std::uint8_t>(length >> 8), static_cast<std::uint8_t>(length)})
    with_thumb.push_back(b);
  with_thumb.insert(with_thumb.end(), thumb.begin(), thumb.end());
  with_thumb.insert(with_thumb.end(), files[0].begin() + 2, files[0].end());
  files.push_back(with_thumb);
  std::mt19937 rng(7);
  int cases = 0, whole = 0;
  for (const auto& file : files) {
    EXPECT_TRUE(io::detail::jpeg_has_end_of_image(file.data(), file.size()));
    for (int t = 0; t < 300; ++t) {
      std::vector<std::uint8_t> v = file;
      switch (t % 4) {
        case 1: v.resize(rng() % (v.size() + 1)); break;
        case 2: v.resize(v.size() + rng() % 64, rng() % 2 ? 0x00 : 0xFF); break;
        case 3: v.resize(rng() % (v.size() + 1)); v.push_back(0xFF); v.push_back(0xD9); break;
        default: break;
      }
      const bool expected = end_marker_by_forward_scan(v);
      ASSERT_EQ(io::detail::jpeg_has_end_of_image(v.data(), v.size()), expected) << "case " << t << ", " << v.size() << " bytes";
      ++cases;
      whole += expected;
    }
  }
  EXPECT_GT(whole, cases / 3);  // both answers are exercised
  EXPECT_LT(whole, cases);
  EXPECT_FALSE(io::detail::jpeg_has_end_of_image(thumb.data(), thumb.size() - 2));  // cut before its marker
}

TEST(Io, FilesRoundTripAndErrorsNameThePath) {
  const auto path = std::filesystem::temp_directory_path() / "sv_io_test.png";
  const Tensor bytes = io::encode_png(random_image(3, 4, 4, DType::UInt8, 8));
  io::write_file(path.string(), bytes);
  const Tensor back = io::read_file(path.string());
  ASSERT_EQ(back.numel(), bytes.numel());
  EXPECT_EQ(std::memcmp(back.data(), bytes.data(), bytes.nbytes()), 0);
  std::filesystem::remove(path);
  expect_error(ErrorKind::Runtime, "read_file: cannot open '/nonexistent/x.png'", [&] { io::read_file("/nonexistent/x.png"); });
}

TEST(Io, CudaDecodeWithoutNvjpegSaysSo) {
  if (io::detail::gpu_jpeg_decoder_available()) GTEST_SKIP() << "this build has the nvJPEG decoder";
  const Tensor good = io::encode_jpeg(random_image(3, 8, 8, DType::UInt8, 1));
  expect_error(ErrorKind::Runtime, "needs the nvJPEG decoder", [&] { io::decode_jpeg(good, io::ImageReadMode::RGB, Device::cuda(0)); });
}

}  // namespace
