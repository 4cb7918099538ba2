#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "scene/marcher.h"
#include "scene/occupancy_grid.h"

namespace radiant {
namespace {

Ray ray_from(Vec3 o, Vec3 d) {
    const float n = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    return {o, {d.x / n, d.y / n, d.z / n}};
}

TEST(OccupancyGrid, CascadesAndCells) {
    EXPECT_EQ(OccupancyGridConfig::cascades_for_aabb_scale(1), 1);
    EXPECT_EQ(OccupancyGridConfig::cascades_for_aabb_scale(4), 3);
    EXPECT_EQ(OccupancyGridConfig::cascades_for_aabb_scale(16), 5);
    OccupancyGridConfig c;
    c.resolution = 8;
    c.n_cascades = 3;
    OccupancyGrid grid(c);
    EXPECT_EQ(grid.cascade_of({0.5f, 0.5f, 0.5f}), 0);
    EXPECT_EQ(grid.cascade_of({1.2f, 0.5f, 0.5f}), 1);
    EXPECT_EQ(grid.cascade_of({2.4f, 0.5f, 0.5f}), 2);
    EXPECT_EQ(grid.cascade_of({3.0f, 0.5f, 0.5f}), 3) << "outside every cascade";
    const size_t cell = grid.cell_of({0.01f, 0.99f, 0.5f}, 0);
    Vec3 lo, hi;
    grid.cell_bounds(0, cell, lo, hi);
    EXPECT_FLOAT_EQ(lo.x, 0.0f);
    EXPECT_FLOAT_EQ(hi.y, 1.0f);
    EXPECT_FLOAT_EQ(lo.z, 0.5f);
}

// A ball of density 10 at the centre of the unit cube.
void ball_density(const float* pos, size_t n, float* out) {
    for (size_t i = 0; i < n; ++i) {
        const float dx = pos[3 * i] - 0.5f, dy = pos[3 * i + 1] - 0.5f, dz = pos[3 * i + 2] - 0.5f;
        out[i] = dx * dx + dy * dy + dz * dz < 0.2f * 0.2f ? 10.0f : 0.0f;
    }
}

TEST(OccupancyGrid, UpdateFindsAKnownBallAndDecaysElsewhere) {
    OccupancyGridConfig c;
    c.resolution = 32;
    c.n_cascades = 2;
    OccupancyGrid grid(c);
    Pcg32 rng(1);
    grid.update(ball_density, rng, /*warmup=*/true, 0);
    EXPECT_TRUE(grid.occupied({0.5f, 0.5f, 0.5f}));
    EXPECT_FALSE(grid.occupied({0.1f, 0.1f, 0.1f}));
    EXPECT_FALSE(grid.occupied({1.3f, 0.5f, 0.5f}));
    // Ball volume 0.0335 in cascade 0 (volume 1) and cascade 1 (volume 8), over two cascades'
    // cells; cells the surface crosses add a little.
    const double ball = (4.0 / 3.0 * 3.14159 * 0.008) * (1.0 + 1.0 / 8.0) / 2.0;
    EXPECT_NEAR(grid.occupied_fraction(), ball, ball * 0.3);
    // Non-warm-up updates keep the ball (occupied cells are re-evaluated, or held while dense).
    for (int i = 1; i <= 5; ++i) grid.update(ball_density, rng, false, uint64_t(i));
    EXPECT_TRUE(grid.occupied({0.5f, 0.5f, 0.5f}));
    // A grid that starts fully occupied empties outside the ball as the estimates decay
    // (0.95^n falls below the 0.01 threshold after ~90 updates; cells held dense decay by
    // 0.95^8 on every eighth).
    OccupancyGrid full(c);
    full.fill(1.0f);
    for (int i = 0; i < 100; ++i) full.update(ball_density, rng, i < 10, uint64_t(i));
    EXPECT_TRUE(full.occupied({0.5f, 0.5f, 0.5f}));
    EXPECT_FALSE(full.occupied({0.1f, 0.1f, 0.1f}));
    EXPECT_NEAR(full.occupied_fraction(), ball, ball * 0.5);
}

TEST(Marcher, FullGridGivesEvenStepsInsideTheBox) {
    OccupancyGridConfig c;
    c.resolution = 16;
    OccupancyGrid grid(c);
    grid.fill(1.0f);
    MarchConfig m;
    std::vector<RaySample> s(m.max_samples);
    Ray r = ray_from({-1.0f, 0.5f, 0.5f}, {1, 0, 0});
    const size_t n = march_ray(r, grid, m, s.data());
    EXPECT_NEAR(double(n), 1.0 / m.min_step, 2.0);
    for (size_t i = 0; i < n; ++i) {
        EXPECT_GE(s[i].position.x, 0.0f);
        EXPECT_LE(s[i].position.x, 1.0f);
        if (i > 0) {
            EXPECT_GT(s[i].t, s[i - 1].t);
        }
        EXPECT_FLOAT_EQ(s[i].dt, m.min_step);
    }
    EXPECT_EQ(march_ray(ray_from({-1.0f, 2.0f, 0.5f}, {1, 0, 0}), grid, m, s.data()), 0u)
        << "a ray missing the box has no samples";
}

TEST(Marcher, NoSamplesInEmptyCellsOfAConvergedGrid) {
    OccupancyGridConfig c;
    c.resolution = 32;
    OccupancyGrid grid(c);
    Pcg32 rng(2);
    grid.update(ball_density, rng, true, 0);
    MarchConfig m;
    std::vector<RaySample> s(m.max_samples);
    Pcg32 dirs(3);
    size_t total = 0;
    for (int k = 0; k < 50; ++k) {
        Ray r = ray_from({-0.5f, 0.5f + 0.3f * (dirs.next_float() - 0.5f), 0.5f},
                         {1, 0.2f * (dirs.next_float() - 0.5f), 0.2f * (dirs.next_float() - 0.5f)});
        const size_t n = march_ray(r, grid, m, s.data());
        total += n;
        for (size_t i = 0; i < n; ++i) {
            ASSERT_TRUE(grid.occupied(s[i].position));
            if (i > 0) {
                ASSERT_GT(s[i].t, s[i - 1].t);
            }
        }
    }
    EXPECT_GT(total, 0u);
    // An empty grid yields nothing.
    OccupancyGrid empty(c);
    EXPECT_EQ(march_ray(ray_from({-1, 0.5f, 0.5f}, {1, 0, 0}), empty, m, s.data()), 0u);
}

TEST(Marcher, ConeStepsGrowWithDistanceInOuterCascades) {
    OccupancyGridConfig c;
    c.resolution = 16;
    c.n_cascades = 3;
    OccupancyGrid grid(c);
    grid.fill(1.0f);
    MarchConfig m;
    m.cone_angle = 1.0f / 256;
    std::vector<RaySample> s(m.max_samples);
    const size_t n = march_ray(ray_from({0.5f, 0.5f, 0.5f}, {1, 0, 0}), grid, m, s.data());
    ASSERT_GT(n, 10u);
    EXPECT_FLOAT_EQ(s[0].dt, m.min_step);
    EXPECT_GT(s[n - 1].dt, 2 * m.min_step);
    EXPECT_LE(s[n - 1].position.x, 2.5f + 1e-3f);
}

// Marching in segments (as render_view does) yields exactly march_ray's samples, and the
// per-ray sample cap holds across segments.
TEST(Marcher, SegmentsConcatenateToTheWholeRay) {
    OccupancyGridConfig c;
    c.resolution = 32;
    c.n_cascades = 2;
    OccupancyGrid grid(c);
    Pcg32 rng(4);
    grid.update(ball_density, rng, true, 0);
    MarchConfig m;
    m.cone_angle = 1.0f / 256.0f;
    std::vector<RaySample> whole(m.max_samples), part(7);
    Pcg32 dirs(5);
    size_t total = 0;
    for (int k = 0; k < 30; ++k) {
        const Ray r =
            ray_from({-1.0f, 0.5f + 0.3f * (dirs.next_float() - 0.5f), 0.5f},
                     {1, 0.2f * (dirs.next_float() - 0.5f), 0.2f * (dirs.next_float() - 0.5f)});
        const size_t n = march_ray(r, grid, m, whole.data());
        MarchCursor cursor;
        std::vector<RaySample> got;
        while (!cursor.done) {
            const size_t got_now = march_ray_segment(r, grid, m, cursor, part.size(), part.data());
            got.insert(got.end(), part.begin(), part.begin() + got_now);
        }
        ASSERT_EQ(got.size(), n);
        for (size_t i = 0; i < n; ++i) {
            EXPECT_EQ(got[i].t, whole[i].t);
            EXPECT_EQ(got[i].dt, whole[i].dt);
        }
        total += n;
    }
    EXPECT_GT(total, 0u);
    grid.fill(1.0f);
    m.max_samples = 10;
    MarchCursor cursor;
    size_t sum = 0;
    while (!cursor.done)
        sum += march_ray_segment(ray_from({-1.0f, 0.5f, 0.5f}, {1, 0, 0}), grid, m, cursor, 3,
                                 part.data());
    EXPECT_EQ(sum, 10u);
}

// A grid of `n_cascades` with about `fraction` of its cells occupied at random.
OccupancyGrid sparse_grid(int resolution, int n_cascades, double fraction, uint64_t seed) {
    OccupancyGridConfig c;
    c.resolution = resolution;
    c.n_cascades = n_cascades;
    OccupancyGrid grid(c);
    Pcg32 rng(seed);
    for (float& d : grid.densities()) d = rng.next_float() < fraction ? 1.0f : 0.0f;
    grid.rebuild_bits();
    return grid;
}

TEST(OccupancyGrid, EmptyRadiusIsTheChebyshevDistanceToTheNearestBlockingCell) {
    const int R = 16, K = 2, C = OccupancyGrid::kMaxEmptyRadius;
    const OccupancyGrid grid = sparse_grid(R, K, 0.004, 11);
    size_t capped = 0, far = 0;
    for (int k = 0; k < K; ++k) {
        // Blocking: occupied, or (outer cascade) over the finer cascade: cells [4, 12) here.
        auto blocking = [&](int x, int y, int z) {
            const bool inner = k > 0 && x >= 4 && x < 12 && y >= 4 && y < 12 && z >= 4 && z < 12;
            return inner || grid.occupied_cell(k, x, y, z);
        };
        for (int z = 0; z < R; ++z)
            for (int y = 0; y < R; ++y)
                for (int x = 0; x < R; ++x) {
                    int want = C;
                    for (int c = 0; c < R; ++c)
                        for (int b = 0; b < R; ++b)
                            for (int a = 0; a < R; ++a)
                                if (blocking(a, b, c))
                                    want =
                                        std::min(want, std::max({std::abs(a - x), std::abs(b - y),
                                                                 std::abs(c - z)}));
                    ASSERT_EQ(grid.empty_radius(k, x, y, z), want)
                        << k << " " << x << " " << y << " " << z;
                    capped += want == C;
                    far += want >= 3;
                }
    }
    EXPECT_GT(far, 1000u) << "the grid should hold wide empty regions";
    // An empty grid is at the cap everywhere.
    const OccupancyGrid empty = sparse_grid(R, 1, 0.0, 1);
    EXPECT_EQ(empty.empty_radius(0, 3, 7, 15), C);
}

// Jumping over empty cubes never skips an occupied cell the ray crosses for more than a few
// steps: compared with a fine walk along each ray.
TEST(Marcher, EmptySpaceJumpsMissNoOccupiedCell) {
    for (int K : {1, 2}) {
        const OccupancyGrid grid = sparse_grid(32, K, 0.03, 20 + K);
        MarchConfig m;  // cone_angle 0: every step is min_step
        std::vector<RaySample> s(m.max_samples);
        Pcg32 dirs(6);
        size_t checked = 0;
        for (int r = 0; r < 300; ++r) {
            const Vec3 o{-1.5f, 0.5f + (dirs.next_float() - 0.5f),
                         0.5f + (dirs.next_float() - 0.5f)};
            Vec3 d{1.0f, 0.8f * (dirs.next_float() - 0.5f), 0.8f * (dirs.next_float() - 0.5f)};
            const float len = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
            d = {d.x / len, d.y / len, d.z / len};
            const Ray ray = ray_from(o, d);
            const size_t n = march_ray(ray, grid, m, s.data());
            ASSERT_LT(n, m.max_samples);
            auto cell_at = [&](const Vec3& p) -> long {
                const int k = grid.cascade_of(p);
                if (k >= K || !grid.occupied(p)) return -1;
                return long(k) * long(grid.cells_per_cascade()) + long(grid.cell_of(p, k));
            };
            std::vector<long> sampled;
            for (size_t i = 0; i < n; ++i) sampled.push_back(cell_at(s[i].position));
            // Fine walk: runs of points in one occupied cell longer than three steps.
            const float h = 1e-4f;
            long run_cell = -1;
            float run_start = 0;
            for (float t = 0; t < 6.0f; t += h) {
                const long c = cell_at({o.x + t * d.x, o.y + t * d.y, o.z + t * d.z});
                if (c != run_cell) {
                    if (run_cell >= 0 && t - run_start > 3 * m.min_step) {
                        ++checked;
                        ASSERT_NE(std::find(sampled.begin(), sampled.end(), run_cell),
                                  sampled.end())
                            << "ray " << r << " skipped occupied cell " << run_cell << " (K=" << K
                            << ")";
                    }
                    run_cell = c;
                    run_start = t;
                }
            }
        }
        EXPECT_GT(checked, 100u);
    }
}

TEST(OccupancyGrid, DeadCellsAreNeitherEvaluatedNorOccupied) {
    OccupancyGridConfig c;
    c.resolution = 16;
    c.n_cascades = 2;
    OccupancyGrid grid(c);
    grid.fill(1.0f);
    // Kill the half x < 0.5 of the unit cube; cascade 1's cells over cascade 0 die too.
    std::vector<uint8_t> seen(grid.n_cells(), 1);
    for (size_t cell = 0; cell < grid.cells_per_cascade(); ++cell)
        if (cell % 16 < 8) seen[cell] = 0;
    grid.mark_dead(seen);
    EXPECT_TRUE(grid.dead_cell(0, 3)) << "x = 3 of 16";
    EXPECT_FALSE(grid.dead_cell(0, 12));
    EXPECT_TRUE(grid.dead_cell(1, grid.cell_of({0.5f, 0.5f, 0.5f}, 1))) << "covered by cascade 0";
    EXPECT_FALSE(grid.dead_cell(1, grid.cell_of({1.3f, 0.5f, 0.5f}, 1)));
    EXPECT_FALSE(grid.occupied({0.2f, 0.5f, 0.5f}));
    EXPECT_TRUE(grid.occupied({0.8f, 0.5f, 0.5f}));
    // Updates never evaluate a dead cell, even where the density is high (the ball).
    size_t evaluated = 0;
    auto density = [&](const float* pos, size_t n, float* out) {
        for (size_t i = 0; i < n; ++i) {
            const Vec3 p{pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]};
            const int k = grid.cascade_of(p);
            EXPECT_FALSE(grid.dead_cell(k, grid.cell_of(p, k))) << p.x << " " << p.y << " " << p.z;
        }
        evaluated += n;
        ball_density(pos, n, out);
    };
    Pcg32 rng(9);
    grid.update(density, rng, /*warmup=*/true, 0);
    // Live: half of cascade 0 and cascade 1 less its covered eighth.
    EXPECT_EQ(evaluated, grid.cells_per_cascade() / 2 + grid.cells_per_cascade() * 7 / 8);
    EXPECT_TRUE(grid.occupied({0.6f, 0.5f, 0.5f}));
    EXPECT_FALSE(grid.occupied({0.4f, 0.5f, 0.5f})) << "in the ball, but dead";
    for (int i = 1; i <= 40; ++i) grid.update(density, rng, false, uint64_t(i));
    EXPECT_TRUE(grid.dead_cell(0, 3)) << "decay keeps the mark";
    grid.fill(2.0f);
    EXPECT_TRUE(grid.dead_cell(0, 3)) << "fill keeps the mark";
    // A new mask revives a cell that was dead and is now seen, at zero.
    std::fill(seen.begin(), seen.end(), 1);
    grid.mark_dead(seen);
    EXPECT_FALSE(grid.dead_cell(0, 3));
    EXPECT_EQ(grid.densities()[3], 0.0f);
}

// The threshold is capped by each cascade's own mean over its live cells: a young outer
// cascade (a room's walls, still near the initial density) keeps its denser cells while the
// object in cascade 0 has grown far denser. Capped by the mean over all cascades instead, it
// would lose every cell.
TEST(OccupancyGrid, EachCascadeIsThresholdedAgainstItsOwnMean) {
    for (const bool per_cascade : {true, false}) {
        OccupancyGridConfig c;
        c.resolution = 8;
        c.n_cascades = 2;
        c.threshold = 5.0f;
        c.per_cascade_mean = per_cascade;
        OccupancyGrid grid(c);
        std::vector<float>& d = grid.densities();
        const size_t n = grid.cells_per_cascade();
        for (size_t i = 0; i < n; ++i) d[i] = 40.0f;  // cascade 0: mean 40
        // Cascade 1: 1.0, 1.5, 1.0 and a dead cell, repeated. The mean over its live cells is
        // 3.5 / 3 = 1.17; were the dead cells counted as 0 it would be 0.875, and the cells
        // at 1.0 would pass too.
        const float pattern[4] = {1.0f, 1.5f, 1.0f, -1.0f};
        for (size_t i = 0; i < n; ++i) d[n + i] = pattern[i % 4];
        grid.rebuild_bits();
        // Cascade 0 against min(5, 40) either way.
        EXPECT_TRUE(grid.occupied_cell(0, size_t(0)));
        // Cascade 1 against min(5, 1.17), or against min(5, (40 n + 0.875 n) / 1.75 n) = 5.
        size_t occupied = 0;
        for (size_t i = 0; i < n; ++i) occupied += grid.occupied_cell(1, i);
        EXPECT_EQ(occupied, per_cascade ? n / 4 : 0) << "per_cascade_mean " << per_cascade;
        EXPECT_EQ(grid.occupied_cell(1, size_t(1)), per_cascade);
        EXPECT_FALSE(grid.occupied_cell(1, size_t(0)));
        EXPECT_FALSE(grid.occupied_cell(1, size_t(3))) << "dead";
    }
}

// Object captures keep few cells occupied: all of them are re-evaluated every update. A grid
// that is mostly occupied (a room's walls and what lies behind them) re-evaluates a random
// quarter of the live cells' count of its occupied cells instead.
TEST(OccupancyGrid, UpdatesEvaluateEveryOccupiedCellUnlessTheyFillMoreThanAQuarter) {
    OccupancyGridConfig c;
    c.resolution = 16;
    c.dense_refresh = 1;     // no cell held (DenseCellsAreHeldBetweenTheirRounds)
    c.far_empty_radius = 0;  // every empty cell a quarter of the time (FarEmptyCells...)
    OccupancyGrid grid(c);
    Pcg32 rng(4);
    size_t evaluated = 0, occupied_evaluated = 0;
    auto count = [&](float value) {
        return [&, value](const float* pos, size_t n, float* out) {
            for (size_t i = 0; i < n; ++i) {
                occupied_evaluated += grid.occupied({pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]});
                out[i] = value;
            }
            evaluated += n;
        };
    };
    grid.fill(1.0f);  // every cell occupied
    const size_t n = grid.n_cells();
    grid.update(count(1.0f), rng, false, 1);
    EXPECT_NEAR(double(evaluated), n / 4.0, 5 * std::sqrt(n * 0.25 * 0.75));
    EXPECT_EQ(occupied_evaluated, evaluated);
    // A ball of about 3% of the cells: each occupied cell, plus a quarter of the empty ones.
    grid.fill(0.0f);
    evaluated = occupied_evaluated = 0;
    grid.update(ball_density, rng, /*warmup=*/true, 0);
    const size_t occupied = size_t(std::lround(grid.occupied_fraction() * double(n)));
    ASSERT_GT(occupied, n / 50);
    ASSERT_LT(occupied, n / 4);
    grid.update(count(10.0f), rng, false, 2);
    EXPECT_EQ(occupied_evaluated, occupied);
    EXPECT_NEAR(double(evaluated - occupied), (n - occupied) / 4.0,
                5 * std::sqrt((n - occupied) * 0.25 * 0.75));
}

