// Reading and writing COLMAP's cameras / images / points3D files (binary and text).
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/system.h"
#include "prepare/colmap_model.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

// Bounds-checked little-endian reads over a whole file's bytes.
class ByteReader {
  public:
    ByteReader(std::string bytes, std::string path)
        : m_bytes(std::move(bytes)), m_path(std::move(path)) {}
    template <class T>
    T get() {
        need(sizeof(T));
        T v;
        std::memcpy(&v, m_bytes.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }
    double finite() {
        const double v = get<double>();
        if (!std::isfinite(v))
            throw Error(m_path, fmt::format("non-finite number at byte {}", m_pos - 8));
        return v;
    }
    std::string cstring() {
        const size_t end = m_bytes.find('\0', m_pos);
        if (end == std::string::npos)
            throw Error(m_path, "truncated: an image name has no terminating zero");
        std::string s = m_bytes.substr(m_pos, end - m_pos);
        m_pos = end + 1;
        return s;
    }
    // A record count, refused when the rest of the file cannot hold that many records of at
    // least `min_bytes` each (so a corrupt count never drives a huge allocation).
    uint64_t count(size_t min_bytes, const char* what) {
        const uint64_t n = get<uint64_t>();
        if (n > (m_bytes.size() - m_pos) / min_bytes)
            throw Error(
                m_path,
                fmt::format(
                    "claims {} {}, more than the file's {} bytes can hold (truncated or corrupt)",
                    n, what, m_bytes.size()));
        return n;
    }
    void expect_end() {
        if (m_pos != m_bytes.size())
            throw Error(m_path, fmt::format("{} unexpected bytes after the last record",
                                            m_bytes.size() - m_pos));
    }

  private:
    void need(size_t n) {
        if (m_bytes.size() - m_pos < n)
            throw Error(m_path, fmt::format("truncated: the file ends at byte {} inside a record",
                                            m_bytes.size()));
    }
    std::string m_bytes;
    std::string m_path;
    size_t m_pos = 0;
};

class ByteWriter {
  public:
    template <class T>
    void put(T v) {
        m_bytes.append(reinterpret_cast<const char*>(&v), sizeof(T));
    }
    void cstring(const std::string& s) { m_bytes.append(s.c_str(), s.size() + 1); }
    const std::string& bytes() const { return m_bytes; }

