// Puts a posed capture into the frame Radiant (and instant-ngp) train well in: the cameras'
// mean up along +z, the point the cameras look at in the middle, the cameras at a mean
// distance of 4 from it, and an aabb_scale (a power of two, 1..128) that holds what they see.
// With the default instant-ngp scene transform (scale 0.33, offset 0.5) the centre lands in
// the middle of the unit cube and the cameras at about 1.3 from it.
//
// Used by `radiant prepare` (which writes the normalised poses) and by the nerfstudio reader
// (which keeps the file's poses and turns the same choice into `scale` and `offset`).
#pragma once

#include <vector>

#include "core/geometry.h"

namespace radiant {

struct PoseNormalization {
    Similarity to_scene;  // input world -> normalised frame (scale, rotation, translation)
    Vec3d centre;         // in the input world
    bool centre_from_points = false;  // the camera axes did not converge (e.g. forward-facing)
    float aabb_scale = 1;
};

// `rotations`/`centres`: camera-to-world poses in the OpenGL camera convention (x right, y up,
// looking down -z), input world units. `points`: sparse scene points (may be empty).
// `reorient`: rotate so the mean camera up is +z (else the rotation is the identity).
PoseNormalization normalize_poses(const std::vector<Mat3d>& rotations,
                                  const std::vector<Vec3d>& centres,
                                  const std::vector<Vec3d>& points, bool reorient);

// The mean camera distance from the centre after normalisation (instant-ngp's colmap2nerf).
constexpr double kNormalizedCameraDistance = 4.0;
// instant-ngp's default world -> unit-cube scale.
constexpr double kUnitCubeScale = 0.33;

}  // namespace radiant
