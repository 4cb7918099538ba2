// SH degree 4. The polynomial is written once as a template over the number type, so the
// scalar reference (T = float) and the Highway kernel (T = a SIMD vector wrapper) evaluate
// exactly the same expressions.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/sh_encoding.cc"
#include "nn/sh_encoding.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>

#ifndef RADIANT_SH_POLY_ONCE
#define RADIANT_SH_POLY_ONCE
namespace radiant::sh_scalar {
#include "nn/sh_poly.inc"
}  // namespace radiant::sh_scalar
#endif

HWY_BEFORE_NAMESPACE();
namespace radiant {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A thin value wrapper so the shared polynomial reads the same for vectors.
struct VecF {
    using D = hn::ScalableTag<float>;
    hn::Vec<D> v;
    VecF() = default;
    HWY_INLINE VecF(hn::Vec<D> x) : v(x) {}
    HWY_INLINE explicit VecF(float c) : v(hn::Set(D(), c)) {}
    friend HWY_INLINE VecF operator+(VecF a, VecF b) { return hn::Add(a.v, b.v); }
    friend HWY_INLINE VecF operator-(VecF a, VecF b) { return hn::Sub(a.v, b.v); }
    friend HWY_INLINE VecF operator*(VecF a, VecF b) { return hn::Mul(a.v, b.v); }
};

namespace sh_detail {
#include "nn/sh_poly.inc"
}  // namespace sh_detail

void ShEncode(const float* dirs, size_t n, float* out, size_t out_stride) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    constexpr size_t kMax = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN float in[3][kMax];
    HWY_ALIGN float res[16][kMax];
    for (size_t i0 = 0; i0 < n; i0 += L) {
        const size_t count = std::min(L, n - i0);
        for (int k = 0; k < 3; ++k)
            for (size_t j = 0; j < L; ++j) in[k][j] = j < count ? dirs[(i0 + j) * 3 + k] : 0.0f;
        VecF o[16];
        sh_detail::eval(VecF(hn::Load(d, in[0])), VecF(hn::Load(d, in[1])),
                        VecF(hn::Load(d, in[2])), o);
        for (int k = 0; k < 16; ++k) hn::Store(o[k].v, d, res[k]);
        for (size_t j = 0; j < count; ++j)
            for (int k = 0; k < 16; ++k) out[(i0 + j) * out_stride + k] = res[k][j];
    }
}

void ShEncodeBackward(const float* dirs, size_t n, const float* d_out, size_t d_out_stride,
                      float* d_dirs) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    constexpr size_t kMax = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN float in[3][kMax];
    HWY_ALIGN float gin[16][kMax];
    HWY_ALIGN float res[3][kMax];
    for (size_t i0 = 0; i0 < n; i0 += L) {
        const size_t count = std::min(L, n - i0);
        for (size_t j = 0; j < L; ++j) {
            for (int k = 0; k < 3; ++k) in[k][j] = j < count ? dirs[(i0 + j) * 3 + k] : 0.0f;
            for (int k = 0; k < 16; ++k)
                gin[k][j] = j < count ? d_out[(i0 + j) * d_out_stride + k] : 0.0f;
        }
        VecF g[16];
        for (int k = 0; k < 16; ++k) g[k] = VecF(hn::Load(d, gin[k]));
        VecF dx, dy, dz;
        sh_detail::grad(VecF(hn::Load(d, in[0])), VecF(hn::Load(d, in[1])),
                        VecF(hn::Load(d, in[2])), g, dx, dy, dz);
        hn::Store(dx.v, d, res[0]);
        hn::Store(dy.v, d, res[1]);
        hn::Store(dz.v, d, res[2]);
        for (size_t j = 0; j < count; ++j)
            for (int k = 0; k < 3; ++k) d_dirs[(i0 + j) * 3 + k] = res[k][j];
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace radiant
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace radiant {

HWY_EXPORT(ShEncode);
HWY_EXPORT(ShEncodeBackward);

void sh_encode(const float* dirs, size_t n, float* out, size_t out_stride, KernelImpl impl) {
    if (impl == KernelImpl::kSimd) return HWY_DYNAMIC_DISPATCH(ShEncode)(dirs, n, out, out_stride);
    for (size_t i = 0; i < n; ++i)
        sh_scalar::eval(dirs[3 * i], dirs[3 * i + 1], dirs[3 * i + 2], out + i * out_stride);
}

void sh_encode_backward(const float* dirs, size_t n, const float* d_out, size_t d_out_stride,
                        float* d_dirs, KernelImpl impl) {
    if (impl == KernelImpl::kSimd)
        return HWY_DYNAMIC_DISPATCH(ShEncodeBackward)(dirs, n, d_out, d_out_stride, d_dirs);
    for (size_t i = 0; i < n; ++i) {
        const float* p = dirs + 3 * i;
        sh_scalar::grad(p[0], p[1], p[2], d_out + i * d_out_stride, d_dirs[3 * i],
                        d_dirs[3 * i + 1], d_dirs[3 * i + 2]);
    }
}

}  // namespace radiant
#endif  // HWY_ONCE
