// Marching cubes on analytic fields: closed, consistently wound, the right topology, on the
// surface, normals outward; sparse growth from seeds; and random fields stay watertight.
#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "mesh/marching_cubes.h"
#include "mesh/mesh_ops.h"

namespace radiant {
namespace {

using Field = std::function<double(double, double, double)>;

Mesh extract(const Field& f, double lo, double hi, int cells,
             const std::vector<std::array<double, 3>>& seed_points,
             IsoSurfaceStats* stats = nullptr, float threshold = 0) {
    ThreadPool pool(2);
    Lattice L;
    L.origin = {lo, lo, lo};
    L.spacing = (hi - lo) / cells;
    L.vertices = {cells + 1, cells + 1, cells + 1};
    std::vector<std::array<int, 3>> seeds;
    for (const auto& p : seed_points)
        seeds.push_back({int(std::lround((p[0] - lo) / L.spacing)),
                         int(std::lround((p[1] - lo) / L.spacing)),
                         int(std::lround((p[2] - lo) / L.spacing))});
    IsoSurfaceOptions o;
    o.threshold = threshold;
    return extract_isosurface(
        L, seeds,
        [&](const float* pos, size_t n, float* out, int) {
            for (size_t i = 0; i < n; ++i)
                out[i] = float(f(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]));
        },
        o, pool, stats);
}

void expect_closed(const Mesh& m, long long euler) {
    const MeshTopology t = mesh_topology(m);
    EXPECT_GT(m.triangle_count(), 0u);
    EXPECT_EQ(t.boundary_edges, 0u);
    EXPECT_EQ(t.nonmanifold_edges, 0u);
    EXPECT_EQ(t.misoriented_edges, 0u);
    EXPECT_EQ(t.euler, euler);
    EXPECT_EQ(t.used_vertices, m.vertex_count());
}

TEST(MarchingCubes, SphereIsClosedOnTheSurfaceWithOutwardNormals) {
    const double r = 0.6;
    const Field sphere = [&](double x, double y, double z) {
        return r - std::sqrt(x * x + y * y + z * z);
    };
    IsoSurfaceStats stats;
    Mesh m = extract(sphere, -1, 1, 64, {{r, 0, 0}}, &stats);
    expect_closed(m, 2);
    compute_vertex_normals(m);
    for (size_t i = 0; i < m.vertex_count(); ++i) {
        const float* p = &m.positions[3 * i];
        const double d = std::sqrt(double(p[0]) * p[0] + double(p[1]) * p[1] + double(p[2]) * p[2]);
        EXPECT_LT(std::abs(d - r), 0.01 * r);
        const float* n = &m.normals[3 * i];
        EXPECT_GT((n[0] * p[0] + n[1] * p[1] + n[2] * p[2]) / d, 0.9);  // outward and nearly radial
    }
    // Grown from one seed along the surface: far fewer values than the 65^3 lattice.
    EXPECT_LT(stats.values_evaluated, size_t(65 * 65 * 65) / 2);
}

TEST(MarchingCubes, TorusHasGenusOne) {
    const double R = 0.55, r = 0.22;
    const Field torus = [&](double x, double y, double z) {
        const double q = std::sqrt(x * x + y * y) - R;
        return r - std::sqrt(q * q + z * z);
    };
    Mesh m = extract(torus, -1, 1, 80, {{R + r, 0, 0}});
    expect_closed(m, 0);
    for (size_t i = 0; i < m.vertex_count(); ++i) {
        const float* p = &m.positions[3 * i];
        EXPECT_LT(std::abs(torus(p[0], p[1], p[2])), 0.01 * R);
    }
}

TEST(MarchingCubes, SurfacesCutByTheBoxAreCapped) {
    // A sphere sticking out of the lattice on +x: capped at the box, still closed.
    const Field sphere = [](double x, double y, double z) {
        return 0.8 - std::sqrt((x - 0.5) * (x - 0.5) + y * y + z * z);
    };
    Mesh m = extract(sphere, -1, 1, 40, {{0.5, 0.8, 0}});
    expect_closed(m, 2);
    float max_x = -1;
    for (size_t i = 0; i < m.vertex_count(); ++i) max_x = std::max(max_x, m.positions[3 * i]);
    EXPECT_LE(max_x, 1.0f + 1e-4f);  // the cap lies on the box
    EXPECT_GE(max_x, 1.0f - 1e-4f);
}

TEST(MarchingCubes, OnlySeededSurfacesAreFoundAndSmallPiecesDrop) {
    const Field two = [](double x, double y, double z) {
        const double a = 0.5 - std::sqrt((x + 0.4) * (x + 0.4) + y * y + z * z);
        const double b = 0.15 - std::sqrt((x - 0.6) * (x - 0.6) + y * y + z * z);
        return std::max(a, b);
    };
    Mesh one = extract(two, -1, 1, 48, {{0.1, 0, 0}});
    expect_closed(one, 2);
    Mesh both = extract(two, -1, 1, 48, {{0.1, 0, 0}, {0.6, 0, 0}});
    expect_closed(both, 4);
    EXPECT_EQ(remove_small_components(both, 0.5), 1u);  // the small sphere has < half the triangles
    EXPECT_EQ(both.triangle_count(), one.triangle_count());
    expect_closed(both, 2);
}

TEST(MarchingCubes, CavitiesAreFilledOnRequest) {
    // A hollow ball (shell between radius 0.3 and 0.6) with a loose ball inside the hollow.
    const Field hollow = [](double x, double y, double z) {
        const double r = std::sqrt(x * x + y * y + z * z);
        return std::max(std::min(0.6 - r, r - 0.3), 0.1 - r);
    };
    ThreadPool pool(2);
    Lattice L;
    L.origin = {-1, -1, -1};
    L.spacing = 2.0 / 48;
    L.vertices = {49, 49, 49};
    const std::vector<std::array<int, 3>> seeds = {{int(1.6 / L.spacing), 24, 24},
                                                   {int(1.3 / L.spacing), 24, 24},
                                                   {int(1.1 / L.spacing), 24, 24}};
    auto run = [&](bool fill, IsoSurfaceStats* st) {
        IsoSurfaceOptions o;
        o.fill_cavities = fill;
        return extract_isosurface(
            L, seeds,
            [&](const float* p, size_t n, float* out, int) {
                for (size_t i = 0; i < n; ++i)
                    out[i] = float(hollow(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
            },
            o, pool, st);
    };
    IsoSurfaceStats kept, filled;
    const Mesh all = run(false, &kept);
    expect_closed(all, 6);  // outer sphere, inner wall, loose ball
    const Mesh solid = run(true, &filled);
    expect_closed(solid, 2);  // only the outer sphere is left
    EXPECT_GT(filled.values_filled, 0u);
    for (size_t i = 0; i < solid.vertex_count(); ++i) {
        const float* p = &solid.positions[3 * i];
        EXPECT_NEAR(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 0.6f, 0.01f);
    }
}

TEST(MarchingCubes, RandomFieldsStayWatertightAndConsistentlyWound) {
    // Noise exercises every ambiguous face and cube configuration.
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        Pcg32 rng(seed, 0);
        const int n = 12;
        std::vector<float> v(size_t(n + 1) * (n + 1) * (n + 1));
        for (float& x : v) x = rng.next_float() - 0.5f;
        const Field f = [&](double x, double y, double z) {
            const int i = int(std::lround(x)), j = int(std::lround(y)), k = int(std::lround(z));
            return double(v[(size_t(k) * (n + 1) + size_t(j)) * (n + 1) + size_t(i)]);
        };
        std::vector<std::array<double, 3>> seeds;
        for (int i = 0; i <= n; i += 2)
            for (int j = 0; j <= n; j += 2)
                for (int k = 0; k <= n; k += 2) seeds.push_back({double(i), double(j), double(k)});
        const Mesh m = extract(f, 0, n, n, seeds);
        const MeshTopology t = mesh_topology(m);
        EXPECT_EQ(t.boundary_edges, 0u) << "seed " << seed;
        EXPECT_EQ(t.nonmanifold_edges, 0u) << "seed " << seed;
        EXPECT_EQ(t.misoriented_edges, 0u) << "seed " << seed;
    }
}

TEST(MarchingCubes, CaseTableIsComplementSymmetricInSize) {
    EXPECT_TRUE(marching_cubes_case(0).empty());
    EXPECT_TRUE(marching_cubes_case(255).empty());
    EXPECT_EQ(marching_cubes_case(1).size(), 1u);     // one corner: one triangle
    EXPECT_EQ(marching_cubes_case(0x0F).size(), 2u);  // a face's four corners: a quad
    for (int mask = 1; mask < 255; ++mask) EXPECT_FALSE(marching_cubes_case(mask).empty()) << mask;
}

}  // namespace
}  // namespace radiant