// After warm-up, empty cells far from the occupied ones (empty_radius() >= 3) are evaluated a
// sixteenth of the time, the empty ones nearer a quarter, the occupied ones every time.
TEST(OccupancyGrid, FarEmptyCellsAreEvaluatedLessOftenThanNearOnes) {
    OccupancyGridConfig c;
    c.resolution = 32;
    c.dense_refresh = 1;  // no cell held
    ASSERT_EQ(c.far_empty_radius, 3);
    ASSERT_EQ(c.far_empty_every, 16);
    OccupancyGrid grid(c);
    Pcg32 rng(9);
    grid.update(ball_density, rng, /*warmup=*/true, 0);  // the ball, radius 6.4 cells
    const int R = c.resolution;
    // Tally each evaluated cell by its distance class before the update changes the radii.
    std::vector<int> radius(grid.n_cells());
    for (int z = 0; z < R; ++z)
        for (int y = 0; y < R; ++y)
            for (int x = 0; x < R; ++x)
                radius[size_t((z * R + y) * R + x)] = grid.empty_radius(0, x, y, z);
    size_t cells[3] = {}, evaluated[3] = {};  // occupied, near empty, far empty
    auto class_of = [](int r) { return r == 0 ? 0 : r < 3 ? 1 : 2; };
    for (int r : radius) ++cells[class_of(r)];
    ASSERT_GT(cells[1], 1000u);
    ASSERT_GT(cells[2], 20000u);
    for (int i = 1; i <= 4; ++i)
        grid.update(
            [&](const float* pos, size_t n, float* out) {
                for (size_t j = 0; j < n; ++j) {
                    const Vec3 p{pos[3 * j], pos[3 * j + 1], pos[3 * j + 2]};
                    ++evaluated[class_of(radius[grid.cell_of(p, 0)])];
                }
                ball_density(pos, n, out);
            },
            rng, false, uint64_t(i));
    EXPECT_EQ(evaluated[0], 4 * cells[0]);
    auto expect_rate = [&](size_t k, double p) {
        const double n = 4.0 * double(cells[k]);
        EXPECT_NEAR(double(evaluated[k]), n * p, 5 * std::sqrt(n * p * (1 - p))) << "class " << k;
    };
    expect_rate(1, 1.0 / 4);
    expect_rate(2, 1.0 / 16);
}

