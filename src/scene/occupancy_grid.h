// Multi-cascade occupancy grid (instant-ngp): which parts of the unit-cube frame can hold
// density, so the marcher skips empty space.
//
// Cascade k is a cube of side 2^k centred at (0.5, 0.5, 0.5) split into R^3 cells (R = 128 by
// default); cascade 0 is the unit cube. Each cell keeps a running density estimate: an update
// decays every estimate (x0.95) and takes the max with fresh density samples at jittered
// points in the updated cells (cells far above the threshold are held, and updated one round
// in eight: dense_refresh; empty cells far from occupied ones are updated less often than
// those next to them: far_empty_radius); a cell is occupied when its estimate exceeds
// min(threshold, mean estimate over the live cells of its cascade).
//
// Dead cells hold -1 and are never updated nor occupied: the cells of an outer cascade that a
// finer one covers (the marcher never looks them up), and the cells no training camera sees
// (mark_dead; grid_visibility.h). The -1 travels in snapshots, so a loaded grid keeps them.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "scene/camera.h"

namespace radiant {

struct OccupancyGridConfig {
    int resolution = 128;     // cells per axis and cascade
    int n_cascades = 1;       // 1 + log2(aabb_scale)
    float threshold = 0.01f;  // density above which a cell is occupied
    float decay = 0.95f;
    // The threshold is capped by each cascade's own mean estimate, so a cascade whose content
    // is still young (a room's walls) is not emptied because a finer one (the object) learnt
    // faster; false: by the mean over all cascades (snapshots from before this rule).
    bool per_cascade_mean = true;
    // After warm-up, a cell whose estimate exceeds threshold / decay^dense_refresh ("dense")
    // is re-evaluated only on every dense_refresh-th update (staggered over the cells) and
    // holds its estimate in between; on its update it decays by decay^dense_refresh before
    // the max with the fresh sample. Such a cell stays occupied that long either way, and on
    // real captures most occupied cells are dense (fox: three quarters by step 800), so this
    // saves up to a third of an update's evaluations. 1: every cell every update (the rule
    // before).
    int dense_refresh = 8;
    // After warm-up, an empty cell at least far_empty_radius cells from every occupied cell of
    // its cascade (empty_radius()) is evaluated with probability 1 / far_empty_every instead
    // of a quarter: geometry grows into the empty cells next to occupied ones (the hash
    // tables and the MLP carry what those learn), seldom into cells far from any, and on real
    // captures those are most of the grid (fox: 63% of the empty cells, lego: most). A power
    // of two (the draw stays unbiased); 0: every empty cell a quarter of the time (the rule
    // before).
    int far_empty_radius = 3;
    int far_empty_every = 16;

    static int cascades_for_aabb_scale(float aabb_scale);
};

class OccupancyGrid {
  public:
    explicit OccupancyGrid(const OccupancyGridConfig& config);

    const OccupancyGridConfig& config() const { return m_config; }
    size_t cells_per_cascade() const { return m_cells; }
    size_t n_cells() const { return m_density.size(); }

    // Smallest cascade whose cube contains p (n_cascades if none does).
    int cascade_of(const Vec3& p) const {
        const float extent =
            std::max({std::abs(p.x - 0.5f), std::abs(p.y - 0.5f), std::abs(p.z - 0.5f)});
        int k = 0;
        while (k < m_config.n_cascades && extent > 0.5f * float(1 << k)) ++k;
        return k;
    }
    // Integer cell coordinates (x, y, z) within cascade `k` of a point inside it (clamped).
    std::array<int, 3> cell_coords(const Vec3& p, int k) const {
        const float size = float(1 << k), lo = 0.5f - 0.5f * size;
        const int R = m_config.resolution;
        auto axis = [&](float v) { return std::clamp(int((v - lo) / size * float(R)), 0, R - 1); };
        return {axis(p.x), axis(p.y), axis(p.z)};
    }
    // Cell index within cascade `k` of a point inside it (clamped to the grid).
    size_t cell_of(const Vec3& p, int k) const;
    // The cell's [lo, hi) box in the unit-cube frame.
    void cell_bounds(int k, size_t cell, Vec3& lo, Vec3& hi) const;
    bool occupied(const Vec3& p) const;
    bool occupied_cell(int k, size_t cell) const { return m_bits[k * m_cells + cell] != 0; }
    // Cells per axis of a block: blocks (8^3 cells when the resolution allows) record whether
    // any of their cells is occupied, so the marcher crosses empty space a block at a time.
    int block_size() const { return m_block; }
    // Whether block (bx, by, bz) of cascade k (block coordinates: cell coordinates / block_size)
    // has an occupied cell.
    bool occupied_block(int k, int bx, int by, int bz) const {
        const size_t n = size_t(m_config.resolution / m_block);
        return m_block_bits[(size_t(k) * n + size_t(bz)) * n * n + size_t(by) * n + size_t(bx)] !=
               0;
    }
    bool occupied_cell(int k, int x, int y, int z) const {
        const size_t R = size_t(m_config.resolution);
        return m_bits[size_t(k) * m_cells + (size_t(z) * R + size_t(y)) * R + size_t(x)] != 0;
    }
    // Chebyshev distance, in cells, from cell (x, y, z) of cascade k to the nearest occupied
    // cell of that cascade, capped at kMaxEmptyRadius: 0 for an occupied cell, and for an empty
    // one with radius r every cell of the cascade within r - 1 cells (on each axis) is empty,
    // so the marcher crosses that whole cube at once. In cascades k > 0 the cells covering
    // cascade k - 1 count as occupied (those points belong to the finer cascade).
    static constexpr int kMaxEmptyRadius = 16;
    int empty_radius(int k, int x, int y, int z) const {
        const size_t R = size_t(m_config.resolution);
        return m_radius[size_t(k) * m_cells + (size_t(z) * R + size_t(y)) * R + size_t(x)];
    }

