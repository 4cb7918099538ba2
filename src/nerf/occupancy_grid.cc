#include "nerf/occupancy_grid.h"

#include <algorithm>
#include <cmath>
#include <numeric>

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
    m_radius.assign(m_cells * c.n_cascades, 0);
    rebuild_radius();
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
    // After warm-up: a random quarter of the empty cells, and the occupied ones, all of them
    // while they are at most a quarter of the live cells (object captures), else a random
    // quarter's worth (real scenes fill half the grid with walls and what lies behind them):
    // about instant-ngp's budget of uniform plus occupied samples.
    const bool thin_occupied = !warmup && 4 * m_occupied > m_live;
    const uint32_t keep_occupied = thin_occupied ? uint32_t(double(m_live) / 4.0 / double(m_occupied) * 4294967295.0) : 0;
    std::vector<uint32_t>& chosen = m_chosen.v;
    chosen.clear();
    chosen.reserve(warmup ? m_density.size() : m_density.size() / 2);
    for (size_t i = 0; i < m_density.size(); ++i) {
        if (m_density[i] < 0) continue;  // dead
        bool pick;
        if (warmup) pick = true;
        else if (!m_bits[i]) pick = rng.next_below(4) == 0;
        else pick = !thin_occupied || rng.next_uint() <= keep_occupied;
        if (pick) chosen.push_back(uint32_t(i));
    }
    std::vector<float>&pos = m_pos.v, &value = m_value.v;
    pos.resize(chosen.size() * 3);
    value.resize(chosen.size());
    for (size_t j = 0; j < chosen.size(); ++j) {
        const int k = int(chosen[j] / m_cells);
        Vec3 lo, hi;
        cell_bounds(k, chosen[j] % m_cells, lo, hi);
        pos[3 * j] = lo.x + (hi.x - lo.x) * rng.next_float();
        pos[3 * j + 1] = lo.y + (hi.y - lo.y) * rng.next_float();
        pos[3 * j + 2] = lo.z + (hi.z - lo.z) * rng.next_float();
    }
    if (!chosen.empty()) density(pos.data(), chosen.size(), value.data());
    for (float& d : m_density)
        if (d > 0) d *= m_config.decay;
    for (size_t j = 0; j < chosen.size(); ++j)
        m_density[chosen[j]] = std::max(m_density[chosen[j]], value[j]);
    rebuild_bits();
}

void OccupancyGrid::fill(float density) {
    for (float& d : m_density)
        if (d >= 0) d = density;
    rebuild_bits();
}

void OccupancyGrid::mark_dead(const std::vector<uint8_t>& seen) {
    RD_CHECK(seen.size() == m_density.size());
    const int R = m_config.resolution;
    for (int k = 0; k < m_config.n_cascades; ++k)
        for (int z = 0; z < R; ++z)
            for (int y = 0; y < R; ++y)
                for (int x = 0; x < R; ++x) {
                    const size_t i = size_t(k) * m_cells + (size_t(z) * size_t(R) + size_t(y)) * size_t(R) + size_t(x);
                    if (!seen[i] || covered_by_finer(k, x, y, z)) m_density[i] = -1.0f;
                    else if (m_density[i] < 0) m_density[i] = 0.0f;
                }
    rebuild_bits();
}

void OccupancyGrid::rebuild_bits() {
    // The threshold never exceeds the mean estimate, so a young field (low densities
    // everywhere) keeps the grid occupied instead of emptying it before anything is learnt.
    // Dead cells (< 0) count neither in the mean nor as occupied.
    const size_t K = size_t(m_config.n_cascades);
    std::vector<double> sum(K, 0.0);
    std::vector<size_t> live(K, 0);
    for (size_t k = 0; k < K; ++k)
        for (size_t i = k * m_cells; i < (k + 1) * m_cells; ++i)
            if (m_density[i] >= 0) sum[k] += m_density[i], ++live[k];
    const double all_sum = std::accumulate(sum.begin(), sum.end(), 0.0);
    const size_t all_live = std::accumulate(live.begin(), live.end(), size_t(0));
    auto mean = [](double s, size_t n) { return float(s / double(std::max<size_t>(n, 1))); };
    std::vector<float> threshold(K);
    for (size_t k = 0; k < K; ++k)
        threshold[k] = std::min(m_config.threshold,
                                m_config.per_cascade_mean ? mean(sum[k], live[k]) : mean(all_sum, all_live));
    m_live = all_live, m_occupied = 0;
    for (size_t k = 0; k < K; ++k)
        for (size_t i = k * m_cells; i < (k + 1) * m_cells; ++i) {
            m_bits[i] = m_density[i] > threshold[k] ? 1 : 0;
            m_occupied += m_bits[i];
        }
    // A block that overlaps the finer cascade counts as occupied, as such cells do for
    // empty_radius(): no jump may cross the finer cascade.
    const int R = m_config.resolution, n = R / m_block;
    std::fill(m_block_bits.begin(), m_block_bits.end(), uint8_t(0));
    for (int k = 0; k < m_config.n_cascades; ++k)
        for (int z = 0; z < R; ++z)
            for (int y = 0; y < R; ++y)
                for (int x = 0; x < R; ++x)
                    if (occupied_cell(k, x, y, z) || overlaps_finer(k, x, y, z))
                        m_block_bits[((size_t(k) * n + z / m_block) * n + y / m_block) * n + x / m_block] = 1;
    rebuild_radius();
}

