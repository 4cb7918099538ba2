#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "scene/composite.h"
#include "scene/contraction.h"
#include "scene/marcher.h"
#include "scene/occupancy_grid.h"
#include "scene/sample_batch.h"

namespace radiant {
namespace {

SceneContraction contraction() {
    SceneContraction c;
    c.center = {0.5f, 0.5f, 0.5f};
    c.radius = 2.0f;
    return c;
}

void expect_vec_near(const Vec3& a, const Vec3& b, float tol) {
    EXPECT_NEAR(a.x, b.x, tol);
    EXPECT_NEAR(a.y, b.y, tol);
    EXPECT_NEAR(a.z, b.z, tol);
}

// Worked by hand: inside, u = (p - c) / r; outside, (2 - 1/n) u / n with n the max norm.
TEST(SceneContraction, KnownAnswers) {
    const SceneContraction c = contraction();
    expect_vec_near(c.contract({0.5f, 0.5f, 0.5f}), {0, 0, 0}, 0);
    expect_vec_near(c.contract({1.5f, -0.5f, 0.5f}), {0.5f, -0.5f, 0}, 1e-7f);
    expect_vec_near(c.contract({2.5f, 0.5f, 0.5f}), {1, 0, 0}, 1e-7f);  // the inner boundary
    // u = (2, 0, 0): n = 2, (2 - 1/2) / 2 = 0.75.
    expect_vec_near(c.contract({4.5f, 0.5f, 0.5f}), {1.5f, 0, 0}, 1e-6f);
    // u = (4, -2, 1): n = 4, (2 - 1/4) / 4 = 0.4375.
    expect_vec_near(c.contract({8.5f, -3.5f, 2.5f}), {1.75f, -0.875f, 0.4375f}, 1e-6f);
    // Far away, the cube's surface in the point's direction (max norm 2).
    const Vec3 far = c.contract({0.5f + 1e6f, 0.5f, 0.5f - 5e5f});
    expect_vec_near(far, {2.0f, 0.0f, -1.0f}, 1e-5f);
}

TEST(SceneContraction, InverseRoundTrips) {
    const SceneContraction c = contraction();
    Pcg32 rng(5);
    for (int i = 0; i < 1000; ++i) {
        // Points from the centre out to 200 radii, in every direction.
        const float scale = std::pow(200.0f, rng.next_float()) * c.radius;
        const Vec3 p{0.5f + (rng.next_float() * 2 - 1) * scale,
                     0.5f + (rng.next_float() * 2 - 1) * scale,
                     0.5f + (rng.next_float() * 2 - 1) * scale};
        const Vec3 q = c.contract(p);
        EXPECT_LE(std::max({std::abs(q.x), std::abs(q.y), std::abs(q.z)}), 2.0f);
        const Vec3 back = c.uncontract(q);
        const float tol = 1e-5f * scale * scale;  // the outer shell squeezes distances ~1/n^2
        expect_vec_near(back, p, std::max(tol, 1e-5f));
    }
}

TEST(SceneContraction, JacobianMatchesFiniteDifferences) {
    const SceneContraction c = contraction();
    const Vec3 points[] = {{0.9f, 0.2f, 1.1f},     // inside
                           {4.7f, 1.1f, -0.3f},    // outside, x the largest axis
                           {-2.0f, 6.2f, 3.3f},    // outside, y
                           {1.0f, -1.0f, -9.5f}};  // outside, z negative
    for (const Vec3& p : points) {
        float J[9];
        c.jacobian(p, J);
        const double h = 1e-3;
        for (int a = 0; a < 3; ++a) {
            Vec3 lo = p, hi = p;
            (&lo.x)[a] -= float(h);
            (&hi.x)[a] += float(h);
            const Vec3 f0 = c.contract(lo), f1 = c.contract(hi);
            for (int i = 0; i < 3; ++i) {
                const double fd = (double((&f1.x)[i]) - double((&f0.x)[i])) / (2 * h);
                EXPECT_NEAR(J[3 * i + a], fd, 2e-3) << "d" << i << "/d" << a;
            }
        }
    }
}

TEST(SceneContraction, EncodingFrameMapsAllOfSpaceIntoTheUnitCube) {
    EncodingFrame frame{16.0f, contraction()};
    const float points[] = {0.5f, 0.5f, 0.5f, 2.5f, 0.5f, 0.5f, 1e5f, -1e5f, 0.5f};
    float out[9];
    frame.map(points, 3, out);
    EXPECT_FLOAT_EQ(out[0], 0.5f);     // the centre
    EXPECT_FLOAT_EQ(out[3], 0.75f);    // the inner boundary: contracted 1 of 2
    EXPECT_NEAR(out[6], 1.0f, 1e-4f);  // infinity: the edge
    EXPECT_NEAR(out[7], 0.0f, 1e-4f);
    for (float v : out) EXPECT_TRUE(v >= 0.0f && v <= 1.0f);
    // No contraction: the scene box, as before.
    EncodingFrame box{4.0f, {}};
    const float p[3] = {2.5f, 0.5f, -1.5f};
    box.map(p, 1, out);
    EXPECT_FLOAT_EQ(out[0], 1.0f);
    EXPECT_FLOAT_EQ(out[2], 0.0f);
}

// An unbounded scene's rays end in one sample at infinity when they leave the grid; a bounded
// scene's do not; the incremental marcher gives the same samples.
TEST(SceneContraction, FarSampleEndsRaysThatLeaveTheGrid) {
    OccupancyGridConfig gc;
    gc.resolution = 16;
    gc.n_cascades = 2;
    OccupancyGrid grid(gc);  // all empty
    const Ray ray{{0.5f, 0.5f, 0.5f}, {0.0f, 0.6f, 0.8f}};
    MarchConfig mc;
    RaySample out[8];
    EXPECT_EQ(march_ray(ray, grid, mc, out), 0u);
    mc.far_sample = true;
    ASSERT_EQ(march_ray(ray, grid, mc, out), 1u);
    EXPECT_FLOAT_EQ(out[0].t, kFarSampleDistance);
    EXPECT_FLOAT_EQ(out[0].dt, kFarSampleStep);
    EXPECT_NEAR(out[0].position.z, 0.5f + 0.8f * kFarSampleDistance, 1.0f);
    // With occupied cells: the grid's samples first, then the far one, whatever the segments.
    grid.fill(1.0f);
    mc.max_samples = 1024;
    std::vector<RaySample> whole(mc.max_samples);
    const size_t n = march_ray(ray, grid, mc, whole.data());
    ASSERT_GT(n, 2u);
    EXPECT_FLOAT_EQ(whole[n - 1].t, kFarSampleDistance);
    EXPECT_LT(whole[n - 2].t, 2.0f);
    MarchCursor cursor;
    std::vector<RaySample> parts;
    RaySample seg[7];
    while (!cursor.done || cursor.far_due) {
        const size_t m = march_ray_segment(ray, grid, mc, cursor, 7, seg);
        parts.insert(parts.end(), seg, seg + m);
        if (m == 0) break;
    }
    ASSERT_EQ(parts.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(parts[i].t, whole[i].t) << i;
    // A ray that reaches max_samples inside the grid has no room left for it.
    mc.max_samples = 3;
    EXPECT_EQ(march_ray(ray, grid, mc, whole.data()), 3u);
    EXPECT_LT(whole[2].t, 2.0f);
}

// The far sample is opaque whatever its density, and gives its density no gradient: the
// background is its colour, not something to thin out.
TEST(SceneContraction, FarSampleIsOpaqueAndHasNoDensityGradient) {
    const float sigma[2] = {0.7f, 1e-12f}, rgb[6] = {0.2f, 0.4f, 0.6f, 0.9f, 0.1f, 0.3f};
    const float dt[2] = {0.5f, kFarSampleStep}, bg[3] = {1, 1, 1}, d_color[3] = {1, -2, 0.5f};
    const CompositeResult f = composite_forward(sigma, rgb, dt, 2, bg);
    EXPECT_EQ(f.transmittance, 0.0f);
    const float T1 = std::exp(-0.7f * 0.5f);
    EXPECT_NEAR(f.rgb[1], (1 - T1) * 0.4f + T1 * 0.1f, 1e-6f);
    float d_sigma[2], d_rgb[6];
    composite_backward(sigma, rgb, dt, 2, bg, f, d_color, d_sigma, d_rgb, nullptr);
    EXPECT_EQ(d_sigma[1], 0.0f);
    EXPECT_NEAR(d_rgb[3], T1 * d_color[0], 1e-6f);
    // The near sample's density gradient against a finite difference.
    const float h = 1e-3f;
    const float up[2] = {sigma[0] + h, sigma[1]}, down[2] = {sigma[0] - h, sigma[1]};
    const CompositeResult a = composite_forward(up, rgb, dt, 2, bg),
                          b = composite_forward(down, rgb, dt, 2, bg);
    double fd = 0;
    for (int k = 0; k < 3; ++k) fd += d_color[k] * (double(a.rgb[k]) - double(b.rgb[k])) / (2 * h);
    EXPECT_NEAR(d_sigma[0], fd, 1e-3);
}

}  // namespace
}  // namespace radiant
