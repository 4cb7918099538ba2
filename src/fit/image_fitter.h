// Learns a 2D image with the neural core (instant-ngp's "gigapixel image" task): a 2D hash
// grid and a fused MLP map a pixel position to its colour.
//
// One step: sample `batch` random continuous positions (per fixed chunk, keyed by seed, step
// and chunk, so results do not depend on the thread count), bilinear targets, encode ->
// MLP -> L2/Huber loss -> backward; then the chunks' gradients are summed as the NeRF
// trainer sums them (nn/gradient_sum.h: hash levels and MLP blocks, in chunk order); then Adam.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/aligned.h"
#include "core/thread_pool.h"
#include "io/image.h"
#include "nn/adam.h"
#include "nn/gradient_sum.h"
#include "nn/hash_grid.h"
#include "nn/loss.h"
#include "nn/mlp.h"

namespace radiant {

struct FitImageConfig {
    // Encoding: instant-ngp's image config (16 levels x 2 features, base 16, finest = image).
    int n_levels = 16;
    int n_features_per_level = 2;
    int log2_hashmap_size = 15;  // as instant-ngp's image config; 2^14..2^17 trade speed for detail
    int base_resolution = 16;
    // MLP: 64 wide, 2 hidden layers, 3 outputs.
    int n_neurons = 64;
    int n_hidden_layers = 2;
    Activation output_activation = Activation::kNone;
    // bf16 on AMX won on time-to-PSNR (BENCHMARKS.md); CPUs without AMX run fp32.
    MlpPrecision precision = MlpPrecision::kBf16;
    size_t batch = size_t(1) << 16;  // pixels per step
    AdamConfig adam;
    LossConfig loss;
    uint64_t seed = 1337;
    KernelImpl impl = KernelImpl::kSimd;
};

class ImageFitter {
  public:
    // `image` may have 1-4 channels; RGB is learnt (gray is replicated, alpha ignored).
    ImageFitter(const ImageF& image, const FitImageConfig& config, ThreadPool& pool);

    // One optimisation step; returns the batch's mean loss per channel value.
    double step();
    uint64_t steps() const { return m_step; }

    // Renders every pixel centre (values clamped to [0, 1]).
    ImageF render();
    // PSNR in dB of render() against the image, over all pixels and RGB channels.
    double psnr();

    const HashGrid& grid() const { return m_grid; }
    const FusedMlp& mlp() const { return m_mlp; }
    const AlignedVector<float>& params() const { return m_params; }
    Adam& optimizer() { return *m_adam; }
    // Trained FLOPs per pixel: MLP forward + backward including the encoding gradient.
    double flops_per_sample() const { return m_mlp.flops_per_sample(true); }
    size_t batch() const { return m_config.batch; }

    // Wall time spent in each phase of step(), summed over all steps (for benchmarks).
    struct PhaseTimes {
        double forward_backward = 0, gradients = 0, optimizer = 0;
    };
    const PhaseTimes& phase_times() const { return m_phase; }

    static constexpr size_t kTile = 128;
    static constexpr size_t kChunks = 64;  // fixed: results must not depend on thread count

  private:
    void sample_targets(size_t begin, size_t end, uint64_t chunk);
    void target_at(float px, float py, float* rgb) const;

    FitImageConfig m_config;
    ThreadPool& m_pool;
    int m_width, m_height;
    float m_inv_extent;        // 1 / max(width, height): pixel coordinates -> [0, 1]
    std::vector<float> m_rgb;  // [h][w][3]
    HashGrid m_grid;
    FusedMlp m_mlp;
    GradientSum m_gradient_sum;
    size_t m_mlp_offset;
    AlignedVector<float> m_params, m_grads, m_packed;
    std::unique_ptr<Adam> m_adam;
    uint64_t m_step = 0;
    PhaseTimes m_phase;

    // Per-step buffers, allocated once.
    AlignedVector<float> m_positions;                // [batch][2], in [0, 1]
    AlignedVector<float> m_targets;                  // [batch][3]
    AlignedVector<float> m_d_enc;                    // [L*F][batch]
    std::vector<AlignedVector<float>> m_chunk_grad;  // [kChunks][MLP params]
    std::vector<double> m_chunk_loss;
    struct ThreadScratch {
        FusedMlp::Workspace mlp;
        AlignedVector<float> enc, pred, d_pred;
    };
    std::vector<ThreadScratch> m_scratch;
};

}  // namespace radiant
