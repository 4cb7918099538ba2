#include "nn/mlp.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "nn/amx.h"
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
        case Activation::kNone:
            return "none";
        case Activation::kReLU:
            return "relu";
        case Activation::kSigmoid:
            return "sigmoid";
        case Activation::kExp:
            return "exp";
    }
    return "?";
}

namespace {
int pad16(int x) { return (x + 15) / 16 * 16; }
int pad32(int x) { return (x + 31) / 32 * 32; }
size_t pad_rows(size_t n) { return FusedMlp::padded_rows(n); }
}  // namespace

FusedMlp::FusedMlp(const MlpConfig& c, KernelImpl impl) : m_config(c), m_impl(impl) {
    RD_CHECK_MSG(c.n_input > 0 && c.n_input % 16 == 0, "MLP input width must be a multiple of 16");
    RD_CHECK(c.n_neurons == 16 || c.n_neurons == 32 || c.n_neurons == 64 || c.n_neurons == 128);
    RD_CHECK(c.n_hidden_layers >= 1 && c.n_output >= 1);
    m_amx = c.precision == MlpPrecision::kBf16 && impl == KernelImpl::kSimd &&
            c.n_input % 32 == 0 && c.n_neurons % 32 == 0 && amx::available();
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
        l.out_pad32 = pad32(l.out);
        m_layers.push_back(l);
        in = l.out;
    }
    if (m_amx) {  // bf16 pairs, two per float of the packed buffer
        for (Layer& l : m_layers) {
            l.amx_fwd_offset = m_n_packed;
            m_n_packed += size_t(l.in) * l.out_pad / 2;
            l.amx_bwd_offset = m_n_packed;
            m_n_packed += size_t(l.out_pad32) * l.in / 2;
        }
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
        if (!m_amx) continue;
        auto* fwd = reinterpret_cast<uint16_t*>(packed + l.amx_fwd_offset);
        auto* bwd = reinterpret_cast<uint16_t*>(packed + l.amx_bwd_offset);
        std::memset(fwd, 0, sizeof(uint16_t) * l.in * l.out_pad);
        std::memset(bwd, 0, sizeof(uint16_t) * l.out_pad32 * l.in);
        for (int o = 0; o < l.out; ++o)
            for (int i = 0; i < l.in; ++i) {
                const uint16_t v = amx::float_to_bf16(w[size_t(o) * l.in + i]);
                fwd[((size_t(i) / 2) * l.out_pad + o) * 2 + i % 2] = v;  // K = in
                bwd[((size_t(o) / 2) * l.in + i) * 2 + o % 2] = v;       // K = out
            }
    }
}

FusedMlp::Workspace FusedMlp::make_workspace(size_t max_tile) const {
    Workspace ws;
    ws.max_tile = max_tile;
    const size_t rows = pad_rows(max_tile);  // the bf16 path works on multiples of 32 rows
    int widest = m_config.n_input;
    for (const Layer& l : m_layers) {
        ws.act.emplace_back(rows * l.out_pad, 0.0f);
        widest = std::max(widest, l.out_pad32);
    }
    ws.delta_a.assign(rows * widest, 0.0f);
    ws.delta_b.assign(rows * widest, 0.0f);
    ws.first_grad_t.assign(size_t(m_layers[0].in) * m_layers[0].out_pad, 0.0f);
    if (m_amx) {
        for (const Layer& l : m_layers) {
            ws.xb.emplace_back(rows * l.in, 0);
            ws.xv.emplace_back(rows * l.in, 0);
        }
        ws.db.assign(rows * widest, 0);
        ws.dt.assign(rows * widest, 0);
        ws.dx.assign(rows * widest, 0.0f);
        ws.dlast.assign(16 * size_t(widest), 0.0f);
    }
    return ws;
}

