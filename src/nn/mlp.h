// Fully fused MLP on the CPU: a tile of samples goes through every layer while it sits in
// L1/L2, and backward reuses that tile's saved activations.
//
// Weights have no biases (as tiny-cuda-nn's FullyFusedMLP). Parameters are the row-major
// matrices W_j [out_j][in_j], back to back. Forward reads a packed copy Wt_j [in_j][out_pad_j]
// (transposed, outputs padded to a multiple of 16 with zeros) that `pack` rebuilds once per
// optimizer step. Backward reads W_j directly and accumulates weight gradients in the
// parameter layout, so per-chunk gradient buffers reduce with a plain sum.
//
// Activation layouts are row-major [n][features]; hidden layers use ReLU. A tile's input (and
// its gradient) may be in any strided layout (TileMatrix): row-major, or feature-major as the
// hash grid stores its encoding, so the encoding is read where it lies.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/aligned.h"
#include "core/rng.h"
#include "nn/simd.h"

namespace radiant {

enum class Activation { kNone, kReLU, kSigmoid, kExp };

// A tile's n samples x k features, element (i, k) at data[i * sample_stride + k * feature_stride]:
// row-major is (width, 1); feature-major over a run of `count` samples is (1, count).
template <class T>
struct TileMatrix {
    T* data = nullptr;
    size_t sample_stride = 0;
    size_t feature_stride = 1;
    bool row_major() const { return feature_stride == 1; }
    T& at(size_t i, size_t k) const { return data[i * sample_stride + k * feature_stride]; }
};
using TileInput = TileMatrix<const float>;
using TileGradient = TileMatrix<float>;

// fp32: every product in fp32 (Highway SIMD or scalar reference).
// bf16: matrix products with bf16 inputs and fp32 accumulation (master weights stay fp32), on
// AMX or AVX512-BF16 (nn/amx.h); used only where the CPU has one and the widths are multiples of
// 32, otherwise the MLP falls back to fp32 (see FusedMlp::uses_bf16()).
enum class MlpPrecision { kFp32, kBf16 };
Activation parse_activation(const std::string& name);  // "none", "relu", "sigmoid", "exp"
const char* activation_name(Activation a);

struct MlpConfig {
    int n_input = 32;  // must be a multiple of 16
    int n_output = 3;
    int n_neurons = 64;  // 16, 32, 64 or 128
    int n_hidden_layers = 2;
    Activation output_activation = Activation::kNone;
    MlpPrecision precision = MlpPrecision::kFp32;
};

class FusedMlp {
  public:
    explicit FusedMlp(const MlpConfig& config, KernelImpl impl = KernelImpl::kSimd);

    const MlpConfig& config() const { return m_config; }
    size_t n_params() const { return m_n_params; }
    size_t packed_size() const { return m_n_packed; }
    int n_layers() const { return static_cast<int>(m_layers.size()); }
    // Row stride of the output buffer forward() returns (n_output padded to 16).
    int output_stride() const { return m_layers.back().out_pad; }
    // Whether the bf16 path is in use (requested, supported by CPU and widths).
    bool uses_bf16() const { return m_amx; }
    // Offset and size of layer j's weights within the parameters (for tests, L2 masks).
    size_t layer_param_offset(int j) const { return m_layers[j].param_offset; }

    // Xavier-uniform initialisation.
    void init_params(float* params, Pcg32& rng) const;

    // Builds the packed (transposed, padded) weights used by forward.
    void pack(const float* params, float* packed) const;

    // Per-thread scratch for tiles of up to `max_tile` samples.
    struct Workspace {
        size_t max_tile = 0;
        std::vector<AlignedVector<float>> act;  // act[j]: output of layer j [tile][out_pad_j]
        float* out = nullptr;                   // where the last forward put its outputs
        size_t out_stride = 0;
        AlignedVector<float> delta_a, delta_b;  // backward deltas
        AlignedVector<float> first_grad_t;      // first layer's dW transposed (strided inputs)
        // bf16 path only: layer inputs (row-major and sample-pair VNNI), deltas, scratch.
        std::vector<AlignedVector<uint16_t>> xb, xv;
        AlignedVector<uint16_t> db, dt;
        AlignedVector<float> dx, dlast;
    };
    Workspace make_workspace(size_t max_tile) const;

