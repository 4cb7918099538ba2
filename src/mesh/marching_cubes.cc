#include "mesh/marching_cubes.h"

#include <algorithm>
#include <mutex>

#include "core/error.h"

namespace radiant {

// Corner c sits at (c & 1, c >> 1 & 1, c >> 2). Edges 0-3 run along x, 4-7 along y, 8-11
// along z; each pair starts at the corner with the lower coordinate.
const std::array<std::array<int, 2>, 12> kCubeEdgeCorners = {{{0, 1},
                                                              {2, 3},
                                                              {4, 5},
                                                              {6, 7},
                                                              {0, 2},
                                                              {1, 3},
                                                              {4, 6},
                                                              {5, 7},
                                                              {0, 4},
                                                              {1, 5},
                                                              {2, 6},
                                                              {3, 7}}};

namespace {

// Each face's corners, counter-clockwise seen from outside the cube: -x, +x, -y, +y, -z, +z.
constexpr int kFaces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                              {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};

int edge_between(int a, int b) {
    for (int e = 0; e < 12; ++e)
        if ((kCubeEdgeCorners[size_t(e)][0] == a && kCubeEdgeCorners[size_t(e)][1] == b) ||
            (kCubeEdgeCorners[size_t(e)][0] == b && kCubeEdgeCorners[size_t(e)][1] == a))
            return e;
    RD_CHECK(false);
    return -1;
}

bool on_common_face(int e1, int e2) {
    for (const auto& face : kFaces) {
        auto has = [&](int c) {
            return c == face[0] || c == face[1] || c == face[2] || c == face[3];
        };
        if (has(kCubeEdgeCorners[size_t(e1)][0]) && has(kCubeEdgeCorners[size_t(e1)][1]) &&
            has(kCubeEdgeCorners[size_t(e2)][0]) && has(kCubeEdgeCorners[size_t(e2)][1]))
            return true;
    }
    return false;
}

// A triangle corner: a cube edge's crossing (0..11), or the centre of loop k (12 + k).
struct CaseTable {
    std::vector<std::array<uint8_t, 3>> triangles;
    std::vector<std::vector<uint8_t>> centred_loops;  // loops fanned around their centre
};

std::array<CaseTable, 256> build_table() {
    std::array<CaseTable, 256> table;
    for (int mask = 1; mask < 255; ++mask) {
        auto inside = [&](int c) { return (mask >> c) & 1; };
        // On each face, walking counter-clockwise: a crossing into an inside run (entry) is
        // joined to the crossing out of the same run (exit). The loop then keeps the inside on
        // its right seen from outside, which winds the fan triangles outward.
        int next[12];
        std::fill(next, next + 12, -1);
        for (const auto& face : kFaces) {
            for (int i = 0; i < 4; ++i) {
                const int a = face[i], b = face[(i + 1) % 4];
                if (inside(a) || !inside(b)) continue;  // not an entry
                for (int j = 1; j <= 4; ++j) {
                    const int c = face[(i + j) % 4], d = face[(i + j + 1) % 4];
                    if (inside(c) && !inside(d)) {
                        next[edge_between(a, b)] = edge_between(c, d);
                        break;
                    }
                }
            }
        }
        bool used[12] = {};
        CaseTable& t = table[size_t(mask)];
        for (int start = 0; start < 12; ++start) {
            if (next[start] < 0 || used[start]) continue;
            std::vector<uint8_t> loop;
            for (int e = start; !used[e]; e = next[e]) {
                used[e] = true;
                loop.push_back(uint8_t(e));
                RD_CHECK(next[e] >= 0);
            }
            // Fan from a corner whose diagonals all cross the cube's inside: a diagonal between
            // two crossings on one face could also be drawn by the cube across that face, and
            // four triangles would then share an edge. Without such a corner, fan around the
            // loop's centre instead (a vertex of this cube alone).
            const size_t n = loop.size();
            int apex = -1;
            for (size_t a = 0; a < n && apex < 0; ++a) {
                bool ok = true;
                for (size_t k = 2; k + 1 < n && ok; ++k)
                    ok = !on_common_face(loop[a], loop[(a + k) % n]);
                if (ok) apex = int(a);
            }
            if (apex >= 0) {
                for (size_t k = 1; k + 1 < n; ++k)
                    t.triangles.push_back({loop[size_t(apex)], loop[(size_t(apex) + k) % n],
                                           loop[(size_t(apex) + k + 1) % n]});
            } else {
                const uint8_t centre = uint8_t(12 + t.centred_loops.size());
                for (size_t k = 0; k < n; ++k)
                    t.triangles.push_back({centre, loop[k], loop[(k + 1) % n]});
                t.centred_loops.push_back(loop);
            }
        }
    }
    return table;
}

const std::array<CaseTable, 256>& table() {
    static const auto t = build_table();
    return t;
}

// Keys of vertices: lattice edge (3 * vertex + axis), or a loop centre inside a cell.
constexpr uint64_t kCentreKey = uint64_t(1) << 63;

struct Crossing {
    uint64_t key;
    float pos[3];
};

struct BlockOutput {
    std::vector<uint64_t> triangle_edges;  // 3 per triangle
    std::vector<Crossing> crossings;
    std::vector<std::array<int, 3>> activate;  // neighbouring blocks the surface runs into
};

}  // namespace

const std::vector<std::array<uint8_t, 3>>& marching_cubes_case(int inside_mask) {
    RD_CHECK(inside_mask >= 0 && inside_mask < 256);
    return table()[size_t(inside_mask)].triangles;
}

Mesh extract_isosurface(const Lattice& lattice, const std::vector<std::array<int, 3>>& seed_points,
                        const ValueFn& values, const IsoSurfaceOptions& o, ThreadPool& pool,
                        IsoSurfaceStats* stats) {
    const int B = o.block;
    RD_CHECK(B >= 2);
    for (int a = 0; a < 3; ++a) RD_CHECK(lattice.vertices[size_t(a)] >= 2);
    // Padded vertex indices: p = v + 1, with p = 0 and p = N + 1 the outside border that caps
    // the surface. Cells p = 0..N; block b holds cells (and owns vertices) [b B, b B + B).
    std::array<int, 3> P{}, nb{};
    for (int a = 0; a < 3; ++a) {
        P[size_t(a)] = lattice.vertices[size_t(a)] + 2;
        nb[size_t(a)] = (P[size_t(a)] + B - 1) / B;  // blocks covering every padded vertex
    }
    const size_t n_blocks = size_t(nb[0]) * size_t(nb[1]) * size_t(nb[2]);
    auto block_index = [&](int x, int y, int z) {
        return (size_t(z) * size_t(nb[1]) + size_t(y)) * size_t(nb[0]) + size_t(x);
    };
    const float outside = o.threshold - 1.0f;
    const size_t block_values = size_t(B) * size_t(B) * size_t(B);

    std::vector<int32_t> slot(n_blocks, -1);  // block -> index into storage, once evaluated
    std::vector<std::vector<float>> storage;
    std::vector<uint8_t> processed(n_blocks, 0);
    IsoSurfaceStats st;

    auto value_at = [&](int px, int py, int pz) -> float {
        const int32_t s = slot[block_index(px / B, py / B, pz / B)];
        RD_DCHECK(s >= 0);
        return storage[size_t(s)]
                      [(size_t(pz % B) * size_t(B) + size_t(py % B)) * size_t(B) + size_t(px % B)];
    };

    auto evaluate = [&](const std::vector<std::array<int, 3>>& blocks) {
        const size_t first = storage.size();
        storage.resize(first + blocks.size());
        std::vector<std::vector<float>> pos(size_t(pool.size()));
        std::vector<std::vector<size_t>> where(size_t(pool.size()));
        std::vector<size_t> counts(blocks.size(), 0);
        pool.parallel_for(blocks.size(), [&](size_t i, int t) {
            const auto& b = blocks[i];
            std::vector<float>& out = storage[first + i];
            out.assign(block_values, outside);
            std::vector<float>& p = pos[size_t(t)];
            std::vector<size_t>& w = where[size_t(t)];
            p.clear();
            w.clear();
            for (int z = 0; z < B; ++z)
                for (int y = 0; y < B; ++y)
                    for (int x = 0; x < B; ++x) {
                        const int q[3] = {b[0] * B + x, b[1] * B + y, b[2] * B + z};
                        bool real = true;
                        for (int a = 0; a < 3; ++a)
                            real = real && q[a] >= 1 && q[a] <= lattice.vertices[size_t(a)];
                        if (!real) continue;
                        for (int a = 0; a < 3; ++a)
                            p.push_back(float(lattice.origin[size_t(a)] +
                                              double(q[a] - 1) * lattice.spacing));
                        w.push_back((size_t(z) * size_t(B) + size_t(y)) * size_t(B) + size_t(x));
                    }
            if (w.empty()) return;
            std::vector<float> v(w.size());
            values(p.data(), w.size(), v.data(), t);
            for (size_t k = 0; k < w.size(); ++k) out[w[k]] = v[k];
            counts[i] = w.size();
        });
        for (size_t i = 0; i < blocks.size(); ++i) {
            slot[block_index(blocks[i][0], blocks[i][1], blocks[i][2])] = int32_t(first + i);
            st.values_evaluated += counts[i];
        }
        st.blocks_evaluated += blocks.size();
    };

    auto triangulate = [&](const std::array<int, 3>& b, BlockOutput& out) {
        const auto& tab = table();
        for (int lz = 0; lz < B; ++lz)
            for (int ly = 0; ly < B; ++ly)
                for (int lx = 0; lx < B; ++lx) {
                    const int c[3] = {b[0] * B + lx, b[1] * B + ly, b[2] * B + lz};
                    if (c[0] > P[0] - 2 || c[1] > P[1] - 2 || c[2] > P[2] - 2)
                        continue;  // no cell there
                    float v[8];
                    int mask = 0;
                    for (int k = 0; k < 8; ++k) {
                        v[k] = value_at(c[0] + (k & 1), c[1] + (k >> 1 & 1), c[2] + (k >> 2));
                        mask |= (v[k] > o.threshold ? 1 : 0) << k;
                    }
                    if (mask == 0 || mask == 255) continue;
                    const CaseTable& ct = tab[size_t(mask)];
                    const uint64_t cell =
                        (uint64_t(c[2]) * uint64_t(P[1]) + uint64_t(c[1])) * uint64_t(P[0]) +
                        uint64_t(c[0]);
                    auto edge_key = [&](int e) {
                        const int a = kCubeEdgeCorners[size_t(e)][0];
                        const uint64_t base = (uint64_t(c[2] + (a >> 2)) * uint64_t(P[1]) +
                                               uint64_t(c[1] + (a >> 1 & 1))) *
                                                  uint64_t(P[0]) +
                                              uint64_t(c[0] + (a & 1));
                        return base * 3 + uint64_t(e / 4);
                    };
                    // Crossing point of edge e: linear in the values, kept off the corners so that
                    // no triangle collapses to a point.
                    auto edge_point = [&](int e, float* out) {
                        const int a = kCubeEdgeCorners[size_t(e)][0],
                                  bb = kCubeEdgeCorners[size_t(e)][1], axis = e / 4;
                        const int ca[3] = {c[0] + (a & 1), c[1] + (a >> 1 & 1), c[2] + (a >> 2)};
                        float t =
                            std::clamp((o.threshold - v[a]) / (v[bb] - v[a]), 1e-4f, 1.0f - 1e-4f);
                        // A cap against the outside border lies on the lattice's box.
                        if (ca[axis] == 0) t = 1.0f - 1e-4f;
                        if (ca[axis] + 1 == P[size_t(axis)] - 1) t = 1e-4f;
                        for (int k = 0; k < 3; ++k)
                            out[k] = float(lattice.origin[size_t(k)] +
                                           (double(ca[k] - 1) + (k == axis ? double(t) : 0.0)) *
                                               lattice.spacing);
                    };
                    // Each crossed lattice edge is written once, by the cell it leaves from corner
                    // 0 (edges 0, 4, 8): the four cells around a crossed edge are all crossed, so
                    // that cell is always triangulated too.
                    for (int e : {0, 4, 8}) {
                        const int a = kCubeEdgeCorners[size_t(e)][0],
                                  bb = kCubeEdgeCorners[size_t(e)][1];
                        if (((mask >> a) & 1) == ((mask >> bb) & 1)) continue;
                        Crossing x;
                        x.key = edge_key(e);
                        edge_point(e, x.pos);
                        out.crossings.push_back(x);
                    }
                    for (const auto& tri : ct.triangles)
                        for (uint8_t e : tri)
                            out.triangle_edges.push_back(
                                e >= 12 ? kCentreKey | (cell * 4 + uint64_t(e - 12)) : edge_key(e));
                    for (size_t l = 0; l < ct.centred_loops.size();
                         ++l) {  // a loop's centre: this cell's own vertex
                        Crossing x;
                        x.key = kCentreKey | (cell * 4 + l);
                        float sum[3] = {0, 0, 0}, p[3];
                        for (uint8_t e : ct.centred_loops[l]) {
                            edge_point(e, p);
                            for (int k = 0; k < 3; ++k) sum[k] += p[k];
                        }
                        for (int k = 0; k < 3; ++k)
                            x.pos[k] = sum[k] / float(ct.centred_loops[l].size());
                        out.crossings.push_back(x);
                    }
                    // The surface leaves through a mixed face on the block's border: the cell
                    // across it (in the neighbouring block) is crossed too.
                    const int local[3] = {lx, ly, lz};
                    for (int axis = 0; axis < 3; ++axis)
                        for (int side = 0; side < 2; ++side) {
                            if (local[axis] != (side ? B - 1 : 0)) continue;
                            const int* f = kFaces[axis * 2 + side];
                            const int m0 = (mask >> f[0]) & 1;
                            bool mixed = false;
                            for (int k = 1; k < 4; ++k) mixed = mixed || ((mask >> f[k]) & 1) != m0;
                            if (!mixed) continue;
                            std::array<int, 3> nbk = b;
                            nbk[size_t(axis)] += side ? 1 : -1;
                            out.activate.push_back(nbk);
                        }
                }
    };

    // First wave: the blocks holding the seeds' cells (and the cells just before them).
    std::vector<std::array<int, 3>> wave;
    {
        std::vector<uint8_t> seen(n_blocks, 0);
        for (const auto& s : seed_points)
            for (int d = 0; d < 8; ++d) {
                std::array<int, 3> b;
                bool ok = true;
                for (int a = 0; a < 3; ++a) {
                    const int p = std::clamp(s[size_t(a)], 0, lattice.vertices[size_t(a)] - 1) + 1 -
                                  ((d >> a) & 1);
                    b[size_t(a)] = p / B;
                    ok = ok && p >= 0;
                }
                if (!ok) continue;
                const size_t i = block_index(b[0], b[1], b[2]);
                if (!seen[i]) seen[i] = 1, wave.push_back(b);
            }
    }
    std::vector<BlockOutput> outputs;
    while (!wave.empty()) {
        // Every block whose values the wave's cells read: the block and its + neighbours.
        std::vector<std::array<int, 3>> need;
        for (const auto& b : wave)
            for (int d = 0; d < 8; ++d) {
                const std::array<int, 3> q = {b[0] + (d & 1), b[1] + (d >> 1 & 1), b[2] + (d >> 2)};
                if (q[0] >= nb[0] || q[1] >= nb[1] || q[2] >= nb[2]) continue;
                const size_t i = block_index(q[0], q[1], q[2]);
                if (slot[i] == -1) slot[i] = -2, need.push_back(q);  // -2: queued
            }
        evaluate(need);
        const size_t first = outputs.size();
        outputs.resize(first + wave.size());
        pool.parallel_for(wave.size(),
                          [&](size_t i, int) { triangulate(wave[i], outputs[first + i]); });
        for (const auto& b : wave) processed[block_index(b[0], b[1], b[2])] = 1;
        st.blocks_triangulated += wave.size();
        std::vector<std::array<int, 3>> next;
        for (size_t i = first; i < outputs.size(); ++i) {
            for (const auto& q : outputs[i].activate) {
                if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= nb[0] || q[1] >= nb[1] ||
                    q[2] >= nb[2])
                    continue;
                const size_t k = block_index(q[0], q[1], q[2]);
                if (!processed[k])
                    processed[k] = 2, next.push_back(q);  // 2: queued for the next wave
            }
            outputs[i].activate.clear();
        }
        wave = std::move(next);
    }

