// Mesh files: binary PLY (normals and 8-bit colours: MeshLab, CloudCompare, Blender), OBJ
// (with the common `v x y z r g b` colour extension), and binary glTF (.glb: Blender, three.js,
// game engines; colours stored linear as glTF requires). Written atomically; the readers take
// the same formats (PLY also in ASCII, OBJ polygons as fans) and check every count against the
// file's size.
#pragma once

#include <string>

#include "io/mesh.h"

namespace radiant {

enum class MeshFormat { kPly, kObj, kGlb };

// From the path's extension (.ply, .obj, .glb, any case). Throws Error naming the path for
// anything else.
MeshFormat mesh_format_for_path(const std::string& path);

void save_mesh(const std::string& path, const Mesh& mesh);
std::string encode_mesh(const Mesh& mesh, MeshFormat format);

// Throws Error naming the path when the file is not a mesh this reader understands.
Mesh load_mesh(const std::string& path);
Mesh decode_mesh(const std::string& bytes, MeshFormat format, const std::string& path_for_errors);

}  // namespace radiant