const float* FusedMlp::forward(const float* packed, TileInput input, size_t n, Workspace& ws,
                               float* out, size_t out_stride) const {
    RD_DCHECK(n <= ws.max_tile);
    RD_DCHECK(!out || out_stride >= size_t(output_stride()));
    if (m_amx) return forward_bf16(packed, input, n, ws, out, out_stride);
    const float* prev = input.data;
    size_t prev_stride = input.sample_stride, prev_col_stride = input.feature_stride;
    for (size_t j = 0; j < m_layers.size(); ++j) {
        const Layer& l = m_layers[j];
        const bool hidden = j + 1 < m_layers.size();
        GemmArgs g;
        g.M = n;
        g.N = l.out_pad;
        g.K = l.in;
        g.A = prev;
        g.a_row_stride = prev_stride;
        g.a_col_stride = prev_col_stride;
        g.B = packed + l.packed_offset;
        g.ldb = l.out_pad;
        g.C = hidden || !out ? ws.act[j].data() : out;
        g.ldc = hidden || !out ? size_t(l.out_pad) : out_stride;
        g.relu = hidden || m_config.output_activation == Activation::kReLU;
        gemm(g, m_impl);
        prev = g.C;
        prev_stride = g.ldc;
        prev_col_stride = 1;
    }
    ws.out = const_cast<float*>(prev);
    ws.out_stride = prev_stride;
    apply_output_activation(ws.out, ws.out_stride, n);
    return ws.out;
}

void FusedMlp::apply_output_activation(float* y, size_t y_stride, size_t n) const {
    const Layer& last = m_layers.back();
    if (m_config.output_activation == Activation::kSigmoid) {
        for (size_t i = 0; i < n; ++i)
            for (int o = 0; o < last.out; ++o) {
                float& v = y[i * y_stride + o];
                v = 1.0f / (1.0f + std::exp(-v));
            }
    } else if (m_config.output_activation == Activation::kExp) {
        for (size_t i = 0; i < n; ++i)
            for (int o = 0; o < last.out; ++o) {
                float& v = y[i * y_stride + o];
                v = std::exp(v);
            }
    }
}

void FusedMlp::backward(const float* params, const float* packed, TileInput input, size_t n,
                        const float* d_output, size_t d_out_stride, Workspace& ws, float* grad,
                        TileGradient d_input) const {
    if (m_amx) return backward_bf16(packed, n, d_output, d_out_stride, ws, grad, d_input);
    float* delta = ws.delta_a.data();
    float* next = ws.delta_b.data();
    output_delta(ws.out, ws.out_stride, n, d_output, d_out_stride, delta, m_layers.back().out_pad);
    backward_fp32_layers(params, input, n, ws, delta, next, grad, d_input);
}

void FusedMlp::output_delta(const float* y, size_t ys, size_t n, const float* d_output,
                            size_t d_out_stride, float* delta, size_t delta_stride) const {
    const Layer& last = m_layers.back();
    // dL/d(pre-activation) of the output layer; padding columns are zero.
    for (size_t i = 0; i < n; ++i) {
        float* drow = delta + i * delta_stride;
        const float* g = d_output + i * d_out_stride;
        const float* yrow = y + i * ys;
        std::memset(drow, 0, sizeof(float) * delta_stride);
        switch (m_config.output_activation) {
            case Activation::kNone:
                for (int o = 0; o < last.out; ++o) drow[o] = g[o];
                break;
            case Activation::kReLU:
                for (int o = 0; o < last.out; ++o) drow[o] = yrow[o] > 0 ? g[o] : 0.0f;
                break;
            case Activation::kSigmoid:
                for (int o = 0; o < last.out; ++o) drow[o] = g[o] * yrow[o] * (1.0f - yrow[o]);
                break;
            case Activation::kExp:
                for (int o = 0; o < last.out; ++o) drow[o] = g[o] * yrow[o];
                break;
        }
    }
}