// One update as a serial pass over the cells: one stream in cell order, a draw per live empty
// cell (a quarter chosen, a sixteenth of the far ones), one per live occupied cell that is not
// held dense when more than a quarter of the live cells are such, then three per chosen cell
// for its point. Returns the estimates it leaves.
std::vector<float> serial_update(const OccupancyGrid& grid, Pcg32& rng, bool warmup,
                                 uint64_t round) {
    std::vector<float> d = grid.densities();
    const OccupancyGridConfig& c = grid.config();
    const size_t cells = grid.cells_per_cascade(), R = size_t(c.resolution);
    const size_t refresh = warmup ? 1 : size_t(c.dense_refresh);
    const float refresh_decay = std::pow(c.decay, float(refresh));
    auto dense = [&](size_t i) { return refresh > 1 && d[i] > c.threshold / refresh_decay; };
    auto due = [&](size_t i) { return (i + round) % refresh == 0; };
    auto occupied = [&](size_t i) { return grid.occupied_cell(int(i / cells), i % cells); };
    size_t live = 0, candidates = 0;
    for (size_t i = 0; i < d.size(); ++i) {
        live += d[i] >= 0;
        candidates += occupied(i) && !(dense(i) && !due(i));
    }
    const bool thin = !warmup && 4 * candidates > live;
    const uint32_t keep =
        thin ? uint32_t(double(live) / 4.0 / double(candidates) * 4294967295.0) : 0;
    std::vector<size_t> chosen;
    for (size_t i = 0; i < d.size(); ++i) {
        if (d[i] < 0) continue;
        if (warmup)
            chosen.push_back(i);
        else if (!occupied(i)) {
            const int k = int(i / cells), x = int(i % cells % R), y = int(i % cells / R % R),
                      z = int(i % cells / (R * R));
            const bool far =
                c.far_empty_radius > 0 && grid.empty_radius(k, x, y, z) >= c.far_empty_radius;
            if (rng.next_below(far ? uint32_t(c.far_empty_every) : 4u) == 0) chosen.push_back(i);
        } else if (dense(i) && !due(i))
            continue;
        else if (!thin || rng.next_uint() <= keep)
            chosen.push_back(i);
    }
    std::vector<float> pos;
    for (size_t i : chosen) {
        Vec3 lo, hi;
        grid.cell_bounds(int(i / cells), i % cells, lo, hi);
        pos.push_back(lo.x + (hi.x - lo.x) * rng.next_float());
        pos.push_back(lo.y + (hi.y - lo.y) * rng.next_float());
        pos.push_back(lo.z + (hi.z - lo.z) * rng.next_float());
    }
    std::vector<float> value(chosen.size());
    ball_density(pos.data(), chosen.size(), value.data());
    for (size_t i = 0; i < d.size(); ++i) {
        if (d[i] <= 0) continue;
        if (!dense(i))
            d[i] *= c.decay;
        else if (due(i))
            d[i] *= refresh_decay;
    }
    for (size_t j = 0; j < chosen.size(); ++j) d[chosen[j]] = std::max(d[chosen[j]], value[j]);
    return d;
}

