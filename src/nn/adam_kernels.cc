// Highway Adam update. Sparse ranges skip whole vectors whose gradients are all zero, so a
// step over a mostly-untouched hash table reads the gradients and writes almost nothing.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/adam_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>

#include "nn/adam.h"

#ifndef RADIANT_ADAM_SCALAR_ONCE
#define RADIANT_ADAM_SCALAR_ONCE
namespace radiant {
namespace {
// The scalar rule, shared by the reference and the SIMD tail.
inline void adam_scalar_one(const AdamStepArgs& a, float& p, float& g, float& m, float& v) {
    if (a.sparse && g == 0.0f) return;
    float grad = g + a.l2 * p;
    m = a.beta1 * m + (1.0f - a.beta1) * grad;
    v = a.beta2 * v + (1.0f - a.beta2) * grad * grad;
    p -= a.lr_corrected * m / (std::sqrt(v) + a.epsilon);
    g = 0.0f;
}
}  // namespace
}  // namespace radiant
#endif

HWY_BEFORE_NAMESPACE();
namespace radiant {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void AdamUpdate(const AdamStepArgs& a, float* p, float* g, float* m, float* v, size_t n) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    const auto b1 = hn::Set(d, a.beta1), b2 = hn::Set(d, a.beta2);
    const auto omb1 = hn::Set(d, 1.0f - a.beta1), omb2 = hn::Set(d, 1.0f - a.beta2);
    const auto lr = hn::Set(d, a.lr_corrected), eps = hn::Set(d, a.epsilon);
    const auto l2 = hn::Set(d, a.l2), zero = hn::Zero(d);
    size_t i = 0;
    for (; i + L <= n; i += L) {
        const auto gv = hn::LoadU(d, g + i);
        const auto touched = hn::Ne(gv, zero);
        if (a.sparse && hn::AllFalse(d, touched)) continue;
        const auto pv = hn::LoadU(d, p + i);
        const auto grad = hn::MulAdd(l2, pv, gv);
        const auto mv = hn::MulAdd(b1, hn::LoadU(d, m + i), hn::Mul(omb1, grad));
        const auto vv = hn::MulAdd(b2, hn::LoadU(d, v + i), hn::Mul(omb2, hn::Mul(grad, grad)));
        const auto step = hn::Div(hn::Mul(lr, mv), hn::Add(hn::Sqrt(vv), eps));
        const auto pn = hn::Sub(pv, step);
        if (a.sparse) {
            hn::StoreU(hn::IfThenElse(touched, pn, pv), d, p + i);
            hn::StoreU(hn::IfThenElse(touched, mv, hn::LoadU(d, m + i)), d, m + i);
            hn::StoreU(hn::IfThenElse(touched, vv, hn::LoadU(d, v + i)), d, v + i);
        } else {
            hn::StoreU(pn, d, p + i);
            hn::StoreU(mv, d, m + i);
            hn::StoreU(vv, d, v + i);
        }
        hn::StoreU(zero, d, g + i);
    }
    for (; i < n; ++i) adam_scalar_one(a, p[i], g[i], m[i], v[i]);
}

}  // namespace HWY_NAMESPACE
}  // namespace radiant
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace radiant {

HWY_EXPORT(AdamUpdate);

void adam_update(const AdamStepArgs& a, float* params, float* grads, float* m, float* v, size_t n,
                 KernelImpl impl) {
    if (impl == KernelImpl::kSimd)
        return HWY_DYNAMIC_DISPATCH(AdamUpdate)(a, params, grads, m, v, n);
    for (size_t i = 0; i < n; ++i) adam_scalar_one(a, params[i], grads[i], m[i], v[i]);
}

}  // namespace radiant
#endif  // HWY_ONCE