void FusedMlp::backward_fp32_layers(const float* params, TileInput input, size_t n, Workspace& ws,
                                    float* delta, float* next, float* grad,
                                    TileGradient d_input) const {
    for (int j = static_cast<int>(m_layers.size()) - 1; j >= 0; --j) {
        const Layer& l = m_layers[j];
        if (j == 0 && !input.row_major()) {
            first_layer_gradient_strided(input, n, delta, ws, grad);
        } else {
            const float* in = j == 0 ? input.data : ws.act[j - 1].data();
            const size_t in_ld = j == 0 ? input.sample_stride : size_t(m_layers[j - 1].out_pad);
            // dW[out][in] += delta^T * in: M = out (exact, no padded rows), N = in (a multiple
            // of 16), K = the tile's samples. Accumulates straight into the parameter layout.
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
        }
        if (j == 0 && !d_input.data) break;
        // d_in[n][in] = delta[n][out] * W[out][in], masked by the previous ReLU. The input's
        // gradient goes straight to a row-major d_input, else through `next` (free by then).
        const bool direct = j == 0 && d_input.row_major();
        GemmArgs gi;
        gi.M = n;
        gi.N = l.in;
        gi.K = l.out;
        gi.A = delta;
        gi.a_row_stride = l.out_pad;
        gi.a_col_stride = 1;
        gi.B = params + l.param_offset;
        gi.ldb = l.in;
        gi.C = direct ? d_input.data : next;
        gi.ldc = direct ? d_input.sample_stride : size_t(l.in);
        if (j > 0) {
            gi.relu_mask = ws.act[j - 1].data();
            gi.ld_mask = m_layers[j - 1].out_pad;
        }
        gemm(gi, m_impl);
        if (j == 0 && !direct)
            for (int k = 0; k < l.in; ++k)
                for (size_t i = 0; i < n; ++i) d_input.at(i, size_t(k)) = next[i * l.in + k];
        std::swap(delta, next);
    }
}

void FusedMlp::first_layer_gradient_strided(TileInput input, size_t n, const float* delta,
                                            Workspace& ws, float* grad) const {
    const Layer& l = m_layers[0];
    float* gt = ws.first_grad_t.data();  // [in][out_pad]
    float* w = grad + l.param_offset;    // [out][in]
    for (int k = 0; k < l.in; ++k)
        for (int o = 0; o < l.out_pad; ++o)
            gt[size_t(k) * l.out_pad + o] = o < l.out ? w[size_t(o) * l.in + k] : 0.0f;
    // Each element is the same chain of fused multiply-adds over the samples as the row-major
    // product's (a * b + c is symmetric in a and b), so the bits do not depend on the layout.
    GemmArgs g;
    g.M = l.in;
    g.N = l.out_pad;
    g.K = n;
    g.A = input.data;
    g.a_row_stride = input.feature_stride;
    g.a_col_stride = input.sample_stride;
    g.B = delta;
    g.ldb = l.out_pad;
    g.C = gt;
    g.ldc = l.out_pad;
    g.accumulate = true;
    gemm(g, m_impl);
    for (int o = 0; o < l.out; ++o)
        for (int k = 0; k < l.in; ++k) w[size_t(o) * l.in + k] = gt[size_t(k) * l.out_pad + o];
}

const float* FusedMlp::forward_bf16(const float* packed, TileInput input, size_t n, Workspace& ws,
                                    float* out, size_t out_stride) const {
    const size_t rows = pad_rows(n);
    uint16_t* x0 = ws.xb[0].data();
    const size_t in0 = m_config.n_input;
    if (input.row_major())
        amx::to_bf16_rows(input.data, n, in0, input.sample_stride, x0, in0, false);
    else
        amx::to_bf16_rows_strided(input.data, n, in0, input.sample_stride, input.feature_stride, x0,
                                  in0);
    std::memset(x0 + n * in0, 0, sizeof(uint16_t) * (rows - n) * in0);  // padding rows
    for (size_t j = 0; j < m_layers.size(); ++j) {
        const Layer& l = m_layers[j];
        const bool hidden = j + 1 < m_layers.size();
        float* y = hidden || !out ? ws.act[j].data() : out;
        const size_t ys = hidden || !out ? size_t(l.out_pad) : out_stride;
        const auto* wt = reinterpret_cast<const uint16_t*>(packed + l.amx_fwd_offset);
        amx::matmul(rows, l.out_pad, l.in, ws.xb[j].data(), l.in, wt, y, ys, false);
        if (hidden) amx::to_bf16_rows(y, rows, l.out, ys, ws.xb[j + 1].data(), l.out, true);
        ws.out = y;
        ws.out_stride = ys;
    }
    if (m_config.output_activation == Activation::kReLU)
        for (size_t i = 0; i < n; ++i)
            for (int o = 0; o < m_layers.back().out_pad; ++o)
                ws.out[i * ws.out_stride + o] = std::max(ws.out[i * ws.out_stride + o], 0.0f);
    apply_output_activation(ws.out, ws.out_stride, n);
    return ws.out;
}

