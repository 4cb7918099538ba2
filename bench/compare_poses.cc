// compare-poses ESTIMATED REFERENCE: how far the poses of one transforms file are from
// another's after the best similarity alignment (what `radiant prepare` is judged by).
#include <cstdio>

#include "core/error.h"
#include "io/transforms.h"
#include "prepare/pose_compare.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: compare-poses ESTIMATED_TRANSFORMS REFERENCE_TRANSFORMS\n");
        return 2;
    }
    try {
        const radiant::Dataset est = radiant::load_transforms(argv[1]);
        const radiant::Dataset ref = radiant::load_transforms(argv[2]);
        const radiant::PoseComparison c = radiant::compare_poses(est, ref);
        std::printf("matched %zu of %zu estimated / %zu reference frames (by image name)\n",
                    c.matched, est.frames.size(), ref.frames.size());
        std::printf("orientation error: mean %.3f deg, max %.3f deg\n", c.mean_rotation_error_deg,
                    c.max_rotation_error_deg);
        std::printf(
            "centre error: mean %.3f%%, max %.3f%% of the reference cameras' spread (RMS radius "
            "%.4g)\n",
            100 * c.mean_centre_error, 100 * c.max_centre_error, c.reference_spread);
        std::printf("similarity scale %.6g\n", c.estimated_to_reference.scale);
    } catch (const radiant::Error& e) {
        std::fprintf(stderr, "compare-poses: %s\n", e.what());
        return 2;
    }
    return 0;
}
