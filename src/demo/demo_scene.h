// The built-in demo scene: a few textured analytic objects (spheres, a rotated box, a ground
// disc) rendered exactly by a small ray tracer of ours into a NeRF-synthetic style dataset:
// transforms_train.json / transforms_test.json and RGBA PNGs (transparent background).
// Shading is Lambertian under a fixed light, so colours do not depend on the view.
#pragma once

#include <string>

namespace radiant {

struct DemoSceneOptions {
    int width = 128, height = 128;
    int train_views = 48;
    int test_views = 8;
    int supersampling = 3;  // per axis: anti-aliased edges and texture
    // Multiply every surface by a fine value-noise pattern: the blob-rich texture that feature
    // matchers (COLMAP's SIFT) need to find the poses of the views again.
    bool feature_texture = false;
    // Views along one smooth orbit (for making a video) instead of a spiral over the hemisphere.
    bool orbit_path = false;
};

struct DemoScene {
    std::string folder;
    std::string train_json, test_json;
};

// Distance (world units) from a point to the nearest surface of the scene's objects: how far
// a reconstructed surface (an exported mesh) is from the truth.
float demo_scene_distance(float x, float y, float z);

// Writes the dataset into `folder` (created if needed; files are replaced).
DemoScene write_demo_scene(const std::string& folder, const DemoSceneOptions& options = {});

}  // namespace radiant
