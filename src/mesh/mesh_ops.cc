#include "mesh/mesh_ops.h"

#include <meshoptimizer.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace radiant {

void compute_vertex_normals(Mesh& m) {
    const size_t n = m.vertex_count();
    std::vector<double> acc(3 * n, 0.0);
    for (size_t t = 0; t < m.triangle_count(); ++t) {
        const uint32_t* f = &m.indices[3 * t];
        const float* a = &m.positions[3 * size_t(f[0])];
        const float* b = &m.positions[3 * size_t(f[1])];
        const float* c = &m.positions[3 * size_t(f[2])];
        const double u[3] = {double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]};
        const double v[3] = {double(c[0]) - a[0], double(c[1]) - a[1], double(c[2]) - a[2]};
        const double cr[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                              u[0] * v[1] - u[1] * v[0]};
        for (int k = 0; k < 3; ++k)  // the cross product's length is twice the area: area-weighted
            for (int d = 0; d < 3; ++d) acc[3 * size_t(f[k]) + size_t(d)] += cr[d];
    }
    m.normals.assign(3 * n, 0.0f);
    for (size_t i = 0; i < n; ++i) {
        const double len = std::sqrt(acc[3 * i] * acc[3 * i] + acc[3 * i + 1] * acc[3 * i + 1] +
                                     acc[3 * i + 2] * acc[3 * i + 2]);
        if (len > 0)
            for (int d = 0; d < 3; ++d)
                m.normals[3 * i + size_t(d)] = float(acc[3 * i + size_t(d)] / len);
        else
            m.normals[3 * i + 2] = 1.0f;
    }
}

namespace {
uint32_t find(std::vector<uint32_t>& parent, uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}
}  // namespace

namespace {

// Component root of every vertex (union-find through the triangles).
std::vector<uint32_t> vertex_components(const Mesh& m) {
    std::vector<uint32_t> parent(m.vertex_count());
    std::iota(parent.begin(), parent.end(), 0u);
    for (size_t t = 0; t < m.triangle_count(); ++t)
        for (int k = 1; k < 3; ++k) {
            const uint32_t a = find(parent, m.indices[3 * t]),
                           b = find(parent, m.indices[3 * t + size_t(k)]);
            if (a != b) parent[std::max(a, b)] = std::min(a, b);
        }
    for (uint32_t i = 0; i < parent.size(); ++i) parent[i] = find(parent, i);
    return parent;
}

// Keeps the triangles whose component passes `keep(component root)`; returns components dropped.
template <class Keep>
size_t keep_components(Mesh& m, const std::vector<uint32_t>& root,
                       const std::vector<size_t>& triangles, Keep&& keep) {
    size_t removed = 0;
    for (size_t i = 0; i < root.size(); ++i)
        if (root[i] == i && triangles[i] > 0 && !keep(uint32_t(i))) ++removed;
    std::vector<uint32_t> kept;
    kept.reserve(m.indices.size());
    for (size_t t = 0; t < m.triangle_count(); ++t)
        if (keep(root[m.indices[3 * t]]))
            kept.insert(kept.end(), &m.indices[3 * t], &m.indices[3 * t] + 3);
    m.indices = std::move(kept);
    compact_vertices(m);
    return removed;
}

}  // namespace

size_t remove_small_components(Mesh& m, double min_fraction) {
    if (m.triangle_count() == 0 || min_fraction <= 0) return 0;
    const std::vector<uint32_t> root = vertex_components(m);
    std::vector<size_t> count(m.vertex_count(), 0);
    for (size_t t = 0; t < m.triangle_count(); ++t) ++count[root[m.indices[3 * t]]];
    const double keep_from = min_fraction * double(*std::max_element(count.begin(), count.end()));
    return keep_components(m, root, count,
                           [&](uint32_t c) { return double(count[c]) >= keep_from; });
}

size_t remove_hidden_components(Mesh& m, const std::vector<uint8_t>& visible,
                                double min_visible_fraction) {
    RD_CHECK(visible.size() == m.triangle_count());
    if (m.triangle_count() == 0) return 0;
    const std::vector<uint32_t> root = vertex_components(m);
    std::vector<size_t> count(m.vertex_count(), 0), seen(m.vertex_count(), 0);
    for (size_t t = 0; t < m.triangle_count(); ++t) {
        ++count[root[m.indices[3 * t]]];
        seen[root[m.indices[3 * t]]] += visible[t];
    }
    return keep_components(m, root, count, [&](uint32_t c) {
        return double(seen[c]) >= min_visible_fraction * double(count[c]);
    });
}

void simplify_mesh(Mesh& m, size_t target_triangles) {
    if (target_triangles == 0 || m.triangle_count() <= target_triangles) return;
    std::vector<uint32_t> out(m.indices.size());
    // A loose error bound: the triangle count is what the user asked for.
    const size_t count = meshopt_simplify(out.data(), m.indices.data(), m.indices.size(),
                                          m.positions.data(), m.vertex_count(), 3 * sizeof(float),
                                          3 * target_triangles, 0.05f, 0, nullptr);
    out.resize(count);
    m.indices = std::move(out);
    compact_vertices(m);
}

void compact_vertices(Mesh& m) {
    const size_t n = m.vertex_count();
    std::vector<uint32_t> remap(n, UINT32_MAX);
    uint32_t next = 0;
    for (uint32_t& i : m.indices) {
        if (remap[i] == UINT32_MAX) remap[i] = UINT32_MAX - 1;  // mark used
    }
    for (size_t i = 0; i < n; ++i)
        if (remap[i] != UINT32_MAX) remap[i] = next++;
    auto squeeze = [&](auto& v, size_t per) {
        if (v.empty()) return;
        for (size_t i = 0; i < n; ++i)
            if (remap[i] != UINT32_MAX)
                for (size_t k = 0; k < per; ++k) v[per * remap[i] + k] = v[per * i + k];
        v.resize(per * next);
    };
    squeeze(m.positions, 3);
    squeeze(m.normals, 3);
    squeeze(m.colors, 3);
    for (uint32_t& i : m.indices) i = remap[i];
}

MeshTopology mesh_topology(const Mesh& m) {
    MeshTopology t;
    std::vector<uint64_t> edges;
    edges.reserve(m.indices.size());
    std::vector<uint8_t> used(m.vertex_count(), 0);
    for (size_t f = 0; f < m.triangle_count(); ++f)
        for (int k = 0; k < 3; ++k) {
            const uint32_t a = m.indices[3 * f + size_t(k)],
                           b = m.indices[3 * f + size_t((k + 1) % 3)];
            used[a] = 1;
            // Low bit: the direction, so that a consistently wound pair differs only there.
            edges.push_back((uint64_t(std::min(a, b)) << 32 | std::max(a, b)) << 1 |
                            (a < b ? 1u : 0u));
        }
    std::sort(edges.begin(), edges.end());
    for (size_t i = 0; i < edges.size();) {
        size_t j = i;
        while (j < edges.size() && edges[j] >> 1 == edges[i] >> 1) ++j;
        ++t.edges;
        if (j - i == 1) ++t.boundary_edges;
        if (j - i > 2) ++t.nonmanifold_edges;
        if (j - i == 2 && edges[i] == edges[i + 1]) ++t.misoriented_edges;
        i = j;
    }
    for (uint8_t u : used) t.used_vertices += u;
    t.euler = (long long)t.used_vertices - (long long)t.edges + (long long)m.triangle_count();
    return t;
}

}  // namespace radiant
