// Camera paths (the viewer's camera_path.json) through load_camera_path and
// camera_path_from_json, then what `radiant render --path` does with one: frame_count and
// sample_camera_path along the whole path; and a path that loaded must save and load again.
#include <cmath>
#include <cstdint>

#include "core/error.h"
#include "fuzz_util.h"
#include "scene/camera_path.h"

using namespace radiant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fuzz::Scratch scratch("camera_path");
    const std::string path = scratch.write("camera_path.json", data, size);
    try {
        const CameraPath p = load_camera_path(path);
        FUZZ_ASSERT(p.keyframes.size() >= 2);
        const int frames = p.frame_count();
        FUZZ_ASSERT(frames >= 1 && frames <= 240 * 3600 + 1);
        for (int i = 0; i <= 16; ++i) {
            const CameraKeyframe k = sample_camera_path(p, i / 16.0);
            (void)keyframe_matrix(k);
        }
        const CameraPath again = camera_path_from_json(camera_path_to_json(p), "round trip");
        FUZZ_ASSERT(again.keyframes.size() == p.keyframes.size());
        fuzz::accepted("load_camera_path");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    return 0;
}
