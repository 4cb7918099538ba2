// Losses between predictions and targets, with their gradient, over flat float arrays.
#pragma once

#include <cstddef>
#include <string>

#include "nn/simd.h"

namespace radiant {

enum class LossType { kL2, kHuber };
LossType parse_loss(const std::string& name);  // "l2" or "huber"
const char* loss_name(LossType t);

struct LossConfig {
    LossType type = LossType::kL2;
    float huber_delta = 0.1f;  // Huber: quadratic below delta, linear above
};

// Per element: L2 = d^2, Huber = d^2 / 2 if |d| <= delta else delta * (|d| - delta / 2), with
// d = pred - target. Writes grad[i] = grad_scale * dloss/dpred[i] and returns the sum of the
// element losses (not scaled).
double loss_and_gradient(const LossConfig& config, const float* pred, const float* target, size_t n,
                         float grad_scale, float* grad, KernelImpl impl = KernelImpl::kSimd);

}  // namespace radiant
