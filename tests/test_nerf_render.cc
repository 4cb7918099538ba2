#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "gradcheck.h"
#include "nerf/model.h"
#include "scene/camera.h"
#include "scene/composite.h"
#include "train/model_setup.h"
#include "train/trainer.h"

namespace radiant {
namespace {

TEST(VolumeRender, KnownAnswers) {
    const float bg[3] = {0.1f, 0.2f, 0.3f};
    const float rgb[6] = {1, 0, 0, 0, 1, 0};
    const float dt[2] = {0.5f, 0.5f};
    const float empty[2] = {0, 0};
    CompositeResult r = composite_forward(empty, rgb, dt, 2, bg);
    EXPECT_FLOAT_EQ(r.rgb[2], 0.3f) << "empty ray shows the background";
    EXPECT_FLOAT_EQ(r.transmittance, 1.0f);
    const float half[2] = {2 * std::log(2.0f), 2 * std::log(2.0f)};  // alpha = 0.5 each
    r = composite_forward(half, rgb, dt, 2, bg);
    EXPECT_NEAR(r.rgb[0], 0.5f + 0.25f * 0.1f, 1e-6f);
    EXPECT_NEAR(r.rgb[1], 0.25f + 0.25f * 0.2f, 1e-6f);
    EXPECT_NEAR(r.rgb[2], 0.25f * 0.3f, 1e-6f);
    const float opaque[2] = {1e4f, 1e4f};
    r = composite_forward(opaque, rgb, dt, 2, bg);
    EXPECT_FLOAT_EQ(r.rgb[0], 1.0f);
    EXPECT_EQ(r.samples_used, 1u) << "terminates after an opaque sample";
}

TEST(VolumeRender, BackwardMatchesFiniteDifferencesIncludingBackground) {
    const size_t n = 24;
    Pcg32 rng(3);
    std::vector<float> sigma(n), rgb(3 * n), dt(n), bg(3), w(3);
    for (size_t i = 0; i < n; ++i) {
        sigma[i] = rng.next_float() * 8.0f;
        dt[i] = 0.02f + 0.05f * rng.next_float();
        for (int k = 0; k < 3; ++k) rgb[3 * i + k] = rng.next_float();
    }
    for (int k = 0; k < 3; ++k) bg[k] = rng.next_float(), w[k] = rng.next_float() - 0.5f;
    auto loss = [&]() {
        CompositeResult r =
            composite_forward(sigma.data(), rgb.data(), dt.data(), n, bg.data(), 0.0f);
        return double(w[0]) * r.rgb[0] + double(w[1]) * r.rgb[1] + double(w[2]) * r.rgb[2];
    };
    CompositeResult fwd =
        composite_forward(sigma.data(), rgb.data(), dt.data(), n, bg.data(), 0.0f);
    ASSERT_GT(fwd.transmittance, 1e-3f) << "background must matter for this check";
    std::vector<float> d_sigma(n), d_rgb(3 * n), d_bg(3);
    composite_backward(sigma.data(), rgb.data(), dt.data(), n, bg.data(), fwd, w.data(),
                       d_sigma.data(), d_rgb.data(), d_bg.data(), 0.0f);
    EXPECT_LT(test::gradient_nmse(sigma, d_sigma, loss, 5e-3f, test::every_index(n)), 1e-4);
    EXPECT_LT(test::gradient_nmse(rgb, d_rgb, loss, 1e-3f, test::every_index(3 * n)), 1e-6);
    EXPECT_LT(test::gradient_nmse(bg, d_bg, loss, 1e-3f, test::every_index(3)), 1e-6);
}

TEST(VolumeRender, EarlyTerminationIsConsistent) {
    const size_t n = 10;
    std::vector<float> sigma(n, 200.0f), rgb(3 * n, 0.5f), dt(n, 0.1f), d_sigma(n, 9),
        d_rgb(3 * n, 9);
    const float bg[3] = {1, 1, 1}, dc[3] = {1, 1, 1};
    CompositeResult r = composite_forward(sigma.data(), rgb.data(), dt.data(), n, bg);
    EXPECT_LT(r.samples_used, n);
    EXPECT_EQ(samples_in_front(sigma.data(), dt.data(), n), r.samples_used);
    EXPECT_EQ(samples_in_front(sigma.data(), dt.data(), n, 0.0f), n);
    EXPECT_EQ(samples_in_front(sigma.data(), dt.data(), 0), 0u);
    composite_backward(sigma.data(), rgb.data(), dt.data(), n, bg, r, dc, d_sigma.data(),
                       d_rgb.data(), nullptr);
    for (size_t i = r.samples_used; i < n; ++i) {
        EXPECT_EQ(d_sigma[i], 0.0f);
        EXPECT_EQ(d_rgb[3 * i], 0.0f);
    }
}

TEST(VolumeRender, NearCameraGradientsScaleWithTheSquaredDistance) {
    const std::vector<float> t = {0.0f, 0.25f, 0.5f, 1.0f, 3.0f};
    std::vector<float> d_sigma(t.size(), 2.0f), d_rgb(3 * t.size(), -1.0f);
    scale_near_camera_gradients(t.data(), t.size(), 0.5f, d_sigma.data(), d_rgb.data());
    const float expected[5] = {0.0f, 0.25f, 1.0f, 1.0f, 1.0f};  // (t / 0.5)^2, at most 1
    for (size_t i = 0; i < t.size(); ++i) {
        EXPECT_FLOAT_EQ(d_sigma[i], 2.0f * expected[i]) << "sample " << i;
        for (int c = 0; c < 3; ++c)
            EXPECT_FLOAT_EQ(d_rgb[3 * i + c], -expected[i]) << "sample " << i;
    }
    std::vector<float> untouched = {2.0f}, untouched_rgb = {1.0f, 1.0f, 1.0f};
    scale_near_camera_gradients(t.data(), 1, 0.0f, untouched.data(), untouched_rgb.data());
    EXPECT_EQ(untouched[0], 2.0f) << "distance 0 turns the scaling off";
}

std::array<float, 16> pose(float tx, float ty, float tz) {
    return {1, 0, 0, tx, 0, 1, 0, ty, 0, 0, 1, tz, 0, 0, 0, 1};
}

CameraIntrinsics pinhole(float f, int w, int h) {
    CameraIntrinsics c;
    c.width = w;
    c.height = h;
    c.fl_x = c.fl_y = f;
    c.cx = w * 0.5f;
    c.cy = h * 0.5f;
    c.has_principal_point = true;
    return c;
}

TEST(Camera, PrincipalRayAndSceneTransform) {
    SceneTransform scene{0.5f, {0.5f, 0.5f, 0.5f}};
    Ray r = camera_ray(pinhole(100, 200, 100), pose(1, 2, 3), scene, 100.0f, 50.0f);
    EXPECT_NEAR(r.direction.x, 0.0f, 1e-6f);
    EXPECT_NEAR(r.direction.y, 0.0f, 1e-6f);
    EXPECT_NEAR(r.direction.z, -1.0f, 1e-6f);
    EXPECT_FLOAT_EQ(r.origin.x, 1.0f);
    EXPECT_FLOAT_EQ(r.origin.y, 1.5f);
    EXPECT_FLOAT_EQ(r.origin.z, 2.0f);
}

TEST(Camera, OffAxisPixelsFollowOpenGlConvention) {
    SceneTransform scene;
    // One focal length right of centre: 45 degrees to the right; below centre: looks down.
    Ray r = camera_ray(pinhole(100, 200, 100), pose(0, 0, 0), scene, 200.0f, 50.0f);
    EXPECT_NEAR(r.direction.x, std::sqrt(0.5f), 1e-6f);
    EXPECT_NEAR(r.direction.z, -std::sqrt(0.5f), 1e-6f);
    r = camera_ray(pinhole(100, 200, 100), pose(0, 0, 0), scene, 100.0f, 99.0f);
    EXPECT_LT(r.direction.y, 0.0f) << "image rows grow downward";
    // A camera turned 90 degrees about +y (looking down -x in the world).
    std::array<float, 16> turned = {0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 1};
    r = camera_ray(pinhole(100, 200, 100), turned, scene, 100.0f, 50.0f);
    EXPECT_NEAR(r.direction.x, -1.0f, 1e-6f);
}

TEST(Camera, DistortionRoundTrip) {
    CameraIntrinsics c = pinhole(1375.52f, 1080, 1920);  // the fox capture's lens
    c.k1 = 0.0578421f;
    c.k2 = -0.0805099f;
    c.p1 = -0.000980296f;
    c.p2 = 0.00015575f;
    for (float px : {0.0f, 200.0f, 540.0f, 1079.0f})
        for (float py : {0.0f, 700.0f, 960.0f, 1919.0f}) {
            const float xd = (px - c.cx) / c.fl_x, yd = (py - c.cy) / c.fl_y;
            float x, y, xr, yr;
            undistort(c, xd, yd, x, y);
            distort(c, x, y, xr, yr);
            EXPECT_NEAR(xr * c.fl_x, xd * c.fl_x, 0.01f) << px << "," << py;
            EXPECT_NEAR(yr * c.fl_y, yd * c.fl_y, 0.01f) << px << "," << py;
        }
    // Distortion moves off-centre rays: the corner ray differs from the pinhole one.
    CameraIntrinsics plain = pinhole(1375.52f, 1080, 1920);
    Ray a = camera_ray(c, pose(0, 0, 0), {}, 0.0f, 0.0f),
        b = camera_ray(plain, pose(0, 0, 0), {}, 0.0f, 0.0f);
    EXPECT_GT(std::abs(a.direction.x - b.direction.x), 5e-4f);  // ~1.2 px at this focal length
}

TEST(Camera, PixelFootprintIsDistanceToTheCubeCentreOverFocalLength) {
    // 4 world units from the origin, which the scene transform puts at the cube's centre.
    const SceneTransform scene{0.25f, {0.5f, 0.5f, 0.5f}};
    EXPECT_NEAR(pixel_footprint(pinhole(200, 400, 300), pose(0, 0, 4), scene), 1.0f / 200.0f,
                1e-7f);
    EXPECT_NEAR(pixel_footprint(pinhole(200, 400, 300), pose(0, 3, 4), scene), 1.25f / 200.0f,
                1e-7f);
    // Distinct focal lengths: their mean.
    CameraIntrinsics c = pinhole(100, 400, 300);
    c.fl_y = 300;
    EXPECT_NEAR(pixel_footprint(c, pose(0, 0, 4), scene), 1.0f / 200.0f, 1e-7f);
}

TEST(ModelConfig, StepMatchesThePixelFootprintButNeverGetsFinerThanInstantNgps) {
    NerfModelConfig c = NerfModelConfig::for_scene(1.0f, {});
    const float base = c.march.min_step;
    EXPECT_NEAR(base, std::sqrt(3.0f) / 1024.0f, 1e-9f);
    c.match_pixel_footprint(0.5f * base);  // views finer than the step: instant-ngp's step stays
    EXPECT_EQ(c.march.min_step, base);
    c.match_pixel_footprint(std::nanf(""));
    EXPECT_EQ(c.march.min_step, base);
    c.match_pixel_footprint(3.0f * base);
    EXPECT_EQ(c.march.min_step, 3.0f * base);
    // The occupancy threshold does not follow the step: optical thickness 0.01 over
    // instant-ngp's step, about 5.9 a unit of the cube, for coarse and fine views alike.
    EXPECT_NEAR(NerfModel(c).grid().config().threshold, 0.01f / base, 1e-3f);
    EXPECT_NEAR(NerfModel(c).grid().config().threshold, 5.912f, 1e-3f);
    EXPECT_TRUE(NerfModel(c).grid().config().per_cascade_mean);
}

TEST(ModelConfig, TypicalFootprintIsTheGeometricMeanOverTheViews) {
    ImageSet images;
    const SceneTransform scene{0.25f, {0.5f, 0.5f, 0.5f}};
    for (float f : {100.0f, 400.0f}) {
        StagedImage im;
        im.camera = pinhole(f, 64, 64);
        im.camera_to_world = pose(0, 0, 4);
        images.images.push_back(im);
    }
    EXPECT_NEAR(typical_pixel_footprint(images, scene), 1.0f / 200.0f, 1e-7f);
    EXPECT_EQ(typical_pixel_footprint(ImageSet{}, scene), 0.0f);
}

}  // namespace
}  // namespace radiant

#include "nerf/metrics.h"

namespace radiant {
namespace {

TEST(Metrics, PsnrAgainstViewKnownAnswer) {
    ImageSet set;
    StagedImage im;
    im.width = 2;
    im.height = 1;
    set.images.push_back(im);
    // An opaque grey pixel and a fully transparent one (white background there).
    set.rgba = {128, 128, 128, 255, 0, 0, 0, 0};
    ImageF r(2, 1, 3);
    for (int k = 0; k < 3; ++k) {
        r.at(0, 0, k) = 128 / 255.0f + 0.1f;
        r.at(1, 0, k) = 1.0f - 0.1f;
    }
    const float white[3] = {1, 1, 1};
    EXPECT_NEAR(psnr_against_view(r, set, 0, white), 20.0, 1e-4);  // every value off by 0.1
}

}  // namespace
}  // namespace radiant
