// Adam over one flat parameter buffer (fp32 master weights), with instant-ngp's options:
// L2 regularisation on a chosen range (the MLP weights), sparse ranges whose entries are left
// alone when their gradient is exactly zero (hash-table rows no sample touched this step),
// and an exponential learning-rate decay schedule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/aligned.h"
#include "core/thread_pool.h"
#include "nn/simd.h"

namespace radiant {

struct AdamConfig {
    float learning_rate = 1e-2f;
    float beta1 = 0.9f;
    float beta2 = 0.99f;
    float epsilon = 1e-15f;
    float l2_reg = 1e-6f;  // added to the gradient of parameters in l2 ranges
    // lr *= decay_base ^ floor((step - decay_start) / decay_interval) once step > decay_start.
    uint64_t decay_start = 1000000000;
    uint64_t decay_interval = 1000;
    float decay_base = 0.33f;

    float learning_rate_at(uint64_t step) const;
};

// A contiguous range of the parameter buffer with its update rule.
struct ParamRange {
    size_t offset = 0;
    size_t count = 0;
    bool l2 = false;      // apply l2_reg
    bool sparse = false;  // skip entries whose gradient is exactly zero
};

// One Adam step on [begin, end) of the buffers: updates params, m, v; zeroes grads.
// `step` counts from 1. The hot loop behind Adam::step; exposed for tests.
struct AdamStepArgs {
    float lr_corrected;  // learning rate with bias correction folded in
    float beta1, beta2, epsilon, l2;
    bool sparse;
};
void adam_update(const AdamStepArgs& a, float* params, float* grads, float* m, float* v, size_t n,
                 KernelImpl impl = KernelImpl::kSimd);

class Adam {
  public:
    Adam(const AdamConfig& config, std::vector<ParamRange> ranges, size_t n_params,
         KernelImpl impl = KernelImpl::kSimd);

    // Applies one step to params using grads (which are zeroed afterwards).
    void step(float* params, float* grads, ThreadPool& pool) {
        step(params, grads, pool, 0, SIZE_MAX);
    }
    // The same step for the parameters in [begin, end) only (a rank's shard when the
    // optimiser is sharded over ranks); the rest of params, grads and moments is untouched.
    void step(float* params, float* grads, ThreadPool& pool, size_t begin, size_t end);
    // The same, calling before_block(first, n) on each block of grads just before its update,
    // on the thread that updates it: gradients can be summed in a block at a time while the
    // block is in cache (ranks reading each other's shared gradients). It returns where the
    // block's gradients are (grads + first, or another buffer holding them whole), which the
    // update reads and zeroes.
    using BlockHook = std::function<float*(size_t first, size_t n)>;
    void step(float* params, float* grads, ThreadPool& pool, size_t begin, size_t end,
              const BlockHook& before_block);

    uint64_t steps_taken() const { return m_step; }
    const AdamConfig& config() const { return m_config; }
    // Moment buffers and step counter, for snapshots.
    AlignedVector<float>& first_moment() { return m_m; }
    AlignedVector<float>& second_moment() { return m_v; }
    void set_steps_taken(uint64_t s) { m_step = s; }
    // Multiplies the scheduled learning rate (e.g. a schedule over wall time, set each step).
    void set_learning_rate_scale(float s) { m_lr_scale = s; }

  private:
    AdamConfig m_config;
    std::vector<ParamRange> m_ranges;
    KernelImpl m_impl;
    AlignedVector<float> m_m, m_v;
    uint64_t m_step = 0;
    float m_lr_scale = 1.0f;
};

}  // namespace radiant
