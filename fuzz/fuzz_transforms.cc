// transforms.json in all three dialects (NeRF-synthetic, instant-ngp, nerfstudio) through
// load_transforms, then what training does next with each frame's camera.
//
// The input is written to a scratch folder that also holds small placeholder image files, so
// that file paths in the corpus resolve and the loader gets past frame 0: `a.png`, `b.jpg`,
// `images/0001.jpg`..`0003.jpg` (fox), `train/r_0.png`..`r_2.png` (lego, written without the
// extension). Their contents are never decoded: this fuzzes the JSON handling, not images.
#include <cmath>
#include <cstdint>

#include "core/error.h"
#include "fuzz_util.h"
#include "io/transforms.h"

using namespace radiant;

namespace {
const fuzz::Scratch& scratch() {
    static const fuzz::Scratch s("transforms");
    static const bool placeholders = [] {
        for (const char* name :
             {"a.png", "b.jpg", "images/0001.jpg", "images/0002.jpg", "images/0003.jpg",
              "train/r_0.png", "train/r_1.png", "train/r_2.png"})
            s.write(name, "not decoded");
        return true;
    }();
    (void)placeholders;
    return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const fuzz::Scratch& s = scratch();
    const std::string file = s.write("transforms.json", data, size);
    try {
        // Odd sizes go through the folder lookup, even ones name the file.
        Dataset ds = load_transforms(size % 2 ? s.dir().string() : file);
        FUZZ_ASSERT(!ds.frames.empty());
        FUZZ_ASSERT(std::isfinite(ds.scale) && ds.scale > 0 && std::isfinite(ds.aabb_scale) &&
                    ds.aabb_scale >= 1);
        for (float v : ds.offset) FUZZ_ASSERT(std::isfinite(v));
        for (Frame& f : ds.frames) {
            // What the loader promises past its checks: every number finite (as the float it is
            // kept in, not only as the double it was read as), sizes not negative.
            FUZZ_ASSERT(!f.image_path.empty());
            for (float v : f.camera_to_world) FUZZ_ASSERT(std::isfinite(v));
            const CameraIntrinsics& c = f.camera;
            FUZZ_ASSERT(c.width >= 0 && c.height >= 0);
            for (float v :
                 {c.fl_x, c.fl_y, c.cx, c.cy, c.k1, c.k2, c.k3, c.k4, c.p1, c.p2, f.sharpness,
                  c.camera_angle_x.value_or(1.0f), c.camera_angle_y.value_or(1.0f)})
                FUZZ_ASSERT(std::isfinite(v));
            if (f.camera.width <= 0) f.camera.width = 8;  // NeRF-synthetic: from the image
            if (f.camera.height <= 0) f.camera.height = 8;
            f.camera.resolve();
            (void)f.camera.downscaled(2);
        }
        if (ds.frames.size() >= 2) select_holdout(ds, 2, size % 3 == 0);
        fuzz::accepted("load_transforms");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    return 0;
}
