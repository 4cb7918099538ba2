#include "nn/mlp.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "nn/gemm.h"

namespace radiant {

Activation parse_activation(const std::string& name) {
    if (name == "none") return Activation::kNone;
    if (name == "relu") return Activation::kReLU;
    if (name == "sigmoid") return Activation::kSigmoid;
    if (name == "exp") return Activation::kExp;
    throw Error("activation", "unknown activation '" + name + "' (none, relu, sigmoid, exp)");
}

const char* activation_name(Activation a) {
    switch (a) {
        case Activation::kNone: return "none";
        case Activation::kReLU: return "relu";
        case Activation::kSigmoid: return "sigmoid";
        case Activation::kExp: return "exp";
    }
    return "?";
}

namespace {
int pad16(int x) { return (x + 15) / 16 * 16; }
}  // namespace

FusedMlp::FusedMlp(const MlpConfig& c, KernelImpl impl) : m_config(c), m_impl(impl) {
    RD_CHECK_MSG(c.n_input > 0 && c.n_input % 16 == 0, "MLP input width must be a multiple of 16");
    RD_CHECK(c.n_neurons == 16 || c.n_neurons == 32 || c.n_neurons == 64 || c.n_neurons == 128);
    RD_CHECK(c.n_hidden_layers >= 1 && c.n_output >= 1);
    int in = c.n_input;
    for (int j = 0; j <= c.n_hidden_layers; ++j) {
        Layer l;
        l.in = in;
        l.out = j == c.n_hidden_layers ? c.n_output : c.n_neurons;
        l.out_pad = pad16(l.out);
        l.param_offset = m_n_params;
        l.packed_offset = m_n_packed;
        m_n_params += size_t(l.out) * l.in;
        m_n_packed += size_t(l.in) * l.out_pad;
        m_layers.push_back(l);
        in = l.out;
    }
}

void FusedMlp::init_params(float* params, Pcg32& rng) const {
    for (const Layer& l : m_layers) {
        float bound = std::sqrt(6.0f / float(l.in + l.out));
        for (size_t i = 0; i < size_t(l.in) * l.out; ++i)
            params[l.param_offset + i] = (rng.next_float() * 2.0f - 1.0f) * bound;
    }
}

void FusedMlp::pack(const float* params, float* packed) const {
    for (const Layer& l : m_layers) {
        float* wt = packed + l.packed_offset;
        std::memset(wt, 0, sizeof(float) * l.in * l.out_pad);
        const float* w = params + l.param_offset;
        for (int o = 0; o < l.out; ++o)
            for (int i = 0; i < l.in; ++i) wt[size_t(i) * l.out_pad + o] = w[size_t(o) * l.in + i];
    }
}

FusedMlp::Workspace FusedMlp::make_workspace(size_t max_tile) const {
    Workspace ws;
    ws.max_tile = max_tile;
    int widest = m_config.n_input;
    for (const Layer& l : m_layers) {
        ws.act.emplace_back(max_tile * l.out_pad, 0.0f);
        widest = std::max(widest, l.out_pad);
    }
    ws.delta_a.assign(max_tile * widest, 0.0f);
    ws.delta_b.assign(max_tile * widest, 0.0f);
    return ws;
}

const float* FusedMlp::forward(const float* packed, const float* input, size_t in_stride,
                               size_t n, Workspace& ws) const {
    RD_DCHECK(n <= ws.max_tile);
    const float* prev = input;
    size_t prev_stride = in_stride;
    for (size_t j = 0; j < m_layers.size(); ++j) {
        const Layer& l = m_layers[j];
        const bool hidden = j + 1 < m_layers.size();
        GemmArgs g;
        g.M = n;
        g.N = l.out_pad;
        g.K = l.in;
        g.A = prev;
        g.a_row_stride = prev_stride;
        g.a_col_stride = 1;
        g.B = packed + l.packed_offset;
        g.ldb = l.out_pad;
        g.C = ws.act[j].data();
        g.ldc = l.out_pad;
        g.relu = hidden || m_config.output_activation == Activation::kReLU;
        gemm(g, m_impl);
        prev = ws.act[j].data();
        prev_stride = l.out_pad;
    }
    const Layer& last = m_layers.back();
    float* y = ws.act.back().data();
    if (m_config.output_activation == Activation::kSigmoid) {
        for (size_t i = 0; i < n; ++i)
            for (int o = 0; o < last.out; ++o) {
                float& v = y[i * last.out_pad + o];
                v = 1.0f / (1.0f + std::exp(-v));
            }
    } else if (m_config.output_activation == Activation::kExp) {
        for (size_t i = 0; i < n; ++i)
            for (int o = 0; o < last.out; ++o) {
                float& v = y[i * last.out_pad + o];
                v = std::exp(v);
            }
    }
    return y;
}

void FusedMlp::backward(const float* params, const float* input, size_t in_stride, size_t n,
                        const float* d_output, size_t d_out_stride, Workspace& ws, float* grad,
                        float* d_input) const {
    const Layer& last = m_layers.back();
    const float* y = ws.act.back().data();
    float* delta = ws.delta_a.data();
    float* next = ws.delta_b.data();
    // dL/d(pre-activation) of the output layer; padding columns stay zero.
    for (size_t i = 0; i < n; ++i) {
        float* drow = delta + i * last.out_pad;
        const float* yrow = y + i * last.out_pad;
        for (int o = 0; o < last.out_pad; ++o) {
            float g = o < last.out ? d_output[i * d_out_stride + o] : 0.0f;
            switch (m_config.output_activation) {
                case Activation::kNone: break;
                case Activation::kReLU: g = yrow[o] > 0 ? g : 0.0f; break;
                case Activation::kSigmoid: g *= yrow[o] * (1.0f - yrow[o]); break;
                case Activation::kExp: g *= yrow[o]; break;
            }
            drow[o] = g;
        }
    }
    for (int j = static_cast<int>(m_layers.size()) - 1; j >= 0; --j) {
        const Layer& l = m_layers[j];
        const float* in = j == 0 ? input : ws.act[j - 1].data();
        const size_t in_ld = j == 0 ? in_stride : size_t(m_layers[j - 1].out_pad);
        // dW[out][in] += delta^T * in: M = out (exact, no padded rows), N = in (a multiple of
        // 16), K = the tile's samples. Accumulates straight into the parameter layout.
        GemmArgs gw;
        gw.M = l.out;
        gw.N = l.in;
        gw.K = n;
        gw.A = delta;
        gw.a_row_stride = 1;
        gw.a_col_stride = l.out_pad;
        gw.B = in;
        gw.ldb = in_ld;
        gw.C = grad + l.param_offset;
        gw.ldc = l.in;
        gw.accumulate = true;
        gemm(gw, m_impl);
        if (j == 0 && !d_input) break;
        // d_in[n][in] = delta[n][out] * W[out][in], masked by the previous ReLU.
        GemmArgs gi;
        gi.M = n;
        gi.N = l.in;
        gi.K = l.out;
        gi.A = delta;
        gi.a_row_stride = l.out_pad;
        gi.a_col_stride = 1;
        gi.B = params + l.param_offset;
        gi.ldb = l.in;
        gi.C = j == 0 ? d_input : next;
        gi.ldc = l.in;
        if (j > 0) {
            gi.relu_mask = ws.act[j - 1].data();
            gi.ld_mask = m_layers[j - 1].out_pad;
        }
        gemm(gi, m_impl);
        std::swap(delta, next);
    }
}

double FusedMlp::flops_per_sample(bool with_input_gradient) const {
    double macs = 0;
    for (size_t j = 0; j < m_layers.size(); ++j) {
        double m = double(m_layers[j].in) * m_layers[j].out;
        macs += m;                                        // forward
        macs += m;                                        // weight gradient
        if (j > 0 || with_input_gradient) macs += m;      // input gradient
    }
    return 2.0 * macs;
}

}  // namespace radiant
