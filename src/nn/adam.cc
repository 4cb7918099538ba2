#include "nn/adam.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace radiant {

float AdamConfig::learning_rate_at(uint64_t step) const {
    if (step <= decay_start || decay_interval == 0) return learning_rate;
    uint64_t k = (step - decay_start) / decay_interval;
    return learning_rate * std::pow(decay_base, float(k));
}

Adam::Adam(const AdamConfig& config, std::vector<ParamRange> ranges, size_t n_params,
           KernelImpl impl)
    : m_config(config), m_ranges(std::move(ranges)), m_impl(impl) {
    for (const auto& r : m_ranges) RD_CHECK(r.offset + r.count <= n_params);
    m_m.assign(n_params, 0.0f);
    m_v.assign(n_params, 0.0f);
}

void Adam::step(float* params, float* grads, ThreadPool& pool, size_t begin, size_t end) {
    step(params, grads, pool, begin, end, nullptr);
}

void Adam::step(float* params, float* grads, ThreadPool& pool, size_t begin, size_t end,
                const BlockHook& before_block) {
    ++m_step;
    const double t = double(m_step);
    const double correction = std::sqrt(1.0 - std::pow(double(m_config.beta2), t)) /
                              (1.0 - std::pow(double(m_config.beta1), t));
    AdamStepArgs base{float(m_config.learning_rate_at(m_step) * m_lr_scale * correction),
                      m_config.beta1,
                      m_config.beta2,
                      m_config.epsilon,
                      0.0f,
                      false};
    // Each range is split into fixed blocks; updates are element-wise, so the split does not
    // change results.
    constexpr size_t kBlock = 1 << 14;
    for (const ParamRange& r : m_ranges) {
        AdamStepArgs a = base;
        a.l2 = r.l2 ? m_config.l2_reg : 0.0f;
        a.sparse = r.sparse;
        const size_t lo = std::max(r.offset, begin), hi = std::min(r.offset + r.count, end);
        if (lo >= hi) continue;
        size_t n_blocks = (hi - lo + kBlock - 1) / kBlock;
        pool.parallel_for(n_blocks, [&](size_t b, int) {
            size_t first = lo + b * kBlock;
            size_t n = std::min(kBlock, hi - first);
            float* g = before_block ? before_block(first, n) : grads + first;
            adam_update(a, params + first, g, m_m.data() + first, m_v.data() + first, n, m_impl);
        });
    }
}

}  // namespace radiant