void FusedMlp::backward_bf16(const float* packed, size_t n, const float* d_output,
                             size_t d_out_stride, Workspace& ws, float* grad,
                             TileGradient d_input) const {
    // Forward kept the bf16 copy of the input in ws.xb[0], whatever its layout.
    const size_t rows = pad_rows(n);
    // Deltas are kept with out_pad32 columns (zeros beyond out), the K of the input-gradient
    // product, so they convert to bf16 in one pass.
    float* delta = ws.delta_a.data();
    const size_t last_stride = m_layers.back().out_pad32;
    output_delta(ws.out, ws.out_stride, n, d_output, d_out_stride, delta, last_stride);
    std::memset(delta + n * last_stride, 0, sizeof(float) * (rows - n) * last_stride);
    for (int j = static_cast<int>(m_layers.size()) - 1; j >= 0; --j) {
        const Layer& l = m_layers[j];
        const size_t ds = l.out_pad32;
        // dW[out][in] += delta^T (bf16 [out_pad][rows]) * x (VNNI over sample pairs).
        amx::bf16_rows_to_vnni(ws.xb[j].data(), rows, l.in, ws.xv[j].data());
        amx::to_bf16_transposed(delta, rows, l.out_pad, ds, ws.dt.data(), rows);
        if (l.out == l.out_pad) {
            amx::matmul(l.out_pad, l.in, rows, ws.dt.data(), rows, ws.xv[j].data(),
                        grad + l.param_offset, l.in, true);
        } else {  // padded output rows: accumulate through a 16-row scratch
            amx::matmul(l.out_pad, l.in, rows, ws.dt.data(), rows, ws.xv[j].data(), ws.dlast.data(),
                        l.in, false);
            for (int o = 0; o < l.out; ++o)
                for (int i = 0; i < l.in; ++i)
                    grad[l.param_offset + size_t(o) * l.in + i] += ws.dlast[size_t(o) * l.in + i];
        }
        if (j == 0 && !d_input.data) break;
        // d_in[rows][in] = delta (bf16 [rows][out_pad32]) * W (VNNI over output pairs).
        uint16_t* db = ws.db.data();
        amx::to_bf16_rows(delta, rows, ds, ds, db, ds, false);
        const auto* w = reinterpret_cast<const uint16_t*>(packed + l.amx_bwd_offset);
        float* dx = j == 0 ? ws.dx.data() : ws.delta_b.data();
        amx::matmul(rows, l.in, ds, db, ds, w, dx, l.in, false);
        if (j == 0) {
            if (d_input.row_major())
                for (size_t i = 0; i < n; ++i)
                    std::memcpy(&d_input.at(i, 0), dx + i * l.in, sizeof(float) * l.in);
            else
                for (int k = 0; k < l.in; ++k)
                    for (size_t i = 0; i < n; ++i) d_input.at(i, size_t(k)) = dx[i * l.in + k];
        } else {
            amx::relu_mask(dx, ws.act[j - 1].data(), rows, l.in, l.in);
            std::swap(ws.delta_a, ws.delta_b);
            delta = ws.delta_a.data();
        }
    }
}

double FusedMlp::flops_per_sample(bool with_input_gradient) const {
    double macs = 0;
    for (size_t j = 0; j < m_layers.size(); ++j) {
        double m = double(m_layers[j].in) * m_layers[j].out;
        macs += m;                                    // forward
        macs += m;                                    // weight gradient
        if (j > 0 || with_input_gradient) macs += m;  // input gradient
    }
    return 2.0 * macs;
}

}  // namespace radiant
