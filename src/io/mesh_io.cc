#include "io/mesh_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/system.h"

namespace radiant {

namespace {

float srgb_to_linear(uint8_t c) {
    const float v = float(c) / 255.0f;
    return v <= 0.04045f ? v / 12.92f : std::pow((v + 0.055f) / 1.055f, 2.4f);
}
uint8_t linear_to_srgb(float v) {
    v = std::clamp(v, 0.0f, 1.0f);
    const float s = v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
    return uint8_t(std::lround(s * 255.0f));
}

template <class T>
void put(std::string& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void check_mesh(const Mesh& m) {
    RD_CHECK(m.positions.size() % 3 == 0 && m.indices.size() % 3 == 0);
    RD_CHECK(m.normals.empty() || m.normals.size() == m.positions.size());
    RD_CHECK(m.colors.empty() || m.colors.size() == m.positions.size());
    for (uint32_t i : m.indices) RD_CHECK(i < m.vertex_count());
}

std::string encode_ply(const Mesh& m) {
    std::string out = "ply\nformat binary_little_endian 1.0\ncomment written by Radiant\n";
    out += fmt::format("element vertex {}\nproperty float x\nproperty float y\nproperty float z\n",
                       m.vertex_count());
    if (!m.normals.empty()) out += "property float nx\nproperty float ny\nproperty float nz\n";
    if (!m.colors.empty()) out += "property uchar red\nproperty uchar green\nproperty uchar blue\n";
    out += fmt::format("element face {}\nproperty list uchar uint vertex_indices\nend_header\n",
                       m.triangle_count());
    for (size_t i = 0; i < m.vertex_count(); ++i) {
        for (int k = 0; k < 3; ++k) put(out, m.positions[3 * i + size_t(k)]);
        if (!m.normals.empty())
            for (int k = 0; k < 3; ++k) put(out, m.normals[3 * i + size_t(k)]);
        if (!m.colors.empty())
            for (int k = 0; k < 3; ++k) put(out, m.colors[3 * i + size_t(k)]);
    }
    for (size_t t = 0; t < m.triangle_count(); ++t) {
        put(out, uint8_t(3));
        for (int k = 0; k < 3; ++k) put(out, m.indices[3 * t + size_t(k)]);
    }
    return out;
}

std::string encode_obj(const Mesh& m) {
    std::string out = "# written by Radiant\n";
    out.reserve(m.vertex_count() * 64 + m.triangle_count() * 32);
    for (size_t i = 0; i < m.vertex_count(); ++i) {
        const float* p = &m.positions[3 * i];
        if (m.colors.empty()) {
            out += fmt::format("v {} {} {}\n", p[0], p[1], p[2]);
        } else {
            const uint8_t* c = &m.colors[3 * i];
            out += fmt::format("v {} {} {} {:.6g} {:.6g} {:.6g}\n", p[0], p[1], p[2], c[0] / 255.0,
                               c[1] / 255.0, c[2] / 255.0);
        }
    }
    for (size_t i = 0; i < m.normals.size() / 3; ++i)
        out += fmt::format("vn {} {} {}\n", m.normals[3 * i], m.normals[3 * i + 1],
                           m.normals[3 * i + 2]);
    for (size_t t = 0; t < m.triangle_count(); ++t) {
        const uint32_t* f = &m.indices[3 * t];
        if (m.normals.empty())
            out += fmt::format("f {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1);
        else
            out += fmt::format("f {0}//{0} {1}//{1} {2}//{2}\n", f[0] + 1, f[1] + 1, f[2] + 1);
    }
    return out;
}

void pad_to_4(std::string& s, char fill) {
    while (s.size() % 4) s.push_back(fill);
}

std::string encode_glb(const Mesh& m) {
    using nlohmann::json;
    std::string bin;
    json views = json::array(), accessors = json::array(), attributes = json::object();
    auto add_view = [&](const void* data, size_t bytes, int target) {
        const size_t offset = bin.size();
        bin.append(static_cast<const char*>(data), bytes);
        pad_to_4(bin, '\0');
        views.push_back(
            {{"buffer", 0}, {"byteOffset", offset}, {"byteLength", bytes}, {"target", target}});
        return views.size() - 1;
    };
    const size_t n = m.vertex_count();
    std::array<float, 3> lo{0, 0, 0}, hi{0, 0, 0};
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            const float v = m.positions[3 * i + size_t(k)];
            lo[size_t(k)] = i ? std::min(lo[size_t(k)], v) : v;
            hi[size_t(k)] = i ? std::max(hi[size_t(k)], v) : v;
        }
    accessors.push_back(
        {{"bufferView", add_view(m.positions.data(), 4 * m.positions.size(), 34962)},
         {"componentType", 5126},
         {"count", n},
         {"type", "VEC3"},
         {"min", lo},
         {"max", hi}});
    attributes["POSITION"] = accessors.size() - 1;
    if (!m.normals.empty()) {
        accessors.push_back(
            {{"bufferView", add_view(m.normals.data(), 4 * m.normals.size(), 34962)},
             {"componentType", 5126},
             {"count", n},
             {"type", "VEC3"}});
        attributes["NORMAL"] = accessors.size() - 1;
    }
    if (!m.colors.empty()) {
        std::vector<float> linear(m.colors.size());
        for (size_t i = 0; i < linear.size(); ++i) linear[i] = srgb_to_linear(m.colors[i]);
        accessors.push_back({{"bufferView", add_view(linear.data(), 4 * linear.size(), 34962)},
                             {"componentType", 5126},
                             {"count", n},
                             {"type", "VEC3"}});
        attributes["COLOR_0"] = accessors.size() - 1;
    }
    accessors.push_back({{"bufferView", add_view(m.indices.data(), 4 * m.indices.size(), 34963)},
                         {"componentType", 5125},
                         {"count", m.indices.size()},
                         {"type", "SCALAR"}});
    const json doc = {
        {"asset", {{"version", "2.0"}, {"generator", "Radiant"}}},
        {"scene", 0},
        {"scenes", json::array({{{"nodes", json::array({0})}}})},
        {"nodes", json::array({{{"mesh", 0}}})},
        {"meshes", json::array({{{"primitives", json::array({{{"attributes", attributes},
                                                              {"indices", accessors.size() - 1},
                                                              {"mode", 4}}})}}})},
        {"buffers", json::array({{{"byteLength", bin.size()}}})},
        {"bufferViews", views},
        {"accessors", accessors}};
    std::string text = doc.dump();
    pad_to_4(text, ' ');
    std::string out;
    put(out, uint32_t(0x46546C67));  // "glTF"
    put(out, uint32_t(2));
    put(out, uint32_t(12 + 8 + text.size() + 8 + bin.size()));
    put(out, uint32_t(text.size()));
    put(out, uint32_t(0x4E4F534A));  // JSON
    out += text;
    put(out, uint32_t(bin.size()));
    put(out, uint32_t(0x004E4942));  // BIN
    out += bin;
    return out;
}

// ---- readers ----

class Cursor {
  public:
    Cursor(const std::string& bytes, size_t pos, std::string path)
        : m_b(bytes), m_pos(pos), m_path(std::move(path)) {}
    template <class T>
    T get() {
        if (m_b.size() - m_pos < sizeof(T)) throw Error(m_path, "truncated mesh file");
        T v;
        std::memcpy(&v, m_b.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }
    size_t remaining() const { return m_b.size() - m_pos; }

  private:
    const std::string& m_b;
    size_t m_pos;
    std::string m_path;
};

struct PlyProperty {
    std::string name, type, list_count_type;  // list_count_type empty unless a list
};
struct PlyElement {
    std::string name;
    uint64_t count = 0;
    std::vector<PlyProperty> props;
};

size_t ply_type_size(const std::string& t, const std::string& path) {
    if (t == "char" || t == "uchar" || t == "int8" || t == "uint8") return 1;
    if (t == "short" || t == "ushort" || t == "int16" || t == "uint16") return 2;
    if (t == "int" || t == "uint" || t == "float" || t == "int32" || t == "uint32" ||
        t == "float32")
        return 4;
    if (t == "double" || t == "float64") return 8;
    throw Error(path, "PLY property type '" + t + "' is unknown");
}

double ply_read_binary(Cursor& c, const std::string& t) {
    if (t == "char" || t == "int8") return c.get<int8_t>();
    if (t == "uchar" || t == "uint8") return c.get<uint8_t>();
    if (t == "short" || t == "int16") return c.get<int16_t>();
    if (t == "ushort" || t == "uint16") return c.get<uint16_t>();
    if (t == "int" || t == "int32") return c.get<int32_t>();
    if (t == "uint" || t == "uint32") return c.get<uint32_t>();
    if (t == "float" || t == "float32") return c.get<float>();
    return c.get<double>();
}

Mesh decode_ply(const std::string& bytes, const std::string& path) {
    const size_t header_end = bytes.find("end_header");
    if (bytes.rfind("ply", 0) != 0 || header_end == std::string::npos)
        throw Error(path, "not a PLY file (no 'ply' header)");
    size_t data = bytes.find('\n', header_end);
    if (data == std::string::npos) throw Error(path, "truncated PLY header");
    ++data;
    std::istringstream header(bytes.substr(0, header_end));
    std::string line, format;
    std::vector<PlyElement> elements;
    while (std::getline(header, line)) {
        std::istringstream ls(line);
        std::string word;
        ls >> word;
        if (word == "format") {
            ls >> format;
        } else if (word == "element") {
            PlyElement e;
            ls >> e.name >> e.count;
            if (!ls) throw Error(path, "malformed PLY element line: " + line);
            elements.push_back(e);
        } else if (word == "property") {
            if (elements.empty()) throw Error(path, "PLY property before any element");
            PlyProperty p;
            std::string type;
            ls >> type;
            if (type == "list") {
                ls >> p.list_count_type >> p.type >> p.name;
                ply_type_size(p.list_count_type, path);
            } else {
                p.type = type;
                ls >> p.name;
            }
            ply_type_size(p.type, path);
            if (!ls) throw Error(path, "malformed PLY property line: " + line);
            elements.back().props.push_back(p);
        }
    }
    const bool ascii = format == "ascii";
    if (!ascii && format != "binary_little_endian")
        throw Error(path,
                    "PLY format '" + format + "' is not supported (binary_little_endian or ascii)");
    Mesh m;
    Cursor c(bytes, data, path);
    std::istringstream text(ascii ? bytes.substr(data) : std::string());
    auto read_value = [&](const std::string& type) -> double {
        if (!ascii) return ply_read_binary(c, type);
        double v;
        if (!(text >> v)) throw Error(path, "truncated or malformed ASCII PLY data");
        return v;
    };
    bool have_vertices = false;
    for (const PlyElement& e : elements) {
        // Entries without properties hold no bytes: a count of 2^64 of them would never end.
        if (e.props.empty() && e.count > 0)
            throw Error(path, fmt::format("PLY element '{}' has {} entries but no properties",
                                          e.name, e.count));
        size_t min_bytes = 0;
        for (const auto& p : e.props)
            min_bytes +=
                ply_type_size(p.list_count_type.empty() ? p.type : p.list_count_type, path);
        const size_t avail = ascii ? bytes.size() - data : c.remaining();
        if (min_bytes > 0 && e.count > avail / std::max<size_t>(ascii ? 2 : min_bytes, 1))
            throw Error(path,
                        fmt::format("PLY element '{}' claims {} entries, more than the file holds",
                                    e.name, e.count));
        const bool vertex = e.name == "vertex", face = e.name == "face";
        if (vertex) {
            if (have_vertices) throw Error(path, "PLY file has more than one 'vertex' element");
            have_vertices = true;
            m.positions.resize(3 * e.count);
            for (const auto& p : e.props) {  // any one of a normal's or colour's components
                if (p.name == "nx" || p.name == "ny" || p.name == "nz")
                    m.normals.resize(3 * e.count);
                if (p.name == "red" || p.name == "green" || p.name == "blue")
                    m.colors.resize(3 * e.count);
            }
        }
        for (uint64_t i = 0; i < e.count; ++i)
            for (const auto& p : e.props) {
                if (!p.list_count_type.empty()) {
                    const double cnt = read_value(p.list_count_type);
                    if (!(cnt >= 0 && cnt <= 1e6))
                        throw Error(path, "PLY list with a bad length");  // NaN too
                    std::vector<uint32_t> poly(static_cast<size_t>(cnt));
                    for (auto& v : poly) {
                        const double x = read_value(p.type);
                        if (!(x >= 0 && x < 4294967295.0))
                            throw Error(path, "PLY face index out of range");
                        v = uint32_t(x);
                    }
                    if (face && (p.name == "vertex_indices" || p.name == "vertex_index"))
                        for (size_t k = 1; k + 1 < poly.size(); ++k)
                            m.indices.insert(m.indices.end(), {poly[0], poly[k], poly[k + 1]});
                    continue;
                }
                const double v = read_value(p.type);
                if (!vertex) continue;
                const char* names[9] = {"x", "y", "z", "nx", "ny", "nz", "red", "green", "blue"};
                for (int k = 0; k < 9; ++k)
                    if (p.name == names[k]) {
                        if (k < 3)
                            m.positions[3 * i + size_t(k)] = float(v);
                        else if (k < 6)
                            m.normals[3 * i + size_t(k - 3)] = float(v);
                        else if (std::isnan(v))
                            throw Error(path, fmt::format("PLY vertex {}: '{}' is not a number", i,
                                                          p.name));
                        else
                            m.colors[3 * i + size_t(k - 6)] = uint8_t(std::clamp(v, 0.0, 255.0));
                    }
            }
    }
    for (uint32_t i : m.indices)
        if (i >= m.vertex_count())
            throw Error(path, "PLY face refers to a vertex that does not exist");
    return m;
}

Mesh decode_obj(const std::string& bytes, const std::string& path) {
    Mesh m;
    std::vector<float> normals;
    std::vector<int64_t> normal_of_vertex;
    std::istringstream in(bytes);
    std::string line;
    size_t number = 0;
    bool any_color = false;
    while (std::getline(in, line)) {
        ++number;
        std::istringstream ls(line);
        std::string word;
        ls >> word;
        if (word == "v") {
            double v[6];
            int n = 0;
            while (n < 6 && ls >> v[n]) ++n;
            if (n != 3 && n != 6)
                throw Error(
                    path,
                    fmt::format("line {}: a vertex needs 3 coordinates (and optionally r g b)",
                                number));
            for (int k = 0; k < 3; ++k) m.positions.push_back(float(v[k]));
            for (int k = 0; k < 3; ++k)
                m.colors.push_back(
                    n == 6 ? uint8_t(std::lround(std::clamp(v[3 + k], 0.0, 1.0) * 255)) : 255);
            any_color = any_color || n == 6;
            normal_of_vertex.push_back(-1);
        } else if (word == "vn") {
            double v[3];
            if (!(ls >> v[0] >> v[1] >> v[2]))
                throw Error(path, fmt::format("line {}: a normal needs 3 numbers", number));
            for (double x : v) normals.push_back(float(x));
        } else if (word == "f") {
            std::vector<uint32_t> poly;
            std::string corner;
            while (ls >> corner) {
                const long long vi = std::atoll(corner.c_str());
                const long long nv = (long long)m.vertex_count();
                const long long idx = vi > 0 ? vi - 1 : nv + vi;
                if (vi == 0 || idx < 0 || idx >= nv)
                    throw Error(path,
                                fmt::format("line {}: face index {} out of range", number, corner));
                poly.push_back(uint32_t(idx));
                const size_t slash = corner.rfind('/');
                if (slash != std::string::npos && slash + 1 < corner.size()) {
                    const long long ni = std::atoll(corner.c_str() + slash + 1);
                    const long long nn = (long long)(normals.size() / 3);
                    const long long nidx = ni > 0 ? ni - 1 : nn + ni;
                    if (ni == 0 || nidx < 0 || nidx >= nn)
                        throw Error(path,
                                    fmt::format("line {}: normal index out of range", number));
                    normal_of_vertex[size_t(idx)] = nidx;
                }
            }
            if (poly.size() < 3)
                throw Error(path, fmt::format("line {}: a face needs 3 corners", number));
            for (size_t k = 1; k + 1 < poly.size(); ++k)
                m.indices.insert(m.indices.end(), {poly[0], poly[k], poly[k + 1]});
        }
    }
    if (!any_color) m.colors.clear();
    if (!normals.empty()) {
        m.normals.assign(m.positions.size(), 0.0f);
        for (size_t i = 0; i < normal_of_vertex.size(); ++i)
            if (normal_of_vertex[i] >= 0)
                for (int k = 0; k < 3; ++k)
                    m.normals[3 * i + size_t(k)] =
                        normals[3 * size_t(normal_of_vertex[i]) + size_t(k)];
    }
    return m;
}

// A glTF member that must be a non-negative integer (an index, count, offset or enum): nlohmann's
// get<size_t> would wrap a negative number and is undefined behaviour for a float like 1e300.
size_t gltf_uint(const nlohmann::json& object, const char* key, const std::string& path) {
    const nlohmann::json& v = object.at(key);
    if (!v.is_number_unsigned())
        throw Error(path, fmt::format("glTF '{}' must be a non-negative integer", key));
    return v.get<size_t>();
}
size_t gltf_uint(const nlohmann::json& object, const char* key, size_t fallback,
                 const std::string& path) {
    return object.is_object() && object.contains(key) ? gltf_uint(object, key, path) : fallback;
}

Mesh decode_glb(const std::string& bytes, const std::string& path) {
    Cursor c(bytes, 0, path);
    if (bytes.size() < 20 || c.get<uint32_t>() != 0x46546C67)
        throw Error(path, "not a binary glTF file (bad magic)");
    if (c.get<uint32_t>() != 2) throw Error(path, "only glTF 2.0 is supported");
    if (c.get<uint32_t>() != bytes.size())
        throw Error(path, "glTF length field disagrees with the file size");
    const uint32_t json_len = c.get<uint32_t>();
    if (c.get<uint32_t>() != 0x4E4F534A || json_len > bytes.size() - 20)
        throw Error(path, "glTF has no JSON chunk");
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(bytes.substr(20, json_len));
    } catch (const nlohmann::json::exception&) {
        throw Error(path, "glTF JSON chunk is not valid JSON");
    }
    const size_t bin_at = 20 + size_t(json_len);
    std::string_view bin;
    if (bytes.size() >= bin_at + 8) {
        uint32_t bin_len, type;
        std::memcpy(&bin_len, bytes.data() + bin_at, 4);
        std::memcpy(&type, bytes.data() + bin_at + 4, 4);
        if (type != 0x004E4942 || bin_len > bytes.size() - bin_at - 8)
            throw Error(path, "glTF BIN chunk is malformed");
        bin = std::string_view(bytes).substr(bin_at + 8, bin_len);
    }
    Mesh m;
    try {
        const auto& prim = doc.at("meshes").at(0).at("primitives").at(0);
        if (gltf_uint(prim, "mode", 4, path) != 4)
            throw Error(path, "glTF primitive is not a triangle list");
        // Reads accessor `a` as `comps` numbers per element (floats, or normalised integers).
        auto read = [&](size_t a, int comps, std::vector<double>& out) {
            const auto& acc = doc.at("accessors").at(a);
            const auto& view = doc.at("bufferViews").at(gltf_uint(acc, "bufferView", path));
            const size_t count = gltf_uint(acc, "count", path);
            const size_t type = gltf_uint(acc, "componentType", path);
            const size_t csize = type == 5126 || type == 5125   ? 4
                                 : type == 5123 || type == 5122 ? 2
                                                                : 1;
            const int have = acc.at("type") == "SCALAR" ? 1
                             : acc.at("type") == "VEC3" ? 3
                             : acc.at("type") == "VEC4" ? 4
                                                        : 0;
            if (have < comps) throw Error(path, "glTF accessor has too few components");
            const size_t elem = csize * size_t(have);
            size_t stride = gltf_uint(view, "byteStride", elem, path);
            if (stride < elem) stride = elem;
            const size_t start =
                gltf_uint(view, "byteOffset", 0, path) + gltf_uint(acc, "byteOffset", 0, path);
            const size_t view_end =
                gltf_uint(view, "byteOffset", 0, path) + gltf_uint(view, "byteLength", path);
            const bool fits = view_end <= bin.size() && start <= view_end &&
                              (count == 0 || (elem <= view_end - start &&
                                              count - 1 <= (view_end - start - elem) / stride));
            if (!fits) throw Error(path, "glTF accessor reaches past its buffer");
            const bool norm = acc.value("normalized", false);
            out.resize(count * size_t(comps));
            for (size_t i = 0; i < count; ++i)
                for (int k = 0; k < comps; ++k) {
                    const char* p = bin.data() + start + i * stride + size_t(k) * csize;
                    double v = 0;
                    if (type == 5126) {
                        float f;
                        std::memcpy(&f, p, 4);
                        v = f;
                    } else if (type == 5125) {
                        uint32_t u;
                        std::memcpy(&u, p, 4);
                        v = u;
                    } else if (type == 5123) {
                        uint16_t u;
                        std::memcpy(&u, p, 2);
                        v = norm ? u / 65535.0 : u;
                    } else if (type == 5121) {
                        uint8_t u = uint8_t(*p);
                        v = norm ? u / 255.0 : u;
                    } else
                        throw Error(path, "glTF component type not supported");
                    out[i * size_t(comps) + size_t(k)] = v;
                }
        };
        std::vector<double> tmp;
        const auto& attr = prim.at("attributes");
        read(gltf_uint(attr, "POSITION", path), 3, tmp);
        m.positions.assign(tmp.begin(), tmp.end());
        if (attr.contains("NORMAL")) {
            read(gltf_uint(attr, "NORMAL", path), 3, tmp);
            m.normals.assign(tmp.begin(), tmp.end());
        }
        if (attr.contains("COLOR_0")) {
            read(gltf_uint(attr, "COLOR_0", path), 3, tmp);
            for (double v : tmp) m.colors.push_back(linear_to_srgb(float(v)));
        }
        read(gltf_uint(prim, "indices", path), 1, tmp);
        for (double v : tmp) {
            if (!(v >= 0 && v < 4294967296.0))
                throw Error(path, fmt::format("glTF index {} is not a vertex number", v));
            m.indices.push_back(uint32_t(v));
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(path, std::string("glTF document lacks what a mesh needs: ") + e.what());
    }
    if (m.normals.size() != m.positions.size()) m.normals.clear();
    if (m.colors.size() != m.positions.size()) m.colors.clear();
    if (m.indices.size() % 3) throw Error(path, "glTF index count is not a multiple of 3");
    for (uint32_t i : m.indices)
        if (i >= m.vertex_count())
            throw Error(path, "glTF index refers to a vertex that does not exist");
    return m;
}

}  // namespace

MeshFormat mesh_format_for_path(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char ch) { return char(std::tolower(ch)); });
    if (ext == ".ply") return MeshFormat::kPly;
    if (ext == ".obj") return MeshFormat::kObj;
    if (ext == ".glb") return MeshFormat::kGlb;
    throw Error(path, "unknown mesh extension '" + ext + "' (use .ply, .obj or .glb)");
}

std::string encode_mesh(const Mesh& mesh, MeshFormat format) {
    check_mesh(mesh);
    switch (format) {
        case MeshFormat::kPly:
            return encode_ply(mesh);
        case MeshFormat::kObj:
            return encode_obj(mesh);
        case MeshFormat::kGlb:
            return encode_glb(mesh);
    }
    return {};
}

void save_mesh(const std::string& path, const Mesh& mesh) {
    write_file_atomic(path, encode_mesh(mesh, mesh_format_for_path(path)));
}

Mesh decode_mesh(const std::string& bytes, MeshFormat format, const std::string& path) {
    switch (format) {
        case MeshFormat::kPly:
            return decode_ply(bytes, path);
        case MeshFormat::kObj:
            return decode_obj(bytes, path);
        case MeshFormat::kGlb:
            return decode_glb(bytes, path);
    }
    return {};
}

Mesh load_mesh(const std::string& path) {
    return decode_mesh(read_file(path), mesh_format_for_path(path), path);
}

}  // namespace radiant
