// Renders views of a NerfModel: one ray per pixel centre, composited on a background colour.
#pragma once

#include <array>

#include "core/thread_pool.h"
#include "io/image.h"
#include "io/transforms.h"
#include "nerf/model.h"

namespace radiant {

// RGB image (values in [0, 1]) of the view from `camera_to_world` (world frame, OpenGL
// convention) through `camera`. Rows are rendered in parallel.
ImageF render_view(const NerfModel& model, const CameraIntrinsics& camera,
                   const std::array<float, 16>& camera_to_world, const float background[3],
                   ThreadPool& pool);

}  // namespace radiant
