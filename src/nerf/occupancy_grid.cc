#include "nerf/occupancy_grid.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace radiant {

int OccupancyGridConfig::cascades_for_aabb_scale(float aabb_scale) {
    int k = 1;
    while ((1 << (k - 1)) < aabb_scale && k < 8) ++k;
    return k;
}

OccupancyGrid::OccupancyGrid(const OccupancyGridConfig& c) : m_config(c) {
    RD_CHECK(c.resolution >= 2 && c.n_cascades >= 1 && c.n_cascades <= 8);
    m_cells = size_t(c.resolution) * c.resolution * c.resolution;
    m_density.assign(m_cells * c.n_cascades, 0.0f);
    m_bits.assign(m_cells * c.n_cascades, 0);
    m_block = c.resolution % 8 == 0 ? 8 : 1;
    const size_t n = size_t(c.resolution / m_block);
    m_block_bits.assign(n * n * n * size_t(c.n_cascades), 0);
}

size_t OccupancyGrid::cell_of(const Vec3& p, int k) const {
    const auto [x, y, z] = cell_coords(p, k);
    const size_t R = size_t(m_config.resolution);
    return (size_t(z) * R + size_t(y)) * R + size_t(x);
}

void OccupancyGrid::cell_bounds(int k, size_t cell, Vec3& lo, Vec3& hi) const {
    const int R = m_config.resolution;
    const float size = float(1 << k), origin = 0.5f - 0.5f * size, step = size / R;
    const int x = int(cell % R), y = int(cell / R % R), z = int(cell / (size_t(R) * R));
    lo = {origin + x * step, origin + y * step, origin + z * step};
    hi = {lo.x + step, lo.y + step, lo.z + step};
}

bool OccupancyGrid::occupied(const Vec3& p) const {
    const int k = cascade_of(p);
    if (k >= m_config.n_cascades) return false;
    return occupied_cell(k, cell_of(p, k));
}

void OccupancyGrid::update(const DensityFn& density, Pcg32& rng, bool warmup) {
    // Choose cells and jittered points first (serial, deterministic), then evaluate.
    std::vector<uint32_t> chosen;
    chosen.reserve(warmup ? m_density.size() : m_density.size() / 4);
    for (size_t i = 0; i < m_density.size(); ++i) {
        const bool pick = warmup || m_bits[i] || rng.next_below(4) == 0;
        if (pick) chosen.push_back(uint32_t(i));
    }
    std::vector<float> pos(chosen.size() * 3), value(chosen.size());
    for (size_t j = 0; j < chosen.size(); ++j) {
        const int k = int(chosen[j] / m_cells);
        Vec3 lo, hi;
        cell_bounds(k, chosen[j] % m_cells, lo, hi);
        pos[3 * j] = lo.x + (hi.x - lo.x) * rng.next_float();
        pos[3 * j + 1] = lo.y + (hi.y - lo.y) * rng.next_float();
        pos[3 * j + 2] = lo.z + (hi.z - lo.z) * rng.next_float();
    }
    if (!chosen.empty()) density(pos.data(), chosen.size(), value.data());
    for (float& d : m_density) d *= m_config.decay;
    for (size_t j = 0; j < chosen.size(); ++j)
        m_density[chosen[j]] = std::max(m_density[chosen[j]], value[j]);
    rebuild_bits();
}

void OccupancyGrid::fill(float density) {
    std::fill(m_density.begin(), m_density.end(), density);
    rebuild_bits();
}

void OccupancyGrid::rebuild_bits() {
    // The threshold never exceeds the mean estimate, so a young field (low densities
    // everywhere) keeps the grid occupied instead of emptying it before anything is learnt.
    double sum = 0.0;
    for (float d : m_density) sum += d;
    const float mean = float(sum / double(std::max<size_t>(m_density.size(), 1)));
    const float threshold = std::min(m_config.threshold, mean);
    for (size_t i = 0; i < m_density.size(); ++i) m_bits[i] = m_density[i] > threshold ? 1 : 0;
    const int R = m_config.resolution, n = R / m_block;
    std::fill(m_block_bits.begin(), m_block_bits.end(), uint8_t(0));
    for (int k = 0; k < m_config.n_cascades; ++k)
        for (int z = 0; z < R; ++z)
            for (int y = 0; y < R; ++y)
                for (int x = 0; x < R; ++x)
                    if (occupied_cell(k, x, y, z))
                        m_block_bits[((size_t(k) * n + z / m_block) * n + y / m_block) * n + x / m_block] = 1;
}

double OccupancyGrid::occupied_fraction() const {
    size_t n = 0;
    for (uint8_t b : m_bits) n += b;
    return double(n) / double(m_bits.size());
}

}  // namespace radiant
