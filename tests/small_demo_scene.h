// A tiny demo scene (32x32 views) staged in memory, for tests that train a few steps.
#pragma once

#include "core/thread_pool.h"
#include "demo/demo_scene.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/model.h"
#include "test_util.h"
#include "train/trainer.h"

namespace radiant::test {

// Writes the built-in scene at 32x32 (12 training views) into `folder`: a few training steps
// take well under a second.
inline DemoScene write_tiny_demo_scene(const std::string& folder, int test_views = 2) {
    DemoSceneOptions o;
    o.width = o.height = 32;
    o.train_views = 12;
    o.test_views = test_views;
    o.supersampling = 1;
    return write_demo_scene(folder, o);
}

struct SmallDemoScene {
    TempDir dir;
    Dataset train;
    ImageSet images, val;  // 12 training views, 2 held-out views
    explicit SmallDemoScene(ThreadPool& pool) {
        const DemoScene s = write_tiny_demo_scene(dir / "scene");
        train = load_transforms(s.train_json);
        images = stage_images(train, {1}, pool);
        val = stage_images(load_transforms(s.test_json), {1}, pool);
    }
};

// The model and training configuration the small scene's training tests share: a 2^14 table, a
// 32^3 grid, 2^12 samples a step from 256 rays, seed 11.
inline NerfModelConfig small_model_config(const Dataset& d) {
    NerfModelConfig c = NerfModelConfig::for_dataset(d, 14);
    c.grid_resolution = 32;
    return c;
}

inline NerfTrainConfig small_train_config() {
    NerfTrainConfig t;
    t.target_samples = 1 << 12;
    t.initial_rays = 256;
    t.seed = 11;
    return t;
}

}  // namespace radiant::test
