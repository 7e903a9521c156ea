// CPU kernel of gaussian_noise: elements in logical (row-major) order, four per Philox counter.
#include "cpu/parallel.hpp"
#include "core/dtype_dispatch.hpp"
#include "kernels/noise.hpp"
#include "streamvision/functional/noise.hpp"

namespace streamvision::cpu {

namespace {

template <class T>
void noise(const Tensor& input, const Tensor& output, const kernels::NoiseOp<T>& op, const Tensor& normals) {
  const int rank = input.dim();
  const std::int64_t numel = input.numel();
  const std::int64_t groups = (numel + 3) / 4;
  const T* in = static_cast<const T*>(input.data());
  T* out = static_cast<T*>(output.data());
  const bool given = normals.defined();
  const auto* nrm = given ? static_cast<const kernels::noise_normals_t<T>*>(normals.data()) : nullptr;
  const std::int64_t* nrm_strides = given ? normals.strides().data() : input.strides().data();
  parallel_for(groups, 1024, [&](std::int64_t first, std::int64_t last) {
    std::int64_t idx[kMaxRank] = {};
    for (std::int64_t g = first; g < last; ++g) {
      // Multi-index of element 4g.
      std::int64_t rest = 4 * g, in_off = 0, out_off = 0, n_off = 0;
      for (int d = rank - 1; d >= 0; --d) {
        idx[d] = rest % input.shape()[d];
        rest /= input.shape()[d];
        in_off += idx[d] * input.strides()[d];
        out_off += idx[d] * output.strides()[d];
        n_off += idx[d] * nrm_strides[d];
      }
      double z[kernels::kNormalsPerCounter];
      if (!given) kernels::normal4(op.seed, op.offset + static_cast<std::uint64_t>(g), z);
      for (int e = 0; e < kernels::kNormalsPerCounter && 4 * g + e < numel; ++e) {
        out[out_off] = op.apply(in[in_off], given ? static_cast<double>(kernels::to_opmath(nrm[n_off])) : z[e]);
        for (int d = rank - 1; d >= 0; --d) {  // next element in row-major order
          in_off += input.strides()[d];
          out_off += output.strides()[d];
          n_off += nrm_strides[d];
          if (++idx[d] < input.shape()[d]) break;
          in_off -= idx[d] * input.strides()[d];
          out_off -= idx[d] * output.strides()[d];
          n_off -= idx[d] * nrm_strides[d];
          idx[d] = 0;
        }
      }
    }
  });
}

void gaussian_noise(const Tensor& input, const Tensor& output, double mean, double sigma, bool clip,
                    const ops::NoiseSource& source, const Stream&) {
  detail::NoiseDTypes::dispatch(input.dtype(), "gaussian_noise", [&](auto tag) {
    using T = typename decltype(tag)::type;
    noise<T>(input, output, kernels::NoiseOp<T>::make(mean, sigma, clip, source.state.seed, source.state.offset,
                                                      /*mean_in_image_dtype=*/true),
             source.normals);
  });
}

SV_REGISTER_KERNEL(ops::GaussianNoise, DeviceType::CPU, &gaussian_noise, detail::NoiseDTypes::set);

}  // namespace

}  // namespace streamvision::cpu