  private:
    std::string m_bytes;
};

void check_params(const ColmapCamera& c, const std::string& path) {
    const ColmapCameraModelInfo* info = colmap_camera_model(c.model_id);
    if (!info)
        throw Error(path, fmt::format("camera {}: unknown camera model id {}", c.id, c.model_id));
    if (int(c.params.size()) != info->num_params)
        throw Error(path, fmt::format("camera {}: model {} takes {} parameters, got {}", c.id,
                                      info->name, info->num_params, c.params.size()));
    if (c.width == 0 || c.height == 0 || c.width > 1000000 || c.height > 1000000)
        throw Error(path, fmt::format("camera {}: image size {}x{} is out of range", c.id, c.width,
                                      c.height));
    for (double p : c.params)
        if (!std::isfinite(p))
            throw Error(path, fmt::format("camera {}: a parameter is not finite", c.id));
}

std::vector<ColmapCamera> read_cameras_bin(const std::string& path) {
    ByteReader in(read_file(path), path);
    std::vector<ColmapCamera> cams(in.count(24, "cameras"));
    for (auto& c : cams) {
        c.id = in.get<uint32_t>();
        c.model_id = in.get<int32_t>();
        c.width = in.get<uint64_t>();
        c.height = in.get<uint64_t>();
        const ColmapCameraModelInfo* info = colmap_camera_model(c.model_id);
        if (!info)
            throw Error(path,
                        fmt::format("camera {}: unknown camera model id {}", c.id, c.model_id));
        c.params.resize(size_t(info->num_params));
        for (double& p : c.params) p = in.get<double>();
        check_params(c, path);
    }
    in.expect_end();
    return cams;
}

std::vector<ColmapImage> read_images_bin(const std::string& path) {
    ByteReader in(read_file(path), path);
    std::vector<ColmapImage> images(in.count(73, "images"));
    for (auto& im : images) {
        im.id = in.get<uint32_t>();
        for (double& q : im.qvec) q = in.finite();
        for (double& t : im.tvec) t = in.finite();
        im.camera_id = in.get<uint32_t>();
        im.name = in.cstring();
        im.points2d.resize(in.count(24, "2D points"));
        for (auto& p : im.points2d) {
            p.x = in.get<double>();
            p.y = in.get<double>();
            p.point3d_id = in.get<int64_t>();
        }
    }
    in.expect_end();
    return images;
}

std::vector<ColmapPoint3D> read_points_bin(const std::string& path) {
    ByteReader in(read_file(path), path);
    std::vector<ColmapPoint3D> points(in.count(51, "3D points"));
    for (auto& p : points) {
        p.id = in.get<uint64_t>();
        p.xyz = {in.finite(), in.finite(), in.finite()};
        for (auto& c : p.rgb) c = in.get<uint8_t>();
        p.error = in.get<double>();
        p.track.resize(in.count(8, "track elements"));
        for (auto& t : p.track) {
            t.image_id = in.get<uint32_t>();
            t.point2d_index = in.get<uint32_t>();
        }
    }
    in.expect_end();
    return points;
}

// Text files: '#' comments, whitespace-separated fields; errors name the line.
struct TextLines {
    std::vector<std::pair<int, std::string>> lines;  // (line number, text), comments dropped
    explicit TextLines(const std::string& path) {
        std::istringstream in(read_file(path));
        std::string line;
        int number = 0;
        while (std::getline(in, line)) {
            ++number;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            const size_t first = line.find_first_not_of(" \t");
            if (first == std::string::npos || line[first] == '#') continue;
            lines.emplace_back(number, line);
        }
    }
};

template <class T>
T parse_field(std::istringstream& in, const std::string& path, int line, const char* what) {
    T v{};
    if (!(in >> v)) throw Error(path, fmt::format("line {}: expected {}", line, what));
    if constexpr (std::is_floating_point_v<T>)
        if (!std::isfinite(v))
            throw Error(path, fmt::format("line {}: {} is not finite", line, what));
    return v;
}

std::vector<ColmapCamera> read_cameras_txt(const std::string& path) {
    std::vector<ColmapCamera> cams;
    for (const auto& [line, text] : TextLines(path).lines) {
        std::istringstream in(text);
        ColmapCamera c;
        c.id = parse_field<uint32_t>(in, path, line, "CAMERA_ID");
        const std::string model = parse_field<std::string>(in, path, line, "MODEL");
        const ColmapCameraModelInfo* info = colmap_camera_model(model);
        if (!info)
            throw Error(path, fmt::format("line {}: unknown camera model '{}'", line, model));
        c.model_id = info->id;
        c.width = parse_field<uint64_t>(in, path, line, "WIDTH");
        c.height = parse_field<uint64_t>(in, path, line, "HEIGHT");
        double p;
        while (in >> p) c.params.push_back(p);
        if (!in.eof())
            throw Error(path, fmt::format("line {}: a camera parameter is not a number", line));
        check_params(c, path);
        cams.push_back(std::move(c));
    }
    return cams;
}

std::vector<ColmapImage> read_images_txt(const std::string& path) {
    std::vector<ColmapImage> images;
    // Two lines per image: the pose, then its 2D points (which may be an empty line, and
    // COLMAP writes it as one, so blank lines are not dropped here).
    std::istringstream all(read_file(path));
    std::vector<std::pair<int, std::string>> lines;
    std::string line;
    int number = 0;
    while (std::getline(all, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty() && line[0] == '#') continue;
        lines.emplace_back(number, line);
    }
    while (!lines.empty() && lines.back().second.find_first_not_of(" \t") == std::string::npos)
        lines.pop_back();
    for (size_t i = 0; i < lines.size(); i += 2) {
        const auto& [ln, pose] = lines[i];
        if (pose.find_first_not_of(" \t") == std::string::npos)
            throw Error(path,
                        fmt::format("line {}: expected an image line, found a blank line", ln));
        std::istringstream in(pose);
        ColmapImage im;
        im.id = parse_field<uint32_t>(in, path, ln, "IMAGE_ID");
        for (double& q : im.qvec) q = parse_field<double>(in, path, ln, "QW QX QY QZ");
        for (double& t : im.tvec) t = parse_field<double>(in, path, ln, "TX TY TZ");
        im.camera_id = parse_field<uint32_t>(in, path, ln, "CAMERA_ID");
        std::getline(in >> std::ws, im.name);
        if (im.name.empty()) throw Error(path, fmt::format("line {}: expected NAME", ln));
        if (i + 1 < lines.size()) {
            std::istringstream pts(lines[i + 1].second);
            double x, y;
            int64_t id;
            while (pts >> x >> y >> id) im.points2d.push_back({x, y, id});
            if (!pts.eof())
                throw Error(path, fmt::format("line {}: 2D points must be X Y POINT3D_ID triples",
                                              lines[i + 1].first));
        }
        images.push_back(std::move(im));
    }
    return images;
}

std::vector<ColmapPoint3D> read_points_txt(const std::string& path) {
    std::vector<ColmapPoint3D> points;
    for (const auto& [line, text] : TextLines(path).lines) {
        std::istringstream in(text);
        ColmapPoint3D p;
        p.id = parse_field<uint64_t>(in, path, line, "POINT3D_ID");
        p.xyz.x = parse_field<double>(in, path, line, "X");
        p.xyz.y = parse_field<double>(in, path, line, "Y");
        p.xyz.z = parse_field<double>(in, path, line, "Z");
        for (auto& c : p.rgb) {
            const int v = parse_field<int>(in, path, line, "R G B");
            if (v < 0 || v > 255)
                throw Error(path,
                            fmt::format("line {}: colour component {} is not in 0..255", line, v));
            c = uint8_t(v);
        }
        p.error = parse_field<double>(in, path, line, "ERROR");
        uint32_t image_id, index;
        while (in >> image_id >> index) p.track.push_back({image_id, index});
        if (!in.eof())
            throw Error(path,
                        fmt::format("line {}: the track must be IMAGE_ID POINT2D_IDX pairs", line));
        points.push_back(std::move(p));
    }
    return points;
}

std::string model_file(const std::string& folder, const char* stem, bool* binary) {
    std::error_code ec;
    const fs::path bin = fs::path(folder) / (std::string(stem) + ".bin");
    const fs::path txt = fs::path(folder) / (std::string(stem) + ".txt");
    if (fs::is_regular_file(bin, ec)) {
        *binary = true;
        return bin.string();
    }
    if (fs::is_regular_file(txt, ec)) {
        *binary = false;
        return txt.string();
    }
    return "";
}

}  // namespace