    if (o.fill_cavities) {
        // Flood the outside from the lattice's border: through outside vertices of evaluated
        // blocks one vertex at a time, through never-evaluated blocks (far from any surface,
        // so outside) a whole block at a time. What the flood misses is enclosed: make it inside
        // and mesh the processed blocks again.
        const size_t BB = block_values;
        std::vector<std::vector<uint8_t>> reached(storage.size());
        for (size_t i = 0; i < storage.size(); ++i) reached[i].assign(BB, 0);
        std::vector<uint8_t> block_reached(n_blocks, 0);
        std::vector<uint32_t> vertex_queue;  // slot * B^3 + local index
        std::vector<uint32_t> block_queue;   // block index (never evaluated)
        auto block_coords = [&](size_t bi) {
            return std::array<int, 3>{int(bi % size_t(nb[0])),
                                      int(bi / size_t(nb[0]) % size_t(nb[1])),
                                      int(bi / (size_t(nb[0]) * size_t(nb[1])))};
        };
        auto visit_vertex = [&](int px, int py, int pz) {
            if (px < 0 || py < 0 || pz < 0 || px >= nb[0] * B || py >= nb[1] * B || pz >= nb[2] * B)
                return;
            const size_t bi = block_index(px / B, py / B, pz / B);
            const int32_t sl = slot[bi];
            if (sl < 0) {
                if (!block_reached[bi]) block_reached[bi] = 1, block_queue.push_back(uint32_t(bi));
                return;
            }
            const size_t local =
                (size_t(pz % B) * size_t(B) + size_t(py % B)) * size_t(B) + size_t(px % B);
            if (reached[size_t(sl)][local] || storage[size_t(sl)][local] > o.threshold) return;
            reached[size_t(sl)][local] = 1;
            vertex_queue.push_back(uint32_t(size_t(sl) * BB + local));
        };
        // Seeds: the border layer of padded vertices (outside by construction).
        for (int z = 0; z < P[2]; ++z)
            for (int y = 0; y < P[1]; ++y)
                for (int x = 0; x < P[0]; ++x)
                    if (x == 0 || y == 0 || z == 0 || x == P[0] - 1 || y == P[1] - 1 ||
                        z == P[2] - 1) {
                        visit_vertex(x, y, z);
                    } else if (x == 1 && y > 0 && z > 0 && y < P[1] - 1 && z < P[2] - 1) {
                        x = P[0] - 2;  // skip the interior of this row
                    }
        std::vector<std::array<int, 3>> slot_block(storage.size());
        for (size_t bi = 0; bi < n_blocks; ++bi)
            if (slot[bi] >= 0) slot_block[size_t(slot[bi])] = block_coords(bi);
        while (!vertex_queue.empty() || !block_queue.empty()) {
            while (!vertex_queue.empty()) {
                const uint32_t id = vertex_queue.back();
                vertex_queue.pop_back();
                const auto& b = slot_block[id / BB];
                const size_t local = id % BB;
                const int px = b[0] * B + int(local % size_t(B)),
                          py = b[1] * B + int(local / size_t(B) % size_t(B)),
                          pz = b[2] * B + int(local / (size_t(B) * size_t(B)));
                visit_vertex(px - 1, py, pz), visit_vertex(px + 1, py, pz);
                visit_vertex(px, py - 1, pz), visit_vertex(px, py + 1, pz);
                visit_vertex(px, py, pz - 1), visit_vertex(px, py, pz + 1);
            }
            while (!block_queue.empty()) {
                const auto b = block_coords(block_queue.back());
                block_queue.pop_back();
                // Into each face neighbour: the layer of its vertices facing this block.
                for (int axis = 0; axis < 3; ++axis)
                    for (int side = 0; side < 2; ++side) {
                        const int u = (axis + 1) % 3, w = (axis + 2) % 3;
                        for (int i = 0; i < B; ++i)
                            for (int j = 0; j < B; ++j) {
                                int q[3];
                                q[axis] =
                                    side ? (b[size_t(axis)] + 1) * B : b[size_t(axis)] * B - 1;
                                q[u] = b[size_t(u)] * B + i;
                                q[w] = b[size_t(w)] * B + j;
                                visit_vertex(q[0], q[1], q[2]);
                            }
                    }
            }
        }
        for (size_t sl = 0; sl < storage.size(); ++sl)
            for (size_t k = 0; k < BB; ++k)
                if (!reached[sl][k] && storage[sl][k] <= o.threshold) {
                    storage[sl][k] = o.threshold + 1.0f;
                    ++st.values_filled;
                }
        if (st.values_filled > 0) {
            std::vector<std::array<int, 3>> again;
            for (size_t bi = 0; bi < n_blocks; ++bi)
                if (processed[bi] == 1) again.push_back(block_coords(bi));
            outputs.assign(again.size(), BlockOutput{});
            pool.parallel_for(again.size(),
                              [&](size_t i, int) { triangulate(again[i], outputs[i]); });
        }
    }

