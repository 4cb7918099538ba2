#include "scene/occupancy_grid.h"

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
    RD_CHECK(c.far_empty_every >= 1 && (c.far_empty_every & (c.far_empty_every - 1)) == 0);
    m_cells = size_t(c.resolution) * c.resolution * c.resolution;
    m_density.assign(m_cells * c.n_cascades, 0.0f);
    m_bits.assign(m_cells * c.n_cascades, 0);
    m_block = c.resolution % 8 == 0 ? 8 : 1;
    const size_t n = size_t(c.resolution / m_block);
    m_block_bits.assign(n * n * n * size_t(c.n_cascades), 0);
    m_radius.assign(m_cells * c.n_cascades, 0);
    rebuild_radius(nullptr);
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

namespace {
// Calls f(i) for every i in [0, n): on the pool's threads when there is one, else in order.
// Every item writes only its own results, so nothing depends on the thread count.
template <class F>
void for_each_item(ThreadPool* pool, size_t n, F&& f) {
    if (pool && pool->size() > 1)
        pool->parallel_for_dynamic(n, [&](size_t i, int) { f(i); });
    else
        for (size_t i = 0; i < n; ++i) f(i);
}
}  // namespace

void OccupancyGrid::update(const DensityFn& density, Pcg32& rng, bool warmup, uint64_t round,
                           ThreadPool* pool) {
    const int R = m_config.resolution;
    const size_t plane = size_t(R) * size_t(R), n_planes = m_density.size() / plane;
    // Dense cells are held between their rounds (see dense_refresh).
    const size_t refresh = warmup ? 1 : size_t(std::max(m_config.dense_refresh, 1));
    const float refresh_decay = std::pow(m_config.decay, float(refresh));
    const float dense_above = m_config.threshold / refresh_decay;
    const size_t phase = size_t(round % refresh);
    auto dense = [&](size_t i) { return refresh > 1 && m_density[i] > dense_above; };
    auto due = [&](size_t i) { return (i + phase) % refresh == 0; };
    auto held = [&](size_t i) { return dense(i) && !due(i); };
    // One draw per live empty cell either way: 1 in far_empty_every of them when far from the
    // occupied cells (the radii of the bits the last update left), else 1 in 4.
    const int far_radius = m_config.far_empty_radius;
    const uint32_t far_every = uint32_t(m_config.far_empty_every);
    auto empty_chosen = [&](size_t i, uint32_t draw) {
        return far_radius > 0 && m_radius[i] >= far_radius ? draw % far_every == 0 : draw % 4 == 0;
    };
    // After warm-up: a random quarter of the empty cells, and the occupied ones not held, all
    // of them while they are at most a quarter of the live cells (object captures), else a
    // random quarter's worth (real scenes fill half the grid with walls and what lies behind
    // them): about instant-ngp's budget of uniform plus occupied samples.
    std::vector<size_t>&plane_empty = m_plane_empty.v, &plane_candidates = m_plane_candidates.v;
    plane_empty.assign(n_planes, 0);
    plane_candidates.assign(n_planes, 0);
    if (!warmup)
        for_each_item(pool, n_planes, [&](size_t p) {
            for (size_t i = p * plane; i < (p + 1) * plane; ++i) {
                if (m_density[i] < 0) continue;
                if (!m_bits[i])
                    ++plane_empty[p];
                else
                    plane_candidates[p] += !held(i);
            }
        });
    const size_t candidates =
        std::accumulate(plane_candidates.begin(), plane_candidates.end(), size_t(0));
    const bool thin_occupied = !warmup && 4 * candidates > m_live;
    const uint32_t keep_occupied =
        thin_occupied ? uint32_t(double(m_live) / 4.0 / double(candidates) * 4294967295.0) : 0;
    // Cells and jittered points come from one stream in cell order: a draw per live empty
    // cell (its remainder by 4 or far_empty_every, which divide 2^32, as next_below() would
    // give without rejecting), one per candidate occupied cell when those are thinned, then
    // three per chosen cell. Each z-plane knows its draws, jumps the stream to its first one
    // (Pcg32::advance) and runs in parallel with the others, drawing exactly the numbers a
    // serial pass would.
    auto pick = [&](Pcg32& stream, size_t i) {
        if (m_density[i] < 0) return false;  // dead
        if (warmup) return true;
        if (!m_bits[i]) return empty_chosen(i, stream.next_uint());
        if (held(i)) return false;
        return !thin_occupied || stream.next_uint() <= keep_occupied;
    };
    std::vector<size_t>&first_draw = m_first_draw.v, &first_pick = m_first_pick.v;
    first_draw.assign(n_planes + 1, 0);
    first_pick.assign(n_planes + 1, 0);
    for (size_t p = 0; p < n_planes; ++p)
        first_draw[p + 1] =
            first_draw[p] + plane_empty[p] + (thin_occupied ? plane_candidates[p] : 0);
    for_each_item(pool, n_planes, [&](size_t p) {
        Pcg32 choice = rng;
        choice.advance(first_draw[p]);
        size_t n = 0;
        for (size_t i = p * plane; i < (p + 1) * plane; ++i) n += pick(choice, i);
        first_pick[p + 1] = n;
    });
    for (size_t p = 0; p < n_planes; ++p) first_pick[p + 1] += first_pick[p];
    const size_t n_chosen = first_pick[n_planes];
    std::vector<uint32_t>& chosen = m_chosen.v;
    std::vector<float>&pos = m_pos.v, &value = m_value.v;
    chosen.resize(n_chosen);
    pos.resize(3 * n_chosen);
    value.resize(n_chosen);
    Pcg32 jitter_start = rng;
    jitter_start.advance(first_draw[n_planes]);
    for_each_item(pool, n_planes, [&](size_t p) {
        Pcg32 choice = rng, jitter = jitter_start;
        choice.advance(first_draw[p]);
        jitter.advance(3 * first_pick[p]);
        size_t j = first_pick[p];
        for (size_t i = p * plane; i < (p + 1) * plane; ++i) {
            if (!pick(choice, i)) continue;
            Vec3 lo, hi;
            cell_bounds(int(i / m_cells), i % m_cells, lo, hi);
            chosen[j] = uint32_t(i);
            pos[3 * j] = lo.x + (hi.x - lo.x) * jitter.next_float();
            pos[3 * j + 1] = lo.y + (hi.y - lo.y) * jitter.next_float();
            pos[3 * j + 2] = lo.z + (hi.z - lo.z) * jitter.next_float();
            ++j;
        }
    });
    rng = jitter_start;
    rng.advance(3 * n_chosen);
    if (n_chosen) density(pos.data(), n_chosen, value.data());
    // Decay (a dense cell only on its round, by the updates it was held), then the fresh
    // samples, a z-plane at a time.
    for_each_item(pool, n_planes, [&](size_t p) {
        for (size_t i = p * plane; i < (p + 1) * plane; ++i) {
            if (m_density[i] <= 0) continue;
            if (!dense(i))
                m_density[i] *= m_config.decay;
            else if (due(i))
                m_density[i] *= refresh_decay;
        }
        for (size_t j = first_pick[p]; j < first_pick[p + 1]; ++j)
            m_density[chosen[j]] = std::max(m_density[chosen[j]], value[j]);
    });
    rebuild_bits(pool);
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
                    const size_t i = size_t(k) * m_cells +
                                     (size_t(z) * size_t(R) + size_t(y)) * size_t(R) + size_t(x);
                    if (!seen[i] || covered_by_finer(k, x, y, z))
                        m_density[i] = -1.0f;
                    else if (m_density[i] < 0)
                        m_density[i] = 0.0f;
                }
    rebuild_bits();
}