bool is_colmap_model_folder(const std::string& folder) {
    bool b;
    return !model_file(folder, "cameras", &b).empty() && !model_file(folder, "images", &b).empty();
}

ColmapModel read_colmap_model(const std::string& folder) {
    ColmapModel m;
    bool binary = false;
    const std::string cams = model_file(folder, "cameras", &binary);
    if (cams.empty()) throw Error(folder, "COLMAP model has no cameras.bin or cameras.txt");
    m.cameras = binary ? read_cameras_bin(cams) : read_cameras_txt(cams);
    const std::string images = model_file(folder, "images", &binary);
    if (images.empty()) throw Error(folder, "COLMAP model has no images.bin or images.txt");
    m.images = binary ? read_images_bin(images) : read_images_txt(images);
    const std::string points = model_file(folder, "points3D", &binary);
    if (!points.empty()) m.points = binary ? read_points_bin(points) : read_points_txt(points);

    std::set<uint32_t> camera_ids, image_ids;
    for (const auto& c : m.cameras)
        if (!camera_ids.insert(c.id).second)
            throw Error(cams, fmt::format("camera id {} appears twice", c.id));
    for (const auto& im : m.images) {
        if (!image_ids.insert(im.id).second)
            throw Error(images, fmt::format("image id {} appears twice", im.id));
        if (!camera_ids.count(im.camera_id))
            throw Error(
                images,
                fmt::format("image {} ('{}') names camera {}, which {} does not have", im.id,
                            im.name, im.camera_id, fs::path(cams).filename().string()));
        const double qn = std::sqrt(im.qvec[0] * im.qvec[0] + im.qvec[1] * im.qvec[1] +
                                    im.qvec[2] * im.qvec[2] + im.qvec[3] * im.qvec[3]);
        if (!(qn > 1e-6))
            throw Error(images, fmt::format("image {} ('{}') has a zero rotation quaternion", im.id,
                                            im.name));
    }
    return m;
}

