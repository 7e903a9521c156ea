// Front ends of gaussian_blur and gaussian_noise.
#include "streamvision/functional/misc.hpp"

#include <string>

#include "functional/color_common.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::GaussianBlur)
SV_DEFINE_KERNEL_TABLE(streamvision::ops::GaussianNoise)

namespace streamvision::functional {

namespace {

std::string list(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + detail::color::format_number(v[i]);
  return out + "]";
}

std::string list(const std::vector<std::int64_t>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

}  // namespace

Tensor gaussian_blur(const Tensor& image, const std::vector<std::int64_t>& kernel_size,
                     const std::optional<std::vector<double>>& sigma, const std::optional<Stream>& stream) {
  constexpr const char* op = ops::GaussianBlur::name;
  detail::check_image(op, image, 3);
  if (kernel_size.size() != 2) {
    throw Error(ErrorKind::Value, op, "kernel_size", "a sequence of length 2 ([kx, ky])",
                list(kernel_size) + " (kernel_size is a sequence its length should be 2)");
  }
  for (std::int64_t k : kernel_size) {
    if (k % 2 == 0 || k < 0) {
      throw Error(ErrorKind::Value, op, "kernel_size", "odd and positive integers",
                  list(kernel_size) + " (kernel_size should have odd and positive integers)");
    }
  }
  ops::GaussianBlurParams params;
  params.kernel_x = kernel_size[0];
  params.kernel_y = kernel_size[1];
  if (!sigma) {
    params.sigma_x = static_cast<double>(kernel_size[0]) * 0.15 + 0.35;
    params.sigma_y = static_cast<double>(kernel_size[1]) * 0.15 + 0.35;
  } else if (sigma->size() == 1) {
    params.sigma_x = params.sigma_y = (*sigma)[0];
  } else if (sigma->size() == 2) {
    params.sigma_x = (*sigma)[0];
    params.sigma_y = (*sigma)[1];
  } else {
    throw Error(ErrorKind::Value, op, "sigma", "one value or a sequence of length 2",
                list(*sigma) + " (sigma is a sequence, its length should be 2)");
  }
  if (!(params.sigma_x > 0) || !(params.sigma_y > 0)) {
    throw Error(ErrorKind::Value, op, "sigma", "positive values",
                list(std::vector<double>{params.sigma_x, params.sigma_y}) + " (sigma should have positive values)");
  }
  if (image.numel() == 0) return image;
  // torch's reflect padding needs the padding to be smaller than the padded dimension.
  if (params.kernel_x / 2 >= image.size(-1) || params.kernel_y / 2 >= image.size(-2)) {
    throw Error(ErrorKind::Runtime, op, "kernel_size",
                "kernel_size / 2 < the image's width and height (reflect padding size should be less than the "
                "corresponding input dimension)",
                list(kernel_size) + " for an image of size " + std::to_string(image.size(-2)) + "x" +
                    std::to_string(image.size(-1)));
  }
  const auto kernel = kernel_table<ops::GaussianBlur>().get(image.device(), image.dtype());
  const Stream on = detail::op_stream(op, image, stream);
  const Tensor src = detail::color::batchable(image, on);
  Tensor out = detail::color::image_output(src, src.size(-3), on);
  kernel(src, out, params, on);
  return out;
}

std::uint64_t gaussian_noise_counters(const Tensor& image) {
  return (static_cast<std::uint64_t>(image.numel()) + 3) / 4;
}

namespace {

// Validates; returns the kernel (the state is drawn only after every check passed).
ops::GaussianNoise::Kernel noise_kernel(const Tensor& image, double sigma) {
  gaussian_noise_normals_dtype(image, sigma);
  return kernel_table<ops::GaussianNoise>().get(image.device(), image.dtype());
}

Tensor run_noise(ops::GaussianNoise::Kernel kernel, const Tensor& image, double mean, double sigma, bool clip,
                 const ops::NoiseSource& source, const std::optional<Stream>& stream) {
  const Stream on = detail::op_stream(ops::GaussianNoise::name, image, stream);
  Tensor out = empty_like(image, std::nullopt, on);
  if (out.numel() > 0) kernel(image, out, mean, sigma, clip, source, on);
  return out;
}

}  // namespace

DType gaussian_noise_normals_dtype(const Tensor& image, double sigma) {
  constexpr const char* op = ops::GaussianNoise::name;
  detail::check_image(op, image, 0);
  detail::color::check_value(!(sigma < 0), ErrorKind::Value, op, "sigma", "a non-negative sigma", sigma,
                             "sigma shouldn't be negative");
  if (is_floating_point(image.dtype())) return image.dtype();
  if (image.dtype() == DType::UInt8) return DType::Float32;
  throw Error(ErrorKind::Value, op, "image", "a tensor in uint8 or float dtype",
              std::string(dtype_name(image.dtype())) + " (Input tensor is expected to be in uint8 or float dtype, got dtype=torch." +
                  dtype_name(image.dtype()) + ")");
}

Tensor gaussian_noise(const Tensor& image, double mean, double sigma, bool clip, Generator* generator,
                      const std::optional<Stream>& stream) {
  const auto kernel = noise_kernel(image, sigma);
  detail::op_stream(ops::GaussianNoise::name, image, stream);  // a bad stream must not consume randomness
  Generator& g = generator ? *generator : Generator::default_generator();
  return run_noise(kernel, image, mean, sigma, clip, {g.next(gaussian_noise_counters(image)), Tensor()}, stream);
}

Tensor gaussian_noise(const Tensor& image, double mean, double sigma, bool clip, const PhiloxState& state,
                      const std::optional<Stream>& stream) {
  const auto kernel = noise_kernel(image, sigma);
  return run_noise(kernel, image, mean, sigma, clip, {state, Tensor()}, stream);
}

Tensor gaussian_noise(const Tensor& image, const Tensor& normals, double mean, double sigma, bool clip,
                      const std::optional<Stream>& stream) {
  constexpr const char* op = ops::GaussianNoise::name;
  const DType want = gaussian_noise_normals_dtype(image, sigma);
  if (normals.dtype() != want) {
    throw Error(ErrorKind::Type, op, "normals", std::string("a ") + dtype_name(want) + " tensor", dtype_name(normals.dtype()));
  }
  if (Dims(normals.shape()) != Dims(image.shape())) {
    throw Error(ErrorKind::Value, op, "normals", "a tensor of the image's shape " + Dims(image.shape()).str(),
                Dims(normals.shape()).str());
  }
  if (normals.device() != image.device()) {
    throw Error(ErrorKind::Value, op, "normals", "a tensor on the image's device", normals.device().str());
  }
  const auto kernel = kernel_table<ops::GaussianNoise>().get(image.device(), image.dtype());
  return run_noise(kernel, image, mean, sigma, clip, {PhiloxState{}, normals}, stream);
}

}  // namespace streamvision::functional