namespace {
// d = min(d, max(lim, s)) over n cells: one neighbour offset of the distance transform.
void dilate_row(uint8_t* __restrict d, const uint8_t* __restrict s, uint8_t lim, size_t n) {
    for (size_t x = 0; x < n; ++x) d[x] = std::min(d[x], std::max(lim, s[x]));
}
}  // namespace

void OccupancyGrid::rebuild_radius() {
    // The Chebyshev distance transform is separable: the distance to the nearest occupied cell
    // along x, then d(y) = min over y' of max(|y - y'|, d_x(y')), then the same along z. The
    // cap keeps the window short and the values in a byte; the y and z passes run over whole
    // x-rows at once, so they vectorise.
    constexpr int C = kMaxEmptyRadius;
    const int R = m_config.resolution;
    const size_t row = size_t(R), plane = row * row;
    std::vector<uint8_t>& tmp = m_radius_tmp.v;
    tmp.resize(m_cells);  // every byte is written before it is read
    for (int k = 0; k < m_config.n_cascades; ++k) {
        const uint8_t* bits = &m_bits[size_t(k) * m_cells];
        uint8_t* out = &m_radius[size_t(k) * m_cells];
        // In outer cascades the cells over the next finer cascade count as occupied: points
        // there are looked up in the finer cascade, so no jump may cross them.
        for (size_t r0 = 0; r0 < m_cells; r0 += row) {  // along x, in out
            const int y = int(r0 / row % row), z = int(r0 / plane);
            auto occupied = [&](int x) { return bits[r0 + x] != 0 || overlaps_finer(k, x, y, z); };
            int run = C;
            for (int x = 0; x < R; ++x) {
                run = occupied(x) ? 0 : std::min(run + 1, C);
                out[r0 + x] = uint8_t(run);
            }
            run = C;
            for (int x = R - 1; x >= 0; --x) {
                run = occupied(x) ? 0 : std::min(run + 1, C);
                out[r0 + x] = uint8_t(std::min<int>(out[r0 + x], run));
            }
        }
        // One pass along the axis whose neighbours are `stride` apart, over runs of `len`
        // contiguous cells: src -> dst.
        auto pass = [&](const uint8_t* src, uint8_t* dst, size_t stride, size_t len, size_t outer_stride,
                        size_t n_outer) {
            for (size_t o = 0; o < n_outer; ++o)
                for (int a = 0; a < R; ++a) {
                    uint8_t* d = dst + o * outer_stride + size_t(a) * stride;
                    const uint8_t* s0 = src + o * outer_stride;
                    std::copy_n(s0 + size_t(a) * stride, len, d);
                    for (int off = 1; off < C; ++off) {
                        const uint8_t lim = uint8_t(off);
                        if (a - off >= 0) {
                            const uint8_t* s = s0 + size_t(a - off) * stride;
                            dilate_row(d, s, lim, len);
                        }
                        if (a + off < R) {
                            const uint8_t* s = s0 + size_t(a + off) * stride;
                            dilate_row(d, s, lim, len);
                        }
                    }
                }
        };
        pass(out, tmp.data(), row, row, plane, row);  // along y, one z-plane at a time
        pass(tmp.data(), out, plane, plane, 0, 1);    // along z, whole planes at once
    }
}

double OccupancyGrid::occupied_fraction() const { return double(m_occupied) / double(m_bits.size()); }

}  // namespace radiant