// Updates and rebuilds split their work by z-plane over the pool's threads: the estimates are
// those of a serial pass, the occupied cells, the blocks and the empty radii are the same with
// any number of threads as with none, and each block is occupied exactly when one of its cells
// is (or, in an outer cascade, when it overlaps the finer one).
void expect_updates_the_same_whatever_the_threads(int dense_refresh) {
    OccupancyGridConfig c;
    c.resolution = 32;
    c.n_cascades = 3;
    c.threshold = 0.8f;  // a full grid stays occupied for the first updates (thinned), then empties
    c.dense_refresh = dense_refresh;  // the ball's cells (10) are dense, the filled ones (1) not
    std::vector<double> fractions;
    auto run = [&](ThreadPool* pool) {
        OccupancyGrid grid(c);
        grid.fill(1.0f);
        std::vector<uint8_t> seen(grid.n_cells(), 1);
        for (size_t i = 0; i < seen.size(); i += 7) seen[i] = 0;
        grid.mark_dead(seen);
        Pcg32 rng(12);
        fractions.clear();
        for (int i = 0; i < 7; ++i) {
            fractions.push_back(grid.occupied_fraction());
            // Each update draws the numbers, and leaves the estimates, of the serial pass.
            Pcg32 reference_rng = rng;
            const std::vector<float> want =
                serial_update(grid, reference_rng, /*warmup=*/i == 0, uint64_t(i));
            grid.update(ball_density, rng, /*warmup=*/i == 0, uint64_t(i), pool);
            EXPECT_EQ(grid.densities(), want) << "update " << i;
            EXPECT_TRUE(rng == reference_rng) << "update " << i;
        }
        return grid;
    };
    const OccupancyGrid serial = run(nullptr);
    EXPECT_GT(fractions[1], 0.5) << "thinned occupied cells";
    EXPECT_LT(fractions.back(), 0.1) << "all occupied cells";
    const int R = c.resolution, B = serial.block_size(), nb = R / B;
    ASSERT_EQ(B, 8);
    size_t occupied = 0;
    for (int k = 0; k < c.n_cascades; ++k)
        for (int z = 0; z < R; ++z)
            for (int y = 0; y < R; ++y)
                for (int x = 0; x < R; ++x) occupied += serial.occupied_cell(k, x, y, z);
    EXPECT_GT(occupied, 100u);
    for (int k = 0; k < c.n_cascades; ++k)
        for (int bz = 0; bz < nb; ++bz)
            for (int by = 0; by < nb; ++by)
                for (int bx = 0; bx < nb; ++bx) {
                    bool any = false;
                    for (int z = bz * B; z < (bz + 1) * B; ++z)
                        for (int y = by * B; y < (by + 1) * B; ++y)
                            for (int x = bx * B; x < (bx + 1) * B; ++x)
                                any = any || serial.occupied_cell(k, x, y, z) ||
                                      serial.overlaps_finer(k, x, y, z);
                    ASSERT_EQ(serial.occupied_block(k, bx, by, bz), any)
                        << k << " " << bx << " " << by << " " << bz;
                }
    for (int threads : {1, 2, 3}) {
        ThreadPool pool(threads);
        const OccupancyGrid parallel = run(&pool);
        ASSERT_EQ(parallel.densities(), serial.densities()) << threads << " threads";
        EXPECT_DOUBLE_EQ(parallel.occupied_fraction(), serial.occupied_fraction());
        for (int k = 0; k < c.n_cascades; ++k)
            for (int z = 0; z < R; ++z)
                for (int y = 0; y < R; ++y)
                    for (int x = 0; x < R; ++x) {
                        ASSERT_EQ(parallel.occupied_cell(k, x, y, z),
                                  serial.occupied_cell(k, x, y, z));
                        ASSERT_EQ(parallel.empty_radius(k, x, y, z),
                                  serial.empty_radius(k, x, y, z));
                        ASSERT_EQ(parallel.occupied_block(k, x / B, y / B, z / B),
                                  serial.occupied_block(k, x / B, y / B, z / B));
                    }
    }
}