void OccupancyGrid::rebuild_bits(ThreadPool* pool) {
    // The threshold never exceeds the mean estimate, so a young field (low densities
    // everywhere) keeps the grid occupied instead of emptying it before anything is learnt.
    // Dead cells (< 0) count neither in the mean nor as occupied. Sums go by z-plane, then
    // plane by plane in order, whatever the threads.
    const int R = m_config.resolution, K = m_config.n_cascades;
    const size_t plane = size_t(R) * size_t(R), n_planes = size_t(K) * size_t(R);
    std::vector<PlaneCount>& count = m_plane_count.v;
    count.assign(n_planes, PlaneCount{});
    for_each_item(pool, n_planes, [&](size_t p) {
        const float* d = &m_density[p * plane];
        double sum[8] = {};
        size_t live[8] = {};
        size_t i = 0;
        for (; i + 8 <= plane; i += 8)
            for (size_t l = 0; l < 8; ++l) {
                const bool is_live = d[i + l] >= 0;
                sum[l] += is_live ? double(d[i + l]) : 0.0;
                live[l] += is_live;
            }
        for (; i < plane; ++i)
            if (d[i] >= 0) sum[0] += d[i], ++live[0];
        for (size_t l = 0; l < 8; ++l) count[p].sum += sum[l], count[p].live += live[l];
    });
    std::array<double, 8> sum{};  // per cascade (at most 8)
    std::array<size_t, 8> live{};
    for (size_t p = 0; p < n_planes; ++p)
        sum[p / size_t(R)] += count[p].sum, live[p / size_t(R)] += count[p].live;
    const double all_sum = std::accumulate(sum.begin(), sum.end(), 0.0);
    const size_t all_live = std::accumulate(live.begin(), live.end(), size_t(0));
    auto mean = [](double s, size_t n) { return float(s / double(std::max<size_t>(n, 1))); };
    std::array<float, 8> threshold{};
    for (size_t k = 0; k < size_t(K); ++k)
        threshold[k] =
            std::min(m_config.threshold,
                     m_config.per_cascade_mean ? mean(sum[k], live[k]) : mean(all_sum, all_live));
    // Bits and blocks a slab of block_size() planes at a time. A block that overlaps the finer
    // cascade counts as occupied, as such cells do for empty_radius(): no jump may cross the
    // finer cascade.
    const int B = m_block, n = R / B;
    auto block_overlaps_finer = [&](int k, int b) {
        return k > 0 && axis_overlaps_finer(b * B, (b + 1) * B);
    };
    for_each_item(pool, size_t(K) * size_t(n), [&](size_t slab) {
        const int k = int(slab) / n, bz = int(slab) % n;
        const float thr = threshold[size_t(k)];
        uint8_t* blocks = &m_block_bits[slab * size_t(n) * size_t(n)];
        for (int by = 0; by < n; ++by)
            for (int bx = 0; bx < n; ++bx)
                blocks[by * n + bx] = block_overlaps_finer(k, bx) && block_overlaps_finer(k, by) &&
                                      block_overlaps_finer(k, bz);
        for (int z = bz * B; z < (bz + 1) * B; ++z) {
            size_t occupied = 0;
            for (int y = 0; y < R; ++y) {
                const size_t row =
                    size_t(k) * m_cells + (size_t(z) * size_t(R) + size_t(y)) * size_t(R);
                uint8_t* bits = &m_bits[row];
                const float* d = &m_density[row];
                for (int x = 0; x < R; ++x) bits[x] = d[x] > thr ? 1 : 0;
                uint8_t* block_row = blocks + (y / B) * n;
                for (int bx = 0; bx < n; ++bx) {
                    uint8_t any = 0;
                    for (int x = bx * B; x < (bx + 1) * B; ++x) any |= bits[x], occupied += bits[x];
                    block_row[bx] |= any;
                }
            }
            count[size_t(k) * size_t(R) + size_t(z)].occupied = occupied;
        }
    });
    m_live = all_live, m_occupied = 0;
    for (const PlaneCount& c : count) m_occupied += c.occupied;
    rebuild_radius(pool);
}