    // Forward of one tile (the input's first n_input features are used). Returns the activated
    // outputs, row-major [n][output_stride()]: in the workspace, or where `out` says (a row
    // stride >= output_stride() and room for padded_rows(n) rows), so a next network can read
    // them as its input's first columns without a copy.
    const float* forward(const float* packed, TileInput input, size_t n, Workspace& ws,
                         float* out = nullptr, size_t out_stride = 0) const;
    const float* forward(const float* packed, const float* input, size_t in_stride, size_t n,
                         Workspace& ws) const {
        return forward(packed, TileInput{input, in_stride}, n, ws);
    }
    // Rows a tile of n samples occupies in buffers the bf16 path writes (forward's `out`).
    static size_t padded_rows(size_t n) { return (n + 31) / 32 * 32; }

    // Backward of the tile last passed to forward() with this workspace (and that input).
    // d_output: dL/d(activated output), row-major [n][d_out_stride].
    // Adds dL/dW to grad (parameter layout, n_params() floats); writes dL/d(input) [n][n_input]
    // in d_input's layout when d_input.data is not null.
    // `packed` must be the buffer pack() filled from `params`. The sums are the same, in the
    // same order, whatever the input's and d_input's layouts.
    void backward(const float* params, const float* packed, TileInput input, size_t n,
                  const float* d_output, size_t d_out_stride, Workspace& ws, float* grad,
                  TileGradient d_input) const;
    void backward(const float* params, const float* packed, const float* input, size_t in_stride,
                  size_t n, const float* d_output, size_t d_out_stride, Workspace& ws, float* grad,
                  float* d_input) const {
        backward(params, packed, TileInput{input, in_stride}, n, d_output, d_out_stride, ws, grad,
                 TileGradient{d_input, size_t(m_config.n_input)});
    }

    // FLOPs of forward + backward per sample (multiply-adds counted as 2), unpadded.
    double flops_per_sample(bool with_input_gradient) const;

  private:
    struct Layer {
        int in = 0, out = 0, out_pad = 0;
        int out_pad32 = 0;          // bf16 path: K of the input-gradient product
        size_t param_offset = 0;    // W [out][in]
        size_t packed_offset = 0;   // Wt [in][out_pad]
        size_t amx_fwd_offset = 0;  // bf16 VNNI Wt [in/2][out_pad][2], in floats of `packed`
        size_t amx_bwd_offset = 0;  // bf16 VNNI W [out_pad32/2][in][2]
    };
    const float* forward_bf16(const float* packed, TileInput input, size_t n, Workspace& ws,
                              float* out, size_t out_stride) const;
    void apply_output_activation(float* y, size_t y_stride, size_t n) const;
    void output_delta(const float* y, size_t y_stride, size_t n, const float* d_output,
                      size_t d_out_stride, float* delta, size_t delta_stride) const;
    void backward_fp32_layers(const float* params, TileInput input, size_t n, Workspace& ws,
                              float* delta, float* next, float* grad, TileGradient d_input) const;
    // The first layer's dW += delta^T x for a feature-major x, as (x^T delta)^T: the same
    // products summed in the same order.
    void first_layer_gradient_strided(TileInput input, size_t n, const float* delta, Workspace& ws,
                                      float* grad) const;
    void backward_bf16(const float* packed, size_t n, const float* d_output, size_t d_out_stride,
                       Workspace& ws, float* grad, TileGradient d_input) const;

    MlpConfig m_config;
    KernelImpl m_impl;
    bool m_amx = false;
    std::vector<Layer> m_layers;
    size_t m_n_params = 0;
    size_t m_n_packed = 0;
};

}  // namespace radiant
