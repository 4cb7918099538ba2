#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/loss.cc"
#include "nn/loss.h"

#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cmath>

#include "core/error.h"

#ifndef RADIANT_LOSS_SCALAR_ONCE
#define RADIANT_LOSS_SCALAR_ONCE
namespace radiant {
namespace {
inline float loss_one(const LossConfig& c, float d, float scale, float& grad) {
    if (c.type == LossType::kL2) {
        grad = scale * 2.0f * d;
        return d * d;
    }
    float ad = std::fabs(d);
    if (ad <= c.huber_delta) {
        grad = scale * d;
        return 0.5f * d * d;
    }
    grad = scale * (d > 0 ? c.huber_delta : -c.huber_delta);
    return c.huber_delta * (ad - 0.5f * c.huber_delta);
}
}  // namespace
}  // namespace radiant
#endif

HWY_BEFORE_NAMESPACE();
namespace radiant {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

double LossAndGradient(const LossConfig& c, const float* pred, const float* target, size_t n,
                       float grad_scale, float* grad) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    const auto scale = hn::Set(d, grad_scale);
    const auto delta = hn::Set(d, c.huber_delta), half = hn::Set(d, 0.5f);
    auto sum = hn::Zero(d);
    size_t i = 0;
    for (; i + L <= n; i += L) {
        const auto diff = hn::Sub(hn::LoadU(d, pred + i), hn::LoadU(d, target + i));
        if (c.type == LossType::kL2) {
            sum = hn::MulAdd(diff, diff, sum);
            hn::StoreU(hn::Mul(hn::Add(scale, scale), diff), d, grad + i);
        } else {
            const auto ad = hn::Abs(diff);
            const auto quad = hn::Le(ad, delta);
            const auto lq = hn::Mul(half, hn::Mul(diff, diff));
            const auto ll = hn::Mul(delta, hn::Sub(ad, hn::Mul(half, delta)));
            sum = hn::Add(sum, hn::IfThenElse(quad, lq, ll));
            const auto clipped = hn::Min(hn::Max(diff, hn::Neg(delta)), delta);
            hn::StoreU(hn::Mul(scale, clipped), d, grad + i);
        }
    }
    double total = hn::GetLane(hn::SumOfLanes(d, sum));
    for (; i < n; ++i) total += loss_one(c, pred[i] - target[i], grad_scale, grad[i]);
    return total;
}

}  // namespace HWY_NAMESPACE
}  // namespace radiant
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace radiant {

HWY_EXPORT(LossAndGradient);

LossType parse_loss(const std::string& name) {
    if (name == "l2") return LossType::kL2;
    if (name == "huber") return LossType::kHuber;
    throw Error("--loss", "unknown loss '" + name + "' (l2, huber)");
}

const char* loss_name(LossType t) { return t == LossType::kL2 ? "l2" : "huber"; }

double loss_and_gradient(const LossConfig& c, const float* pred, const float* target, size_t n,
                         float grad_scale, float* grad, KernelImpl impl) {
    if (impl == KernelImpl::kSimd)
        return HWY_DYNAMIC_DISPATCH(LossAndGradient)(c, pred, target, n, grad_scale, grad);
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) total += loss_one(c, pred[i] - target[i], grad_scale, grad[i]);
    return total;
}

}  // namespace radiant
#endif  // HWY_ONCE
