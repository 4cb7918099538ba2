// Writes small synthetic scenes (transforms json + PNG images) for loader tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "io/image.h"
#include "test_util.h"

namespace radiant::test {

inline nlohmann::json identity_matrix() {
    return nlohmann::json::array({{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 4}, {0, 0, 0, 1}});
}

// A NeRF-synthetic style scene: `n` RGBA PNGs of w x h, paths without extension.
inline nlohmann::json make_synthetic_scene(const TempDir& dir, int n, int w, int h) {
    std::filesystem::create_directories(dir.path() / "train");
    nlohmann::json j;
    j["camera_angle_x"] = 0.6911112070083618;
    j["frames"] = nlohmann::json::array();
    for (int i = 0; i < n; ++i) {
        ImageF img(w, h, 4);
        for (size_t k = 0; k < img.pixels.size(); ++k)
            img.pixels[k] = float((k * 13 + i) % 256) / 255.0f;
        save_png(dir / ("train/r_" + std::to_string(i) + ".png"), img);
        j["frames"].push_back({{"file_path", "./train/r_" + std::to_string(i)},
                               {"rotation", 0.1},
                               {"transform_matrix", identity_matrix()}});
    }
    write_text(dir / "transforms_train.json", j.dump(2));
    return j;
}

}  // namespace radiant::test
