// Marching cubes over a sparse lattice: only blocks near the surface are evaluated, so time and
// memory grow with the surface area, not with the lattice volume.
//
// The case table is built at start-up from one rule instead of being typed in: on each cube
// face, every run of inside corners is cut off by its own segment (inside corners are never
// joined across a face). The rule depends only on a face's four values, so the two cubes that
// share a face always cut it the same way, and the surface has no cracks. Each cube's face
// segments chain into closed loops, fanned into triangles wound counter-clockwise seen from
// outside (the low side), so normals point from high to low values.
//
// Values beyond the lattice count as outside: a surface cut by the lattice's box is capped,
// and every extracted surface is closed (each edge shared by exactly two triangles).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/thread_pool.h"
#include "io/mesh.h"

namespace radiant {

struct Lattice {
    std::array<double, 3> origin{};  // position of vertex (0, 0, 0)
    double spacing = 1;              // between neighbouring vertices
    std::array<int, 3> vertices{};   // vertex count per axis (cells = vertices - 1)
};

struct IsoSurfaceOptions {
    float threshold = 0;  // inside: value > threshold
    int block = 8;        // cells per block side
    // Count enclosed outside pockets (cavities no path from the lattice's border reaches) as
    // inside, so the walls of hollows within solid objects are not meshed.
    bool fill_cavities = false;
};

// Values at n lattice points pos[3*i..3*i+2] -> out[i]. Called from the pool's threads, one
// block at a time (n <= (block)^3), with the thread's index for per-thread scratch.
using ValueFn = std::function<void(const float* pos, size_t n, float* out, int thread)>;

struct IsoSurfaceStats {
    size_t blocks_evaluated = 0;
    size_t blocks_triangulated = 0;
    size_t values_evaluated = 0;
    size_t values_filled = 0;  // outside values inside cavities, counted as inside
};

// `seed_points`: lattice vertex indices (x, y, z) near which surface may start (e.g. the corners
// of occupied cells); the extraction grows from their blocks along the surface, block by block,
// and finds each connected surface that passes through a seed block. Positions passed to
// `values` are origin + index * spacing. Vertices are shared through their lattice edge, so the
// result is indexed (no duplicate vertices).
Mesh extract_isosurface(const Lattice& lattice, const std::vector<std::array<int, 3>>& seed_points,
                        const ValueFn& values, const IsoSurfaceOptions& options, ThreadPool& pool,
                        IsoSurfaceStats* stats = nullptr);

// The triangles of one cube's case: for each triangle, three cube edges (0..11) whose
// crossings are its corners. Corner c is at (c & 1, c >> 1 & 1, c >> 2); edge e joins the
// corners of kEdgeCorners[e]. Exposed for tests.
const std::vector<std::array<uint8_t, 3>>& marching_cubes_case(int inside_mask);
extern const std::array<std::array<int, 2>, 12> kCubeEdgeCorners;

}  // namespace radiant
