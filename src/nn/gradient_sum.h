// The gradient of a step whose samples were worked through in fixed chunks, each of which left
// its own MLP weight gradient and its samples' dL/d(encoding) (feature-major, as the hash grid
// reads it). The sum is cut into work items that threads, or ranks, take in any order, each
// item written whole by whoever takes it:
//   items [0, L): the hash levels, finest (costliest) first, each scattering every chunk's
//                 samples into its table, chunk by chunk, samples in order;
//   the rest:     blocks of the MLP weights, each summed over the chunks in chunk order.
// So the sums, and the bits, do not depend on how many threads or ranks share the work. The
// NeRF trainer and the image fitter both sum their gradients this way.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "nn/hash_grid.h"

namespace radiant {

// What one chunk left behind.
struct ChunkGradient {
    const float* positions = nullptr;  // [n][dims], where the encoding was evaluated
    const float* d_enc = nullptr;      // dL/d(encoding), feature-major [L*F][d_enc_stride]
    size_t n = 0, d_enc_stride = 0;
    const float* mlp_grad = nullptr;  // the chunk's MLP weight gradients
};

class GradientSum {
  public:
    static constexpr size_t kMlpBlock = 4096;

    // The gradient buffer holds the grid's parameters from 0 and `mlp_params` MLP weights from
    // `mlp_offset` (>= the grid's end).
    GradientSum(const HashGrid& grid, size_t mlp_params, size_t mlp_offset);

    size_t items() const { return m_levels.size() + (m_mlp_params + kMlpBlock - 1) / kMlpBlock; }
    // The hash level of item i < levels(): finest first. A step's hash forward walks the levels
    // in the same order, so each level's table stays in cache the same way both times.
    size_t levels() const { return m_levels.size(); }
    int level(size_t item) const { return m_levels[item]; }
    // Item i of the sum over chunks [0, chunks) into `grads`.
    void sum(size_t item, size_t chunks, const std::function<ChunkGradient(size_t)>& chunk,
             float* grads) const;
    // The item whose output alone covers parameters [begin, end), or -1 when none does.
    int item_holding(size_t begin, size_t end) const;

  private:
    const HashGrid& m_grid;
    size_t m_mlp_params, m_mlp_offset;
    std::vector<int> m_levels;          // item -> hash level, finest first
    std::vector<size_t> m_level_begin;  // level -> first parameter (+1 entry: the grid's end)
};

}  // namespace radiant
