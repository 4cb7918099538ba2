// A triangle mesh with per-vertex normals and colours, as the mesh exporters write it.
#pragma once

#include <cstdint>
#include <vector>

namespace radiant {

struct Mesh {
    std::vector<float> positions;   // [n][3]
    std::vector<float> normals;     // [n][3] unit, or empty
    std::vector<uint8_t> colors;    // [n][3] sRGB, or empty
    std::vector<uint32_t> indices;  // [m][3], counter-clockwise seen from outside

    size_t vertex_count() const { return positions.size() / 3; }
    size_t triangle_count() const { return indices.size() / 3; }
};

}  // namespace radiant
