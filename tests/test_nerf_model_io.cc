// Model snapshots: round trip, mismatched blocks, refusal to save a diverged model, and the
// resume guarantee (interrupted + resumed == uninterrupted, same seed and threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/thread_pool.h"
#include "demo/demo_scene.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/model_io.h"
#include "nerf/render_view.h"
#include "scene/composite.h"
#include "small_demo_scene.h"
#include "test_util.h"
#include "train/trainer.h"
#include "train/training_state.h"

namespace radiant {
namespace {

NerfModelConfig small_config(const Dataset& d) { return test::small_model_config(d); }
NerfTrainConfig small_train() { return test::small_train_config(); }

using SmallScene = test::SmallDemoScene;

// Initialises `model` with small_train()'s seed and trains it for `steps` steps.
void train_small(NerfModel& model, const ImageSet& images, int steps, ThreadPool& pool) {
    const NerfTrainConfig tc = small_train();
    model.init_params(tc.seed);
    NerfTrainer trainer(images, model, tc, pool);
    for (int i = 0; i < steps; ++i) trainer.step();
}

TEST(ModelSnapshot, RoundTripRendersIdentically) {
    ThreadPool pool(2);
    SmallScene scene(pool);
    NerfModel model(small_config(scene.train));
    train_small(model, scene.images, 20, pool);
    const std::string path = scene.dir / "m.radiant";
    save_model_snapshot(path, model, views_to_json(scene.images), {{"note", "test"}});
    LoadedModel loaded = load_model_snapshot(path);
    ASSERT_EQ(loaded.model->params().size(), model.params().size());
    EXPECT_EQ(std::memcmp(loaded.model->params().data(), model.params().data(),
                          model.params().size() * 4),
              0);
    EXPECT_EQ(loaded.model->grid().densities(), model.grid().densities());
    EXPECT_EQ(loaded.model->grid().occupied_fraction(), model.grid().occupied_fraction());
    const StagedImage& im = scene.images.images[0];
    const float white[3] = {1, 1, 1};
    const ImageF a = render_view(model, im.camera, im.camera_to_world, white, pool);
    const ImageF b = render_view(*loaded.model, im.camera, im.camera_to_world, white, pool);
    EXPECT_EQ(a.pixels, b.pixels);
    EXPECT_EQ(loaded.file.header()["info"]["note"], "test");
    // Saved for rendering only: resuming from it is refused.
    NerfTrainer other(scene.images, *loaded.model, small_train(), pool);
    EXPECT_RADIANT_ERROR(restore_training_state(loaded.file, other), "m.radiant",
                         "no optimiser state");
}

// render_view evaluates rays in rounds and stops at kRenderOpaqueTransmittance, normalising an
// opaque ray's colour by its opacity. It must agree with marching each ray whole and compositing
// it with composite_forward to that transmittance under the same rule, at every pixel of a frame
// whose sides are not multiples of render_view's square blocks (the edge blocks are partial);
// and against compositing to 1e-4 as training does, no pixel may move by more than the weight
// the early stop leaves out.
TEST(RenderView, MatchesWholeRayCompositing) {
    ThreadPool pool(2);
    SmallScene scene(pool);
    NerfModel model(small_config(scene.train));
    train_small(model, scene.images, 60, pool);
    const StagedImage& im = scene.images.images[3];
    CameraIntrinsics camera = im.camera;  // 32x32, widened to 45x37 around the same axis
    camera.width = 45, camera.height = 37;
    camera.cx = im.camera.cx + 6.5f, camera.cy = im.camera.cy + 2.5f;
    const float bg[3] = {0.2f, 0.5f, 0.9f};
    const ImageF img = render_view(model, camera, im.camera_to_world, bg, pool);
    ASSERT_EQ(img.width, 45);
    ASSERT_EQ(img.height, 37);
    NerfField::Workspace ws = model.field().make_workspace(1024);
    std::vector<RaySample> samples(model.config().march.max_samples);
    double max_err = 0, max_moved = 0;
    size_t long_rays = 0, opaque_rays = 0;
    for (int y = 0; y < camera.height; ++y)
        for (int x = 0; x < camera.width; ++x) {
            const Ray ray =
                camera_ray(camera, im.camera_to_world, model.config().scene, x + 0.5f, y + 0.5f);
            const size_t n = march_ray(ray, model.grid(), model.config().march, samples.data());
            long_rays += n > 24;
            std::vector<float> pos(3 * n + 3), dir(3 * n + 3), sigma(n + 1), rgb(3 * n + 3),
                dt(n + 1);
            for (size_t s = 0; s < n; ++s) {
                pos[3 * s] = samples[s].position.x, pos[3 * s + 1] = samples[s].position.y;
                pos[3 * s + 2] = samples[s].position.z;
                dir[3 * s] = ray.direction.x, dir[3 * s + 1] = ray.direction.y,
                        dir[3 * s + 2] = ray.direction.z;
                dt[s] = samples[s].dt;
            }
            if (n)
                model.field().forward(model.params().data(), model.packed(), pos.data(), dir.data(),
                                      n, ws, sigma.data(), rgb.data());
            const CompositeResult cr = composite_forward(sigma.data(), rgb.data(), dt.data(), n, bg,
                                                         kRenderOpaqueTransmittance);
            const CompositeResult full =
                composite_forward(sigma.data(), rgb.data(), dt.data(), n, bg);
            const bool opaque = cr.transmittance < kRenderOpaqueTransmittance;
            opaque_rays += opaque;
            for (int k = 0; k < 3; ++k) {
                // Opaque: take the background back out, divide by the opacity.
                const float want =
                    opaque ? (cr.rgb[k] - cr.transmittance * bg[k]) / (1.0f - cr.transmittance)
                           : cr.rgb[k];
                max_err = std::max(
                    max_err, double(std::abs(std::clamp(want, 0.0f, 1.0f) - img.at(x, y, k))));
                max_moved = std::max(
                    max_moved,
                    double(std::abs(std::clamp(full.rgb[k], 0.0f, 1.0f) - img.at(x, y, k))));
            }
        }
    EXPECT_GT(long_rays, 0u);     // some rays span several rounds
    EXPECT_GT(opaque_rays, 50u);  // and many stop early
    EXPECT_LT(max_err, 2e-5);
    EXPECT_LE(max_moved, kRenderOpaqueTransmittance + 2e-5);
    EXPECT_GT(max_moved,
              1e-4);  // the rule is in force: some pixel differs from compositing to 1e-4
}

TEST(ModelSnapshot, RejectsParametersThatDoNotMatchTheHeader) {
    ThreadPool pool(1);
    SmallScene scene(pool);
    NerfModel model(small_config(scene.train));
    model.init_params(1);
    // Header claims a 2^15 table; the params block holds a 2^14 model's parameters.
    NerfModelConfig claimed = small_config(scene.train);
    claimed.field.grid.log2_hashmap_size = 15;
    const auto& occ = model.grid().densities();
    const std::string path = scene.dir / "bad.radiant";
    write_snapshot(path, {{"kind", "radiant-nerf"}, {"model", model_config_to_json(claimed)}},
                   {{"params", model.params().data(), model.params().size() * 4},
                    {"occupancy", occ.data(), occ.size() * 4}});
    EXPECT_RADIANT_ERROR(load_model_snapshot(path), "bad.radiant", "block 'params' holds");
    // Occupancy densities are >= 0, or -1 for a dead cell: NaN and other negatives are refused.
    for (float bad : {NAN, -0.5f}) {
        std::vector<float> occupancy = occ;
        occupancy[7] = -1.0f;  // dead: fine
        occupancy[9] = bad;
        write_snapshot(path,
                       {{"kind", "radiant-nerf"}, {"model", model_config_to_json(model.config())}},
                       {{"params", model.params().data(), model.params().size() * 4},
                        {"occupancy", occupancy.data(), occupancy.size() * 4}});
        EXPECT_RADIANT_ERROR(load_model_snapshot(path), "bad.radiant", "NaN or negative");
    }
    // A header field out of range is named.
    nlohmann::json cfg = model_config_to_json(model.config());
    cfg["field"]["levels"] = 1000;
    write_snapshot(path, {{"kind", "radiant-nerf"}, {"model", cfg}}, {});
    EXPECT_RADIANT_ERROR(load_model_snapshot(path), "bad.radiant",
                         "model.field.levels is out of range");
    cfg["field"]["levels"] = 16;
    cfg.erase("march");
    write_snapshot(path, {{"kind", "radiant-nerf"}, {"model", cfg}}, {});
    EXPECT_RADIANT_ERROR(load_model_snapshot(path), "bad.radiant", "has no");
    write_snapshot(path, {{"kind", "something-else"}}, {});
    EXPECT_RADIANT_ERROR(load_model_snapshot(path), "bad.radiant", "does not hold a NeRF model");
}

// The occupancy rule travels in the header; a header from before it had its own fields gets
// the rule that model trained with (0.01 over its own step, the mean over all cascades), so
// old snapshots render as they did.
TEST(ModelSnapshot, OccupancyRuleRoundTripsAndOldHeadersKeepTheirRule) {
    NerfModelConfig c = NerfModelConfig::for_scene(4.0f, {});
    c.match_pixel_footprint(3.0f * c.march.min_step);
    c.grid_threshold = 7.25f;
    c.grid_threshold_per_cascade = false;
    nlohmann::json j = model_config_to_json(c);
    NerfModelConfig back = model_config_from_json(j, "m.radiant");
    EXPECT_EQ(back.grid_threshold, 7.25f);
    EXPECT_FALSE(back.grid_threshold_per_cascade);
    j.erase("grid_threshold");
    j.erase("grid_threshold_per_cascade");
    back = model_config_from_json(j, "old.radiant");
    EXPECT_FLOAT_EQ(back.grid_threshold, 0.01f / c.march.min_step);
    EXPECT_FALSE(back.grid_threshold_per_cascade);
    // ... and the model's grid is built with that rule.
    const NerfModel old_model(back);
    EXPECT_FLOAT_EQ(old_model.grid().config().threshold, 0.01f / c.march.min_step);
    EXPECT_FALSE(old_model.grid().config().per_cascade_mean);
    j = model_config_to_json(NerfModelConfig::for_scene(4.0f, {}));
    back = model_config_from_json(j, "new.radiant");
    EXPECT_TRUE(back.grid_threshold_per_cascade);
    j["grid_threshold"] = -1.0f;
    EXPECT_RADIANT_ERROR(model_config_from_json(j, "bad.radiant"), "bad.radiant",
                         "model.grid_threshold is out of range");
}

TEST(ModelSnapshot, RefusesToSaveNonFiniteParameters) {
    ThreadPool pool(1);
    SmallScene scene(pool);
    NerfModel model(small_config(scene.train));
    model.init_params(1);
    const std::string path = scene.dir / "good.radiant";
    save_model_snapshot(path, model, nlohmann::json::array(), {});
    model.params()[5] = NAN;
    EXPECT_RADIANT_ERROR(save_model_snapshot(path, model, nlohmann::json::array(), {}),
                         "good.radiant", "non-finite");
    // The earlier snapshot is intact.
    LoadedModel loaded = load_model_snapshot(path);
    EXPECT_TRUE(std::isfinite(loaded.model->params()[5]));
}

TEST(ModelSnapshot, ResumeEqualsAnUninterruptedRun) {
    ThreadPool pool(2);
    SmallScene scene(pool);
    const NerfTrainConfig tc = small_train();
    // 40 steps straight (grid updates at 0, 16, 32).
    NerfModel straight(small_config(scene.train));
    straight.init_params(tc.seed);
    {
        NerfTrainer t(scene.images, straight, tc, pool);
        for (int i = 0; i < 40; ++i) t.step();
    }
    // 23 steps, snapshot, a fresh process-like restore, 17 more.
    const std::string path = scene.dir / "resume.radiant";
    {
        NerfModel first(small_config(scene.train));
        first.init_params(tc.seed);
        NerfTrainer t(scene.images, first, tc, pool);
        for (int i = 0; i < 23; ++i) t.step();
        {
            const SnapshotSection training = training_section(t, 0, {});
            save_model_snapshot(path, first, views_to_json(scene.images), {}, &training);
        }
    }
    LoadedModel loaded = load_model_snapshot(path);
    NerfTrainer resumed(scene.images, *loaded.model, tc, pool);
    restore_training_state(loaded.file, resumed);
    EXPECT_EQ(resumed.steps(), 23u);
    while (resumed.steps() < 40) resumed.step();
    const auto& a = straight.params();
    const auto& b = loaded.model->params();
    ASSERT_EQ(a.size(), b.size());
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i) differ += std::memcmp(&a[i], &b[i], 4) != 0;
    EXPECT_EQ(differ, 0u);
    EXPECT_EQ(straight.grid().densities(), loaded.model->grid().densities());
}

// An unbounded model's rays that leave an empty grid meet only the far sample: the pixel is
// the field's background colour (not the one passed in), and the depth and opacity extras,
// which describe the scene, say nothing is there.
TEST(RenderView, UnboundedBackgroundIsTheFieldsAndNotInDepthOrOpacity) {
    ThreadPool pool(2);
    SmallScene scene(pool);
    NerfModelConfig config = test::small_model_config(scene.train);
    config.make_unbounded(1.0f);
    NerfModel model(config);
    model.init_params(3);  // an empty grid: no cell is occupied yet
    const StagedImage& im = scene.images.images[0];
    const float bg[3] = {0.0f, 1.0f, 0.0f};
    ViewExtras extras;
    const ImageF img = render_view(model, im.camera, im.camera_to_world, bg, pool, &extras);
    for (int y = 0; y < img.height; y += 5)
        for (int x = 0; x < img.width; x += 5) {
            EXPECT_EQ(extras.opacity.at(x, y, 0), 0.0f);
            EXPECT_EQ(extras.depth.at(x, y, 0), 0.0f);
            EXPECT_LT(img.at(x, y, 1), 0.99f) << "the green background shows through";
        }
}

}  // namespace
}  // namespace radiant
