// Front end of gaussian_noise.
#include "streamvision/functional/noise.hpp"

#include <string>

#include "functional/op_context.hpp"

SV_DEFINE_KERNEL_TABLE(streamvision::ops::GaussianNoise)

namespace streamvision::functional {

std::uint64_t gaussian_noise_counters(const Tensor& image) {
  return (static_cast<std::uint64_t>(image.numel()) + 3) / 4;
}

namespace {

// `source` is called after every check passed (it may draw from a generator).
template <class Source>
Tensor run_noise(const Tensor& image, double mean, double sigma, bool clip, Source&& source,
                 const std::optional<Stream>& stream) {
  gaussian_noise_normals_dtype(image, sigma);
  auto [kernel, on, src, out] = detail::prepare<ops::GaussianNoise>(image, stream);
  if (out.numel() > 0) kernel(src, out, mean, sigma, clip, source(), on);
  return out;
}

}  // namespace

DType gaussian_noise_normals_dtype(const Tensor& image, double sigma) {
  constexpr const char* op = ops::GaussianNoise::name;
  detail::check_image(op, image, 0);
  detail::check_value(!(sigma < 0), ErrorKind::Value, op, "sigma", "a non-negative sigma", sigma,
                             "sigma shouldn't be negative");
  if (is_floating_point(image.dtype())) return image.dtype();
  if (image.dtype() == DType::UInt8) return DType::Float32;
  throw Error(ErrorKind::Value, op, "image", "a tensor in uint8 or float dtype",
              std::string(dtype_name(image.dtype())) + " (Input tensor is expected to be in uint8 or float dtype, got dtype=torch." +
                  dtype_name(image.dtype()) + ")");
}

Tensor gaussian_noise(const Tensor& image, double mean, double sigma, bool clip, Generator* generator,
                      const std::optional<Stream>& stream) {
  Generator& g = generator ? *generator : Generator::default_generator();
  return run_noise(image, mean, sigma, clip, [&] { return ops::NoiseSource{g.next(gaussian_noise_counters(image)), Tensor()}; },
                   stream);
}

Tensor gaussian_noise(const Tensor& image, double mean, double sigma, bool clip, const PhiloxState& state,
                      const std::optional<Stream>& stream) {
  return run_noise(image, mean, sigma, clip, [&] { return ops::NoiseSource{state, Tensor()}; }, stream);
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
  return run_noise(image, mean, sigma, clip, [&] { return ops::NoiseSource{PhiloxState{}, normals}; }, stream);
}

}  // namespace streamvision::functional