    // Density at n points, pos[3*i..3*i+2] (unit-cube frame) -> out[i].
    using DensityFn = std::function<void(const float* pos, size_t n, float* out)>;
    // One update. Warm-up updates every live cell; later ones a random quarter of the empty
    // live cells (a sixteenth of those far from occupied ones: far_empty_radius) plus the
    // occupied ones that are not dense and held (see dense_refresh; `round` counts the
    // updates, so it says which are due): all of them while they are at most a quarter of the
    // live cells, else a random quarter of the live cells' count of them.
    // Deterministic for a given rng state and round, whatever the pool's threads (none: the
    // calling thread alone).
    void update(const DensityFn& density, Pcg32& rng, bool warmup, uint64_t round,
                ThreadPool* pool = nullptr);

    // Marks every live cell occupied (useful before training starts and in tests).
    void fill(float density);
    // Kills the cells whose `seen` byte is 0 (one per cell, cascade-major, as n_cells()) and the
    // cells a finer cascade covers; a live cell that held the dead mark starts again at 0.
    void mark_dead(const std::vector<uint8_t>& seen);
    bool dead_cell(int k, size_t cell) const { return m_density[size_t(k) * m_cells + cell] < 0; }
    // Whether cell (x, y, z) of cascade k lies wholly inside cascade k - 1 (covered), or has
    // some part inside it (overlaps): the same when 4 divides the resolution.
    bool covered_by_finer(int k, int x, int y, int z) const {
        const int lo = (m_config.resolution + 3) / 4, hi = 3 * m_config.resolution / 4;
        return k > 0 && x >= lo && x < hi && y >= lo && y < hi && z >= lo && z < hi;
    }
    bool overlaps_finer(int k, int x, int y, int z) const {
        return k > 0 && axis_overlaps_finer(x, x + 1) && axis_overlaps_finer(y, y + 1) &&
               axis_overlaps_finer(z, z + 1);
    }
    // Whether cells [first, end) along one axis of an outer cascade meet the finer cascade.
    bool axis_overlaps_finer(int first, int end) const {
        return first < (3 * m_config.resolution + 3) / 4 && end > m_config.resolution / 4;
    }
    double occupied_fraction() const;

    // Per-cell estimates (-1: dead), for snapshots (call rebuild_bits() after changing them).
    std::vector<float>& densities() { return m_density; }
    const std::vector<float>& densities() const { return m_density; }
    void rebuild_bits(ThreadPool* pool = nullptr);

  private:
    OccupancyGridConfig m_config;
    size_t m_cells;
    size_t m_live = 0, m_occupied = 0;  // counted by rebuild_bits()
    std::vector<float> m_density;
    std::vector<uint8_t> m_bits;
    int m_block = 1;
    std::vector<uint8_t> m_block_bits;  // [cascade][bz][by][bx]
    std::vector<uint8_t> m_radius;      // empty_radius() per cell, laid out as m_bits

    // Buffers that update() reuses from one call to the next: fresh ones (40 MB in a full pass
    // at 128^3) cost a page fault per 4 KiB every time. A copy of the grid does not take them.
    template <class T>
    struct Scratch {
        std::vector<T> v;
        Scratch() = default;
        Scratch(const Scratch&) {}
        Scratch& operator=(const Scratch&) { return *this; }
    };
    Scratch<uint32_t> m_chosen;
    Scratch<float> m_pos, m_value;
    Scratch<uint8_t> m_radius_tmp;
    Scratch<size_t> m_first_draw,
        m_first_pick;  // update(): per z-plane, where its draws and picks begin
    Scratch<size_t> m_plane_empty,
        m_plane_candidates;  // update(): per z-plane, the empty and occupied cells it may pick
    struct PlaneCount {
        double sum = 0;  // of the live estimates
        size_t live = 0, occupied = 0;
    };
    Scratch<PlaneCount> m_plane_count;  // rebuild_bits(), per z-plane of each cascade

    void rebuild_radius(ThreadPool* pool);
};

}  // namespace radiant
