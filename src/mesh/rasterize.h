// A small z-buffer rasteriser for scoring meshes against photos: pinhole cameras in the
// transforms.json convention (camera-to-world, OpenGL axes), vertex colours interpolated
// perspective-correctly, no lighting (vertex colours are the radiance already).
#pragma once

#include <array>
#include <vector>

#include "core/thread_pool.h"
#include "io/image.h"
#include "io/mesh.h"
#include "io/transforms.h"

namespace radiant {

struct MeshRender {
    ImageF rgb;       // 3 channels, background where nothing is hit
    ImageF coverage;  // 1 channel, 1 where a triangle is visible
};

// Triangles with a corner behind the camera's near plane (0.01 world units) are skipped.
MeshRender rasterize_mesh(const Mesh& mesh, const CameraIntrinsics& camera,
                          const std::array<float, 16>& camera_to_world, const float background[3]);

struct RasterCamera {
    CameraIntrinsics camera;
    std::array<float, 16> camera_to_world{};
};

// Which triangles some camera sees (nearest at some pixel centre): 1 per visible triangle.
std::vector<uint8_t> visible_triangles(const Mesh& mesh, const std::vector<RasterCamera>& cameras,
                                       ThreadPool& pool);

}  // namespace radiant