namespace {
// d = min(d, max(lim, s)) over n cells: one neighbour offset of the distance transform.
void dilate_row(uint8_t* __restrict d, const uint8_t* __restrict s, uint8_t lim, size_t n) {
    for (size_t x = 0; x < n; ++x) d[x] = std::min(d[x], std::max(lim, s[x]));
}

// One pass of the distance transform along an axis whose neighbours lie `stride` apart: the
// run of `len` cells at position a (of R along the axis) becomes the minimum over the window
// of max(|a - a'|, src(a')), with the window capped at C.
void min_over_window(const uint8_t* src, uint8_t* dst, size_t stride, int a, int R, int C,
                     size_t len) {
    std::copy_n(src + size_t(a) * stride, len, dst);
    for (int off = 1; off < C; ++off) {
        if (a - off >= 0) dilate_row(dst, src + size_t(a - off) * stride, uint8_t(off), len);
        if (a + off < R) dilate_row(dst, src + size_t(a + off) * stride, uint8_t(off), len);
    }
}
}  // namespace

void OccupancyGrid::rebuild_radius(ThreadPool* pool) {
    // The Chebyshev distance transform is separable: the distance to the nearest occupied cell
    // along x, then d(y) = min over y' of max(|y - y'|, d_x(y')), then the same along z. The
    // cap keeps the window short and the values in a byte; the y and z passes run over whole
    // x-rows at once, so they vectorise. Each pass runs a z-plane (or, along z, an output
    // plane) at a time.
    constexpr int C = kMaxEmptyRadius;
    const int R = m_config.resolution;
    const size_t row = size_t(R), plane = row * row, n_planes = size_t(m_config.n_cascades) * row;
    std::vector<uint8_t>& tmp = m_radius_tmp.v;
    tmp.resize(m_radius.size());                   // every byte is written before it is read
    for_each_item(pool, n_planes, [&](size_t p) {  // along x, then along y: out -> tmp
        const int k = int(p / row), z = int(p % row);
        const uint8_t* bits = &m_bits[p * plane];
        uint8_t* out = &m_radius[p * plane];
        // In outer cascades the cells over the next finer cascade count as occupied: points
        // there are looked up in the finer cascade, so no jump may cross them.
        for (int y = 0; y < R; ++y) {
            const size_t r0 = size_t(y) * row;
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
        for (int y = 0; y < R; ++y)
            min_over_window(out, &tmp[p * plane + size_t(y) * row], row, y, R, C, row);
    });
    for_each_item(pool, n_planes, [&](size_t p) {  // along z: tmp -> out
        const size_t k = p / row;
        min_over_window(&tmp[k * m_cells], &m_radius[p * plane], plane, int(p % row), R, C, plane);
    });
}

double OccupancyGrid::occupied_fraction() const {
    return double(m_occupied) / double(m_bits.size());
}

}  // namespace radiant
