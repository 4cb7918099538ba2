#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "core/thread_pool.h"
#include "scene/grid_visibility.h"
#include "scene/occupancy_grid.h"

namespace radiant {
namespace {

// A camera at `eye` (unit-cube frame, with scale 1 and offset 0 the world frame is that frame)
// looking along +x, image up = +z: OpenGL axes x_cam = -y, y_cam = +z, z_cam = -x.
std::array<float, 16> pose_looking_along_x(Vec3 eye) {
    return {0,  0, -1, eye.x,  //
            -1, 0, 0,  eye.y,  //
            0,  1, 0,  eye.z,  //
            0,  0, 0,  1};
}

CameraIntrinsics small_camera(float focal = 40, float k1 = 0, float k2 = 0) {
    CameraIntrinsics c;
    c.width = 64, c.height = 48;
    c.fl_x = c.fl_y = focal;
    c.cx = 30, c.cy = 25;  // off centre, as real principal points are
    c.k1 = k1, c.k2 = k2;
    return c;
}

const SceneTransform kIdentity{1.0f, {0.0f, 0.0f, 0.0f}};

TEST(GridVisibility, FrustumHoldsWhatThePixelsSeeAndNothingBehindOrBeside) {
    const CameraIntrinsics cam = small_camera();
    const auto pose = pose_looking_along_x({0, 0, 0});
    const ViewFrustum f = view_frustum(cam, pose, kIdentity);
    ASSERT_FALSE(f.sees_everything);
    // Bounds of x/z and y/z: (0 - 30) / 40 ... (64 - 30) / 40, (0 - 25) / 40 ... (48 - 25) / 40.
    EXPECT_NEAR(f.x_lo, -0.75f, 0.03f);
    EXPECT_NEAR(f.x_hi, 0.85f, 0.03f);
    EXPECT_NEAR(f.y_lo, -0.625f, 0.03f);
    EXPECT_NEAR(f.y_hi, 0.575f, 0.03f);
    // Points along pixel rays are inside, with no slack needed.
    Pcg32 rng(3);
    for (int i = 0; i < 200; ++i) {
        const Ray r =
            camera_ray(cam, pose, kIdentity, rng.next_float() * 64, rng.next_float() * 48);
        const float t = 0.1f + 5 * rng.next_float();
        EXPECT_TRUE(
            frustum_meets_sphere(f,
                                 {r.origin.x + t * r.direction.x, r.origin.y + t * r.direction.y,
                                  r.origin.z + t * r.direction.z},
                                 0.0f));
    }
    // Behind the camera, or well beside the image, is not; a sphere reaching in is.
    EXPECT_FALSE(frustum_meets_sphere(f, {-1.0f, 0.0f, 0.0f}, 0.1f));
    EXPECT_FALSE(frustum_meets_sphere(f, {1.0f, 2.0f, 0.0f}, 0.1f));   // 63 degrees to the left
    EXPECT_FALSE(frustum_meets_sphere(f, {1.0f, 0.0f, -1.5f}, 0.1f));  // far below
    EXPECT_TRUE(frustum_meets_sphere(f, {1.0f, 2.0f, 0.0f}, 1.5f));
    EXPECT_TRUE(frustum_meets_sphere(f, {-0.05f, 0.0f, 0.0f}, 0.1f))
        << "a sphere around the camera";
}

// Every point along every pixel's ray lies in the frustum, whatever the pose's matrix: a
// rotation with scaled or sheared columns (camera_ray does not orthonormalise it), or a lens
// model strong enough not to invert (then the frustum holds everything).
TEST(GridVisibility, FrustumHoldsEveryPixelRayForScaledShearedPosesAndStrongLenses) {
    auto scaled = pose_looking_along_x({0.5f, 0.5f, 0.5f});
    for (int r = 0; r < 3; ++r) scaled[size_t(4 * r)] *= 2;  // column 0 twice as long
    auto sheared = pose_looking_along_x({0.5f, 0.5f, 0.5f});
    sheared[1] += 0.4f, sheared[5] += 0.3f;  // column 1 gains some of the others
    const std::array<float, 16> poses[2] = {scaled, sheared};
    const CameraIntrinsics mild = small_camera(40, -0.2f, 0.05f),
                           strong = small_camera(40, -0.9f, 0.0f);
    EXPECT_FALSE(view_frustum(mild, scaled, kIdentity).sees_everything)
        << "a real lens keeps its bounds";
    Pcg32 rng(8);
    for (const auto& pose : poses)
        for (const CameraIntrinsics& cam : {mild, strong}) {
            const ViewFrustum f = view_frustum(cam, pose, kIdentity);
            for (int i = 0; i < 2000; ++i) {
                const float px = (i % 4 == 0) ? 0.0f : rng.next_float() * 64,
                            py = (i % 4 == 1) ? 48.0f : rng.next_float() * 48;
                const Ray r = camera_ray(cam, pose, kIdentity, px, py);
                const float t = 0.05f + 3 * rng.next_float();
                ASSERT_TRUE(frustum_meets_sphere(
                    f,
                    {r.origin.x + t * r.direction.x, r.origin.y + t * r.direction.y,
                     r.origin.z + t * r.direction.z},
                    0.0f))
                    << "pixel " << px << "," << py << " t " << t << " k1 " << cam.k1;
            }
        }
    // Packed for other ranks and back: the same frustum.
    const ViewFrustum f = view_frustum(mild, sheared, kIdentity);
    float packed[ViewFrustum::kFloats];
    f.pack(packed);
    const ViewFrustum g = ViewFrustum::unpack(packed);
    EXPECT_EQ(g.x_lo, f.x_lo);
    EXPECT_EQ(g.y_hi, f.y_hi);
    EXPECT_EQ(g.down.x, f.down.x);
    EXPECT_EQ(g.origin.z, f.origin.z);
    EXPECT_EQ(g.sees_everything, f.sees_everything);
}

TEST(GridVisibility, EveryCellAPixelRayCrossesIsSeenAndCellsBehindAreNot) {
    OccupancyGridConfig c;
    c.resolution = 32;
    c.n_cascades = 2;
    OccupancyGrid grid(c);
    ThreadPool pool(2);
    // Two cameras in the outer cascade looking inward (+x and -x, about 40 by 33 degrees), one
    // with barrel distortion.
    const auto pose_a = pose_looking_along_x({-0.2f, 0.5f, 0.5f});
    std::array<float, 16> pose_b = pose_looking_along_x({1.2f, 0.5f, 0.5f});
    for (int r = 0; r < 3; ++r)
        pose_b[size_t(4 * r)] *= -1, pose_b[size_t(4 * r + 2)] *= -1;  // turned around z
    const CameraIntrinsics cam_a = small_camera(80), cam_b = small_camera(80, -0.2f, 0.05f);
    const std::vector<ViewFrustum> views = {view_frustum(cam_a, pose_a, kIdentity),
                                            view_frustum(cam_b, pose_b, kIdentity)};
    const std::vector<uint8_t> seen = cells_seen_by(grid, views, pool);
    ASSERT_EQ(seen.size(), grid.n_cells());
    auto seen_at = [&](const Vec3& p) {
        const int k = grid.cascade_of(p);
        return k < c.n_cascades &&
               seen[size_t(k) * grid.cells_per_cascade() + grid.cell_of(p, k)] != 0;
    };
    Pcg32 rng(5);
    size_t checked = 0;
    for (int v = 0; v < 2; ++v)
        for (int i = 0; i < 2000; ++i) {
            const Ray r = camera_ray(v ? cam_b : cam_a, v ? pose_b : pose_a, kIdentity,
                                     rng.next_float() * 64, rng.next_float() * 48);
            for (float t = 0.01f; t < 3.0f; t += 0.05f) {
                const Vec3 p{r.origin.x + t * r.direction.x, r.origin.y + t * r.direction.y,
                             r.origin.z + t * r.direction.z};
                if (grid.cascade_of(p) >= c.n_cascades) continue;
                ASSERT_TRUE(seen_at(p)) << "view " << v << " ray " << i << " t " << t;
                ++checked;
            }
        }
    EXPECT_GT(checked, 50000u);
    // Both cameras look along the x axis: the corners far off it in y and z are seen by neither.
    EXPECT_FALSE(seen_at({0.5f, -0.45f, -0.45f}));
    EXPECT_FALSE(seen_at({0.5f, 1.45f, 1.45f}));
    // Not much looser than the cells some point of which projects into an image (5^3 points
    // per cell, projected through the lens).
    auto projects = [](const CameraIntrinsics& cam, const std::array<float, 16>& m, const Vec3& p) {
        const float v[3] = {p.x - m[3], p.y - m[7], p.z - m[11]};
        auto col = [&](int c) {
            return v[0] * m[size_t(c)] + v[1] * m[size_t(4 + c)] + v[2] * m[size_t(8 + c)];
        };
        const float X = col(0), Y = -col(1), Z = -col(2);
        if (Z <= 0) return false;
        float xd, yd;
        distort(cam, X / Z, Y / Z, xd, yd);
        const float px = cam.fl_x * xd + cam.cx, py = cam.fl_y * yd + cam.cy;
        return px >= 0 && px <= float(cam.width) && py >= 0 && py <= float(cam.height);
    };
    size_t n_seen = 0, n_point_seen = 0;
    for (int k = 0; k < c.n_cascades; ++k)
        for (size_t cell = 0; cell < grid.cells_per_cascade(); ++cell) {
            Vec3 lo, hi;
            grid.cell_bounds(k, cell, lo, hi);
            bool hit = false;
            for (int i = 0; i < 125 && !hit; ++i) {
                const Vec3 p{lo.x + (hi.x - lo.x) * float(i % 5) / 4,
                             lo.y + (hi.y - lo.y) * float(i / 5 % 5) / 4,
                             lo.z + (hi.z - lo.z) * float(i / 25) / 4};
                hit = projects(cam_a, pose_a, p) || projects(cam_b, pose_b, p);
            }
            const bool s = seen[size_t(k) * grid.cells_per_cascade() + cell] != 0;
            ASSERT_TRUE(s || !hit) << "cascade " << k << " cell " << cell;
            n_seen += s;
            n_point_seen += hit;
        }
    EXPECT_GT(n_point_seen, seen.size() / 10);
    EXPECT_LT(double(n_seen), 1.3 * double(n_point_seen));
}

}  // namespace
}  // namespace radiant