TEST(OccupancyGrid, UpdatesAreTheSameWhateverTheThreads) {
    expect_updates_the_same_whatever_the_threads(8);  // dense cells held between their rounds
}

TEST(OccupancyGrid, UpdatesAreTheSameWhateverTheThreadsWhenNoCellIsHeld) {
    expect_updates_the_same_whatever_the_threads(1);
}

// After warm-up a dense cell (estimate above threshold / decay^8) is evaluated only on its
// round, one update in eight staggered over the cells, and holds its estimate in between; on
// its round it decays by decay^8 before the max. Known answer: once the ball is gone, a cell
// that held 10 falls 10 -> 6.63 -> ... on its rounds until it is no longer dense, then by 0.95
// an update until it empties, no later than without holding.
TEST(OccupancyGrid, DenseCellsAreHeldBetweenTheirRounds) {
    OccupancyGridConfig c;
    c.resolution = 16;
    c.threshold = 0.8f;
    OccupancyGrid grid(c);
    Pcg32 rng(4);
    bool ball = true;
    uint64_t round = 0;
    // Counts, for one update, the evaluations in dense cells and those not due.
    size_t dense_evaluated = 0, not_due = 0;
    const float dense_above = c.threshold / std::pow(c.decay, 8.0f);
    auto density = [&](const float* pos, size_t n, float* out) {
        for (size_t i = 0; i < n; ++i) {
            const size_t cell = grid.cell_of({pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]}, 0);
            if (grid.densities()[cell] > dense_above)
                ++dense_evaluated, not_due += (cell + round) % 8 != 0;
        }
        // The ball while it is there, and a slab x > 0.75 always: the slab keeps the mean,
        // which caps the threshold, above 0.8.
        if (ball)
            ball_density(pos, n, out);
        else
            std::fill(out, out + n, 0.0f);
        for (size_t i = 0; i < n; ++i)
            if (pos[3 * i] > 0.75f) out[i] = 10.0f;
    };
    grid.update(density, rng, /*warmup=*/true, 0);
    const size_t centre = grid.cell_of({0.5f, 0.5f, 0.5f}, 0);
    ASSERT_EQ(grid.densities()[centre], 10.0f);
    size_t dense_due = 0;
    for (round = 1; round <= 8; ++round) {
        dense_due = 0;
        for (size_t i = 0; i < grid.n_cells(); ++i)
            dense_due += grid.densities()[i] > dense_above && (i + round) % 8 == 0;
        dense_evaluated = not_due = 0;
        grid.update(density, rng, false, round);
        EXPECT_EQ(not_due, 0u) << "round " << round;
        EXPECT_EQ(dense_evaluated, dense_due)
            << "round " << round << ": few candidates, none thinned";
        EXPECT_EQ(grid.densities()[centre], 10.0f) << "held, or evaluated again at 10";
    }
    EXPECT_GT(dense_due, 0u);
    ball = false;
    float want = 10.0f;
    int updates_occupied = 0;
    for (round = 9; round < 200 && grid.occupied_cell(0, centre); ++round) {
        grid.update(density, rng, false, round);
        if (want > dense_above) {
            if ((centre + round) % 8 == 0) want *= std::pow(c.decay, 8.0f);
        } else
            want *= c.decay;
        ASSERT_FLOAT_EQ(grid.densities()[centre], want) << "round " << round;
        ++updates_occupied;
    }
    EXPECT_FALSE(grid.occupied_cell(0, centre));
    // Without holding, 10 * 0.95^n falls to 0.8 after 50 updates.
    EXPECT_LE(updates_occupied, 50);
    EXPECT_GE(updates_occupied, 40);
}

}  // namespace
}  // namespace radiant