void write_colmap_model(const ColmapModel& m, const std::string& folder, bool binary) {
    const fs::path dir(folder);
    if (binary) {
        ByteWriter c, i, p;
        c.put<uint64_t>(m.cameras.size());
        for (const auto& cam : m.cameras) {
            c.put<uint32_t>(cam.id);
            c.put<int32_t>(cam.model_id);
            c.put<uint64_t>(cam.width);
            c.put<uint64_t>(cam.height);
            for (double v : cam.params) c.put<double>(v);
        }
        i.put<uint64_t>(m.images.size());
        for (const auto& im : m.images) {
            i.put<uint32_t>(im.id);
            for (double q : im.qvec) i.put<double>(q);
            for (double t : im.tvec) i.put<double>(t);
            i.put<uint32_t>(im.camera_id);
            i.cstring(im.name);
            i.put<uint64_t>(im.points2d.size());
            for (const auto& pt : im.points2d) {
                i.put<double>(pt.x);
                i.put<double>(pt.y);
                i.put<int64_t>(pt.point3d_id);
            }
        }
        p.put<uint64_t>(m.points.size());
        for (const auto& pt : m.points) {
            p.put<uint64_t>(pt.id);
            p.put<double>(pt.xyz.x);
            p.put<double>(pt.xyz.y);
            p.put<double>(pt.xyz.z);
            for (uint8_t v : pt.rgb) p.put<uint8_t>(v);
            p.put<double>(pt.error);
            p.put<uint64_t>(pt.track.size());
            for (const auto& t : pt.track) {
                p.put<uint32_t>(t.image_id);
                p.put<uint32_t>(t.point2d_index);
            }
        }
        write_file_atomic((dir / "cameras.bin").string(), c.bytes());
        write_file_atomic((dir / "images.bin").string(), i.bytes());
        write_file_atomic((dir / "points3D.bin").string(), p.bytes());
        return;
    }
    // Text: full precision, so a text model reads back exactly.
    std::string c =
        "# Camera list with one line of data per camera:\n"
        "#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n";
    c += fmt::format("# Number of cameras: {}\n", m.cameras.size());
    for (const auto& cam : m.cameras) {
        c += fmt::format("{} {} {} {}", cam.id, colmap_camera_model(cam.model_id)->name, cam.width,
                         cam.height);
        for (double v : cam.params) c += fmt::format(" {:.17g}", v);
        c += "\n";
    }
    std::string i =
        "# Image list with two lines of data per image:\n"
        "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n"
        "#   POINTS2D[] as (X, Y, POINT3D_ID)\n";
    i += fmt::format("# Number of images: {}\n", m.images.size());
    for (const auto& im : m.images) {
        i += fmt::format("{} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {:.17g} {} {}\n",
                         im.id, im.qvec[0], im.qvec[1], im.qvec[2], im.qvec[3], im.tvec[0],
                         im.tvec[1], im.tvec[2], im.camera_id, im.name);
        std::string pts;
        for (const auto& pt : im.points2d)
            pts += fmt::format("{}{:.17g} {:.17g} {}", pts.empty() ? "" : " ", pt.x, pt.y,
                               pt.point3d_id);
        i += pts + "\n";
    }
    std::string p =
        "# 3D point list with one line of data per point:\n"
        "#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)\n";
    p += fmt::format("# Number of points: {}\n", m.points.size());
    for (const auto& pt : m.points) {
        p += fmt::format("{} {:.17g} {:.17g} {:.17g} {} {} {} {:.17g}", pt.id, pt.xyz.x, pt.xyz.y,
                         pt.xyz.z, pt.rgb[0], pt.rgb[1], pt.rgb[2], pt.error);
        for (const auto& t : pt.track) p += fmt::format(" {} {}", t.image_id, t.point2d_index);
        p += "\n";
    }
    write_file_atomic((dir / "cameras.txt").string(), c);
    write_file_atomic((dir / "images.txt").string(), i);
    write_file_atomic((dir / "points3D.txt").string(), p);
}

}  // namespace radiant
