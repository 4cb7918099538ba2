// Mesh clean-up after extraction: normals, dropping small disconnected pieces (floaters),
// simplification (meshoptimizer), and dropping unused vertices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/mesh.h"

namespace radiant {

// Area-weighted vertex normals from the triangles' winding (counter-clockwise = outward).
void compute_vertex_normals(Mesh& mesh);

// Connected components (through shared vertices) with fewer triangles than `min_fraction` of
// the largest one are removed. Returns the number of components removed.
size_t remove_small_components(Mesh& mesh, double min_fraction);

// Connected components of which fewer than `min_visible_fraction` of the triangles are
// flagged visible (cavity walls inside solid objects, never seen by a camera) are removed.
// Returns the number of components removed.
size_t remove_hidden_components(Mesh& mesh, const std::vector<uint8_t>& visible,
                                double min_visible_fraction);

// Simplifies to about `target_triangles` (meshoptimizer's edge collapse, which keeps the
// attribute-free topology and the border); no-op when the mesh is smaller already.
void simplify_mesh(Mesh& mesh, size_t target_triangles);

// Drops vertices no triangle uses, keeping the others' order.
void compact_vertices(Mesh& mesh);

// Counts for topology checks: edges used once (holes) or more than twice (non-manifold), and
// the Euler characteristic V - E + F over the used vertices.
struct MeshTopology {
    size_t boundary_edges = 0, nonmanifold_edges = 0, edges = 0, used_vertices = 0;
    size_t misoriented_edges = 0;  // used twice in the same direction (inconsistent winding)
    long long euler = 0;
};
MeshTopology mesh_topology(const Mesh& mesh);

}  // namespace radiant
