#include "nn/gradient_sum.h"

#include <algorithm>

#include "core/error.h"

namespace radiant {

GradientSum::GradientSum(const HashGrid& grid, size_t mlp_params, size_t mlp_offset)
    : m_grid(grid), m_mlp_params(mlp_params), m_mlp_offset(mlp_offset) {
    const int L = grid.config().n_levels;
    for (int level = L - 1; level >= 0; --level) m_levels.push_back(level);
    for (const HashGridLevel& level : grid.levels()) m_level_begin.push_back(level.param_offset);
    m_level_begin.push_back(grid.n_params());
    RD_CHECK(m_level_begin[0] == 0 && std::is_sorted(m_level_begin.begin(), m_level_begin.end()) &&
             m_level_begin.back() <= mlp_offset);
}

void GradientSum::sum(size_t item, size_t chunks, const std::function<ChunkGradient(size_t)>& chunk,
                      float* grads) const {
    if (item < m_levels.size()) {
        const int level = m_levels[item];
        for (size_t c = 0; c < chunks; ++c) {
            const ChunkGradient g = chunk(c);
            if (g.n)
                m_grid.backward(g.positions, g.n, g.d_enc, g.d_enc_stride, grads, level, level + 1);
        }
        return;
    }
    const size_t b = (item - m_levels.size()) * kMlpBlock,
                 e = std::min(m_mlp_params, b + kMlpBlock);
    float* out = grads + m_mlp_offset;
    const float* first = chunk(0).mlp_grad;
    std::copy(first + b, first + e, out + b);
    for (size_t c = 1; c < chunks; ++c) {
        const float* g = chunk(c).mlp_grad;
        for (size_t j = b; j < e; ++j) out[j] += g[j];
    }
}

int GradientSum::item_holding(size_t begin, size_t end) const {
    if (end <= m_level_begin.back()) {  // within the hash grid: one level's table?
        const size_t level =
            size_t(std::upper_bound(m_level_begin.begin(), m_level_begin.end(), begin) -
                   m_level_begin.begin()) -
            1;
        if (end > m_level_begin[level + 1]) return -1;
        return int(m_levels.size() - 1 - level);  // items run finest first
    }
    if (begin < m_mlp_offset) return -1;
    const size_t block = (begin - m_mlp_offset) / kMlpBlock;  // within one block of the MLP's?
    if (end > m_mlp_offset + (block + 1) * kMlpBlock) return -1;
    return int(m_levels.size() + block);
}

}  // namespace radiant
