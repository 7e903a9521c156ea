// CUDA kernel of gaussian_noise: one thread per Philox counter, i.e. per four consecutive
// elements in logical (row-major) order; the same values as the CPU engine.
#include "cuda/launch.hpp"
#include "core/dtype_dispatch.hpp"
#include "kernels/noise.hpp"
#include "streamvision/functional/noise.hpp"

namespace streamvision::cuda {

namespace {

struct NoiseShape {
  int rank;
  std::int64_t shape[kMaxRank];
  std::int64_t in_stride[kMaxRank];
  std::int64_t out_stride[kMaxRank];
  std::int64_t normals_stride[kMaxRank];
  std::int64_t numel;
  bool contiguous;  // every tensor row-major dense: offset == logical index
};

// `normals` null: draw from Philox; else read element i's normal from it.
template <class T>
__global__ void __launch_bounds__(256)
    noise_kernel(const T* in, T* out, const kernels::noise_normals_t<T>* normals, NoiseShape s, std::int64_t first_group,
                 kernels::NoiseOp<T> op) {
  const std::int64_t g = first_group + static_cast<std::int64_t>(blockIdx.x) * 256 + threadIdx.x;
  const std::int64_t first = 4 * g;
  if (first >= s.numel) return;
  double z[kernels::kNormalsPerCounter];
  if (normals == nullptr) kernels::normal4(op.seed, op.offset + static_cast<std::uint64_t>(g), z);
  const int count = static_cast<int>(min(static_cast<std::int64_t>(4), s.numel - first));
  if (s.contiguous) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if (e < count) {
        const double ze = normals ? static_cast<double>(kernels::to_opmath(normals[first + e])) : z[e];
        out[first + e] = op.apply(in[first + e], ze);
      }
    }
    return;
  }
  std::int64_t idx[kMaxRank];
  std::int64_t rest = first, in_off = 0, out_off = 0, n_off = 0;
  for (int d = s.rank - 1; d >= 0; --d) {
    idx[d] = rest % s.shape[d];
    rest /= s.shape[d];
    in_off += idx[d] * s.in_stride[d];
    out_off += idx[d] * s.out_stride[d];
    n_off += idx[d] * s.normals_stride[d];
  }
  for (int e = 0; e < count; ++e) {
    const double ze = normals ? static_cast<double>(kernels::to_opmath(normals[n_off])) : z[e];
    out[out_off] = op.apply(in[in_off], ze);
    for (int d = s.rank - 1; d >= 0; --d) {
      in_off += s.in_stride[d];
      out_off += s.out_stride[d];
      n_off += s.normals_stride[d];
      if (++idx[d] < s.shape[d]) break;
      in_off -= idx[d] * s.in_stride[d];
      out_off -= idx[d] * s.out_stride[d];
      n_off -= idx[d] * s.normals_stride[d];
      idx[d] = 0;
    }
  }
}

void gaussian_noise(const Tensor& input, const Tensor& output, double mean, double sigma, bool clip,
                    const ops::NoiseSource& source, const Stream& stream) {
  const PhiloxState& state = source.state;
  const Tensor& normals = source.normals;
  NoiseShape s{};
  s.rank = input.dim();
  s.numel = input.numel();
  for (int d = 0; d < s.rank; ++d) {
    s.shape[d] = input.shape()[d];
    s.in_stride[d] = input.strides()[d];
    s.out_stride[d] = output.strides()[d];
    s.normals_stride[d] = normals.defined() ? normals.strides()[d] : 0;
  }
  s.contiguous = input.is_contiguous() && output.is_contiguous() && (!normals.defined() || normals.is_contiguous());
  const std::int64_t groups = (s.numel + 3) / 4;
  constexpr std::int64_t kMaxBlocks = (std::int64_t{1} << 31) - 1;
  detail::NoiseDTypes::dispatch(input.dtype(), "gaussian_noise", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto op = kernels::NoiseOp<T>::make(mean, sigma, clip, state.seed, state.offset, /*mean_in_image_dtype=*/false);
    LaunchScope scope(stream, "gaussian_noise");
    for (std::int64_t first = 0; first < groups; first += kMaxBlocks * 256) {
      const std::int64_t blocks = std::min(kMaxBlocks, static_cast<std::int64_t>(blocks_for(groups - first)));
      noise_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, scope.handle()>>>(
          static_cast<const T*>(input.data()), static_cast<T*>(output.data()),
          normals.defined() ? static_cast<const kernels::noise_normals_t<T>*>(normals.data()) : nullptr, s, first, op);
      scope.check_launch();
    }
  });
}

SV_REGISTER_KERNEL(ops::GaussianNoise, DeviceType::CUDA, &gaussian_noise, detail::NoiseDTypes::set);

}  // namespace

}  // namespace streamvision::cuda
