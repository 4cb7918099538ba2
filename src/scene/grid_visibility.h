// Which occupancy-grid cells any training camera can see (instant-ngp's "untrained" cells).
//
// A cell that no training view looks into never receives a gradient, so its density stays
// whatever the initialisation and hash collisions give it: fog that training cannot remove,
// in front of held-out and novel views, and cells the grid update keeps evaluating for nothing.
// The trainer marks such cells dead (OccupancyGrid::mark_dead), so they are never occupied.
//
// The test is conservative: a cell counts as seen when its bounding sphere meets the view's
// frustum (the pyramid through the image's border, lens distortion included), so a cell that
// any pixel's ray crosses is always seen.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"
#include "scene/camera.h"
#include "scene/occupancy_grid.h"

namespace radiant {

// A view's pyramid of sight in the unit-cube frame: the camera centre, the pose's axes as
// camera_ray uses them (OpenCV convention: right, down, forward; not normalised: a pose need
// not be a pure rotation) and the bounds of x/z and y/z over the image.
struct ViewFrustum {
    Vec3 origin;
    Vec3 right, down, forward;
    float x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
    // No pyramid bounds the view (fisheye past 90 degrees, a lens model that does not invert,
    // a singular pose): every cell counts as seen.
    bool sees_everything = false;

    // 17 floats, for sending to other ranks.
    static constexpr size_t kFloats = 17;
    void pack(float* out) const;
    static ViewFrustum unpack(const float* in);
};

ViewFrustum view_frustum(const CameraIntrinsics& camera,
                         const std::array<float, 16>& camera_to_world, const SceneTransform& scene);

// Whether a sphere (unit-cube frame) meets the frustum.
bool frustum_meets_sphere(const ViewFrustum& f, const Vec3& centre, float radius);

// One byte per grid cell (the grid's layout: cascade-major): 1 where some view sees the cell.
std::vector<uint8_t> cells_seen_by(const OccupancyGrid& grid, const std::vector<ViewFrustum>& views,
                                   ThreadPool& pool);

}  // namespace radiant