    // Vertices: one per crossed lattice edge.
    std::vector<Crossing> all;
    size_t tris = 0;
    for (const auto& out : outputs) tris += out.crossings.size();
    all.reserve(tris);
    tris = 0;
    for (auto& out : outputs) {
        all.insert(all.end(), out.crossings.begin(), out.crossings.end());
        std::vector<Crossing>().swap(out.crossings);
        tris += out.triangle_edges.size();
    }
    std::sort(all.begin(), all.end(),
              [](const Crossing& a, const Crossing& b) { return a.key < b.key; });
    RD_DCHECK(std::adjacent_find(all.begin(), all.end(), [](const Crossing& a, const Crossing& b) {
                  return a.key == b.key;
              }) == all.end());
    Mesh mesh;
    mesh.positions.reserve(3 * all.size());
    for (const auto& x : all) mesh.positions.insert(mesh.positions.end(), x.pos, x.pos + 3);
    mesh.indices.reserve(tris);
    for (auto& out : outputs) {
        for (uint64_t key : out.triangle_edges) {
            const auto it =
                std::lower_bound(all.begin(), all.end(), key,
                                 [](const Crossing& a, uint64_t k) { return a.key < k; });
            RD_DCHECK(it != all.end() && it->key == key);
            mesh.indices.push_back(uint32_t(it - all.begin()));
        }
        std::vector<uint64_t>().swap(out.triangle_edges);
    }
    if (stats) *stats = st;
    return mesh;
}

}  // namespace radiant
