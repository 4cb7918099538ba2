// COLMAP sparse models through read_colmap_model, binary and text, then what `radiant prepare`
// does with a model it has read (colmap_intrinsics, colmap_camera_to_world, convert_colmap_model).
//
// Input: one selector byte, then the bytes of one file. Selector bit 0: binary (.bin) or text
// (.txt); (selector >> 1) % 3: which file the bytes replace (cameras, images, points3D). The
// other two files of the model come from a small valid model (two cameras, three images, four
// points) written once per process with write_colmap_model, so records that refer across files
// (an image's camera) can match.
#include <cmath>
#include <cstdint>

#include "colmap_seed.h"
#include "core/error.h"
#include "fuzz_util.h"
#include "prepare/colmap_convert.h"
#include "prepare/colmap_model.h"

using namespace radiant;

namespace {
// Folders txt0..txt2, bin0..bin2 holding the seed model; an input replaces file N in folder N.
const fuzz::Scratch& scratch() {
    static const fuzz::Scratch s("colmap");
    static const bool written = [] {
        const ColmapModel m = fuzz::colmap_seed_model();
        for (int binary = 0; binary < 2; ++binary)
            for (int file = 0; file < 3; ++file) {
                const std::string dir =
                    s.path(std::string(binary ? "bin" : "txt") + std::to_string(file));
                s.write(std::string(binary ? "bin" : "txt") + std::to_string(file) + "/.keep", "");
                write_colmap_model(m, dir, binary != 0);
            }
        return true;
    }();
    (void)written;
    return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const fuzz::Scratch& s = scratch();
    const bool binary = data[0] & 1;
    const int file = (data[0] >> 1) % 3;
    const std::string folder = std::string(binary ? "bin" : "txt") + std::to_string(file);
    s.write(folder + "/" + fuzz::kColmapStems[file] + (binary ? ".bin" : ".txt"), data + 1,
            size - 1);
    try {
        const ColmapModel model = read_colmap_model(s.path(folder));
        for (const ColmapCamera& c : model.cameras) {
            FUZZ_ASSERT(colmap_camera_model(c.model_id) != nullptr);
            try {
                const CameraIntrinsics k = colmap_intrinsics(c, "fuzz");
                FUZZ_ASSERT(k.width > 0 && k.height > 0 && k.fl_x > 0 && k.fl_y > 0);
                for (float v : {k.fl_x, k.fl_y, k.cx, k.cy, k.k1, k.k2, k.k3, k.k4, k.p1, k.p2})
                    FUZZ_ASSERT(std::isfinite(v));
                fuzz::accepted("colmap_intrinsics");
            } catch (const Error& e) {
                fuzz::rejected(e);
            }
        }
        for (const ColmapImage& im : model.images) {
            FUZZ_ASSERT(model.camera(im.camera_id) != nullptr);
            Mat3d r;
            Vec3d c;
            colmap_camera_to_world(im, r, c);
        }
        (void)model.mean_reprojection_error();
        const ConvertedScene scene = convert_colmap_model(model, s.path("images"), "fuzz");
        FUZZ_ASSERT(scene.dataset.frames.size() == model.images.size());
        fuzz::accepted("read_colmap_model + convert_colmap_model");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    return 0;
}
