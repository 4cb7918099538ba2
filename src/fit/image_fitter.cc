#include "fit/image_fitter.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/rng.h"
#include "core/timer.h"

namespace radiant {

namespace {
HashGridConfig grid_config(const FitImageConfig& c, int width, int height) {
    HashGridConfig g;
    g.n_dims = 2;
    g.n_levels = c.n_levels;
    g.n_features_per_level = c.n_features_per_level;
    g.log2_hashmap_size = c.log2_hashmap_size;
    g.base_resolution = c.base_resolution;
    g.per_level_scale = HashGridConfig::scale_for_finest(c.base_resolution, c.n_levels,
                                                         float(std::max(width, height)));
    return g;
}

MlpConfig mlp_config(const FitImageConfig& c) {
    MlpConfig m;
    m.n_input = c.n_levels * c.n_features_per_level;
    m.n_output = 3;
    m.n_neurons = c.n_neurons;
    m.n_hidden_layers = c.n_hidden_layers;
    m.output_activation = c.output_activation;
    m.precision = c.precision;
    return m;
}
}  // namespace

ImageFitter::ImageFitter(const ImageF& image, const FitImageConfig& config, ThreadPool& pool)
    : m_config(config),
      m_pool(pool),
      m_width(image.width),
      m_height(image.height),
      m_inv_extent(1.0f / float(std::max(image.width, image.height))),
      m_grid(grid_config(config, image.width, image.height), config.impl),
      m_mlp(mlp_config(config), config.impl),
      m_gradient_sum(m_grid, m_mlp.n_params(), m_grid.n_params()) {
    RD_CHECK(image.width > 0 && image.height > 0 && image.channels >= 1);
    RD_CHECK(config.batch >= kChunks);
    m_rgb.resize(size_t(m_width) * m_height * 3);
    for (int y = 0; y < m_height; ++y)
        for (int x = 0; x < m_width; ++x)
            for (int c = 0; c < 3; ++c)
                m_rgb[(size_t(y) * m_width + x) * 3 + c] =
                    image.at(x, y, image.channels >= 3 ? c : 0);

    m_mlp_offset = m_grid.n_params();
    const size_t n_params = m_mlp_offset + m_mlp.n_params();
    m_params.assign(n_params, 0.0f);
    m_grads.assign(n_params, 0.0f);
    Pcg32 rng(config.seed, 0);
    m_grid.init_params(m_params.data(), rng);
    m_mlp.init_params(m_params.data() + m_mlp_offset, rng);
    m_packed.assign(m_mlp.packed_size(), 0.0f);
    m_mlp.pack(m_params.data() + m_mlp_offset, m_packed.data());

    std::vector<ParamRange> ranges = {
        {0, m_grid.n_params(), /*l2=*/false, /*sparse=*/true},
        {m_mlp_offset, m_mlp.n_params(), /*l2=*/true, /*sparse=*/false},
    };
    m_adam = std::make_unique<Adam>(config.adam, ranges, n_params, config.impl);

    const size_t batch = config.batch;
    const int enc_dims = m_grid.n_output_dims();
    m_positions.assign(batch * 2, 0.0f);
    m_targets.assign(batch * 3, 0.0f);
    m_d_enc.assign(batch * enc_dims, 0.0f);
    m_chunk_grad.assign(kChunks, AlignedVector<float>(m_mlp.n_params(), 0.0f));
    m_chunk_loss.assign(kChunks, 0.0);
    m_scratch.resize(pool.size());
    for (auto& s : m_scratch) {
        s.mlp = m_mlp.make_workspace(kTile);
        s.enc.assign(kTile * enc_dims, 0.0f);
        s.pred.assign(kTile * 3, 0.0f);
        s.d_pred.assign(kTile * 3, 0.0f);
    }
}

void ImageFitter::target_at(float px, float py, float* rgb) const {
    // Bilinear over pixel centres (pixel i covers [i, i+1) and has its centre at i + 0.5).
    const float fx = std::clamp(px - 0.5f, 0.0f, float(m_width - 1));
    const float fy = std::clamp(py - 0.5f, 0.0f, float(m_height - 1));
    const int x0 = std::min(int(fx), m_width - 1), y0 = std::min(int(fy), m_height - 1);
    const int dx = x0 + 1 < m_width ? 3 : 0;
    const size_t dy = y0 + 1 < m_height ? size_t(m_width) * 3 : 0;
    const float tx = fx - float(x0), ty = fy - float(y0);
    const float* p = &m_rgb[(size_t(y0) * m_width + x0) * 3];
    for (int c = 0; c < 3; ++c) {
        const float top = p[c] + tx * (p[c + dx] - p[c]);
        const float bottom = p[c + dy] + tx * (p[c + dy + dx] - p[c + dy]);
        rgb[c] = top + ty * (bottom - top);
    }
}

void ImageFitter::sample_targets(size_t begin, size_t end, uint64_t chunk) {
    // Stratified and in scanline order: chunk c owns the horizontal band
    // [c*H/kChunks, (c+1)*H/kChunks), split into a grid of about square cells with one
    // jittered sample each, visited row by row. The batch stays uniform over the image (all
    // bands have the same area and the same number of samples) with less variance than
    // i.i.d. samples, and consecutive samples read neighbouring pixels and hash-grid cells,
    // so the image, the tables and the per-level scatter are walked in streams the hardware
    // prefetchers follow instead of at random.
    Pcg32 rng = stream_for(m_config.seed, m_step, chunk);
    const size_t n = end - begin;
    const float band_height = float(m_height) / float(kChunks);
    const float band_y0 = band_height * float(chunk);
    const size_t rows =
        std::clamp<size_t>(size_t(std::lround(std::sqrt(double(n) * band_height / m_width))), 1, n);
    const float row_height = band_height / float(rows);
    const float max_x = float(m_width) * 0.99999f, max_y = float(m_height) * 0.99999f;
    for (size_t r = 0; r < rows; ++r) {
        const size_t k0 = n * r / rows, k1 = n * (r + 1) / rows;
        const float cell_width = float(m_width) / float(k1 - k0);
        const float y0 = band_y0 + row_height * float(r);
        for (size_t k = k0; k < k1; ++k) {
            const size_t i = begin + k;
            float px = std::min((float(k - k0) + rng.next_float()) * cell_width, max_x);
            float py = std::min(y0 + rng.next_float() * row_height, max_y);
            m_positions[2 * i] = px * m_inv_extent;
            m_positions[2 * i + 1] = py * m_inv_extent;
            m_targets[3 * i] = px;  // pixel coordinates, replaced by the colour below
            m_targets[3 * i + 1] = py;
        }
    }
    // Second pass: bilinear targets, prefetching the image rows a few samples ahead (the
    // image is far larger than the caches and each sample needs two rows of it).
    constexpr size_t kAhead = 8;
    for (size_t i = begin; i < end; ++i) {
        if (i + kAhead < end) {
            const float* a = &m_targets[3 * (i + kAhead)];
            const size_t x = size_t(std::max(a[0] - 0.5f, 0.0f)),
                         y = size_t(std::max(a[1] - 0.5f, 0.0f));
            const float* p = &m_rgb[(std::min(y, size_t(m_height - 1)) * m_width +
                                     std::min(x, size_t(m_width - 1))) *
                                    3];
            __builtin_prefetch(p);
            __builtin_prefetch(p + 5);
            if (y + 1 < size_t(m_height)) {
                __builtin_prefetch(p + size_t(m_width) * 3);
                __builtin_prefetch(p + size_t(m_width) * 3 + 5);
            }
        }
        const float px = m_targets[3 * i], py = m_targets[3 * i + 1];
        target_at(px, py, &m_targets[3 * i]);
    }
}

double ImageFitter::step() {
    const size_t batch = m_config.batch;
    const int enc_dims = m_grid.n_output_dims();
    const float grad_scale = 1.0f / float(batch * 3);
    const float* mlp_params = m_params.data() + m_mlp_offset;

    Timer phase;
    auto lap = [&](double& into) {
        into += phase.seconds();
        phase.reset();
    };
    // 1. Sample, forward, loss, MLP backward: fixed chunks, each with its own accumulators.
    parallel_chunks(m_pool, batch, kChunks, [&](size_t chunk, size_t begin, size_t end, int t) {
        ThreadScratch& s = m_scratch[t];
        sample_targets(begin, end, chunk);
        float* grad = m_chunk_grad[chunk].data();
        std::memset(grad, 0, sizeof(float) * m_mlp.n_params());
        double loss = 0.0;
        for (size_t i0 = begin; i0 < end; i0 += kTile) {
            const size_t n = std::min(kTile, end - i0);
            m_grid.forward(m_params.data(), &m_positions[2 * i0], n, s.enc.data(), enc_dims);
            const float* out = m_mlp.forward(m_packed.data(), s.enc.data(), enc_dims, n, s.mlp);
            const size_t stride = m_mlp.output_stride();
            for (size_t i = 0; i < n; ++i)
                for (int c = 0; c < 3; ++c) s.pred[3 * i + c] = out[i * stride + c];
            loss += loss_and_gradient(m_config.loss, s.pred.data(), &m_targets[3 * i0], n * 3,
                                      grad_scale, s.d_pred.data(), m_config.impl);
            // dL/d(encoding) feature-major, as the per-level hash backward reads it.
            m_mlp.backward(mlp_params, m_packed.data(), TileInput{s.enc.data(), size_t(enc_dims)},
                           n, s.d_pred.data(), 3, s.mlp, grad,
                           TileGradient{&m_d_enc[i0], 1, batch});
        }
        m_chunk_loss[chunk] = loss;
    });

    lap(m_phase.forward_backward);

    // 2. The gradients, summed over the chunks in chunk order (no races, deterministic): a
    // hash level per item, then blocks of the MLP weights.
    auto chunk = [&](size_t c) {
        const size_t begin = batch * c / kChunks, end = batch * (c + 1) / kChunks;
        return ChunkGradient{&m_positions[2 * begin], &m_d_enc[begin], end - begin, batch,
                             m_chunk_grad[c].data()};
    };
    m_pool.parallel_for_dynamic(m_gradient_sum.items(), [&](size_t i, int) {
        m_gradient_sum.sum(i, kChunks, chunk, m_grads.data());
    });
    lap(m_phase.gradients);

    // 4. Optimizer, then refresh the packed weights the next forward reads.
    m_adam->step(m_params.data(), m_grads.data(), m_pool);
    m_mlp.pack(m_params.data() + m_mlp_offset, m_packed.data());
    lap(m_phase.optimizer);
    ++m_step;

    double total = 0.0;
    for (double l : m_chunk_loss) total += l;
    return total / double(batch * 3);
}

ImageF ImageFitter::render() {
    ImageF out(m_width, m_height, 3);
    const int enc_dims = m_grid.n_output_dims();
    const size_t n_pixels = size_t(m_width) * m_height;
    const size_t n_tiles = (n_pixels + kTile - 1) / kTile;
    m_pool.parallel_ranges(n_tiles, [&](size_t tb, size_t te, int t) {
        ThreadScratch& s = m_scratch[t];
        float pos[kTile * 2];
        for (size_t tile = tb; tile < te; ++tile) {
            const size_t i0 = tile * kTile, n = std::min(kTile, n_pixels - i0);
            for (size_t i = 0; i < n; ++i) {
                size_t p = i0 + i;
                pos[2 * i] = (float(p % m_width) + 0.5f) * m_inv_extent;
                pos[2 * i + 1] = (float(p / m_width) + 0.5f) * m_inv_extent;
            }
            m_grid.forward(m_params.data(), pos, n, s.enc.data(), enc_dims);
            const float* y = m_mlp.forward(m_packed.data(), s.enc.data(), enc_dims, n, s.mlp);
            const size_t stride = m_mlp.output_stride();
            for (size_t i = 0; i < n; ++i)
                for (int c = 0; c < 3; ++c)
                    out.pixels[(i0 + i) * 3 + c] = std::clamp(y[i * stride + c], 0.0f, 1.0f);
        }
    });
    return out;
}

double ImageFitter::psnr() {
    ImageF r = render();
    std::vector<double> row_sse(m_height, 0.0);
    m_pool.parallel_for(m_height, [&](size_t y, int) {
        double sse = 0.0;
        for (size_t i = y * m_width * 3; i < (y + 1) * m_width * 3; ++i) {
            double d = double(r.pixels[i]) - double(std::clamp(m_rgb[i], 0.0f, 1.0f));
            sse += d * d;
        }
        row_sse[y] = sse;
    });
    double sse = 0.0;
    for (double s : row_sse) sse += s;
    double mse = sse / double(m_rgb.size());
    return mse > 0 ? -10.0 * std::log10(mse) : 99.0;
}

}  // namespace radiant
