// Mesh files through decode_mesh: binary and ASCII PLY, OBJ, binary glTF. Input: one selector
// byte (% 3: PLY, OBJ, GLB), then the file's bytes. A decoded mesh must be one the writers
// accept (encode_mesh checks every index and attribute size), so it is encoded again.
#include <cstdint>
#include <string>

#include "core/error.h"
#include "fuzz_util.h"
#include "io/mesh_io.h"

using namespace radiant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    static const MeshFormat kFormats[3] = {MeshFormat::kPly, MeshFormat::kObj, MeshFormat::kGlb};
    static const char* const kNames[3] = {"fuzz.ply", "fuzz.obj", "fuzz.glb"};
    const int k = data[0] % 3;
    const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        const Mesh m = decode_mesh(bytes, kFormats[k], kNames[k]);
        FUZZ_ASSERT(m.positions.size() % 3 == 0 && m.indices.size() % 3 == 0);
        FUZZ_ASSERT(m.normals.empty() || m.normals.size() == m.positions.size());
        FUZZ_ASSERT(m.colors.empty() || m.colors.size() == m.positions.size());
        for (uint32_t i : m.indices) FUZZ_ASSERT(i < m.vertex_count());
        if (m.positions.size() + m.indices.size() <= (1u << 16)) (void)encode_mesh(m, kFormats[k]);
        fuzz::accepted("decode_mesh");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    return 0;
}
