#include "io/snapshot.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/system.h"

namespace radiant {

namespace {
constexpr char kMagic[8] = {'R', 'A', 'D', 'I', 'A', 'N', 'T', '\x1a'};
constexpr size_t kPrefix = 8 + 4 + 4 + 8;
constexpr size_t kAlign = 64;

size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

constexpr uint64_t kFnvBasis = 14695981039346656037ull, kFnvPrime = 1099511628211ull;

// Streams bytes to a temporary file next to the target and hashes them on the way.
class AtomicWriter {
  public:
    explicit AtomicWriter(const std::string& path)
        : m_path(path), m_tmp(path + ".tmp." + std::to_string(getpid())) {
        m_file = std::fopen(m_tmp.c_str(), "wb");
        if (!m_file) throw Error(path, std::string("cannot write: ") + std::strerror(errno));
    }
    ~AtomicWriter() {
        if (m_file) std::fclose(m_file);
        if (!m_committed) std::remove(m_tmp.c_str());
    }
    void write(const void* data, size_t bytes) {
        if (bytes == 0) return;
        if (std::fwrite(data, 1, bytes, m_file) != bytes) fail();
        m_written += bytes;
    }
    size_t written() const { return m_written; }
    void commit() {
        bool ok = std::fflush(m_file) == 0;
        ok = (fsync(fileno(m_file)) == 0) && ok;
        ok = (std::fclose(m_file) == 0) && ok;
        m_file = nullptr;
        if (!ok || std::rename(m_tmp.c_str(), m_path.c_str()) != 0) fail();
        m_committed = true;
    }

  private:
    [[noreturn]] void fail() {
        throw Error(m_path, std::string("cannot write: ") + std::strerror(errno) +
                                (std::filesystem::exists(m_path)
                                     ? " (the previous snapshot there is untouched)"
                                     : ""));
    }
    std::string m_path, m_tmp;
    FILE* m_file = nullptr;
    size_t m_written = 0;
    bool m_committed = false;
};

template <typename T>
T read_le(const std::string& s, size_t at) {
    T v;
    std::memcpy(&v, s.data() + at, sizeof(T));
    return v;
}
}  // namespace

void SnapshotHasher::update(const void* data, size_t bytes) {
    const auto* p = static_cast<const uint8_t*>(data);
    m_total += bytes;
    while (bytes > 0) {
        if (m_fill == 0 && bytes >= 32) {  // fast path: whole groups straight from the input
            const size_t groups = bytes / 32;
            for (size_t g = 0; g < groups; ++g) mix(p + 32 * g);
            p += 32 * groups;
            bytes -= 32 * groups;
            continue;
        }
        const size_t take = std::min<size_t>(32 - m_fill, bytes);
        std::memcpy(m_buffer + m_fill, p, take);
        m_fill += take, p += take, bytes -= take;
        if (m_fill == 32) mix(m_buffer), m_fill = 0;
    }
}

void SnapshotHasher::mix(const uint8_t* group) {
    for (int k = 0; k < 4; ++k) {
        uint64_t w;
        std::memcpy(&w, group + 8 * k, 8);
        m_lane[k] = (m_lane[k] ^ w) * kFnvPrime;
    }
}

uint64_t SnapshotHasher::digest() const {
    uint64_t h = kFnvBasis;
    for (int k = 0; k < 4; ++k) h = (h ^ m_lane[k]) * kFnvPrime;
    for (size_t i = 0; i < m_fill; ++i) h = (h ^ m_buffer[i]) * kFnvPrime;
    return (h ^ m_total) * kFnvPrime;
}

uint64_t snapshot_checksum(const void* data, size_t bytes) {
    SnapshotHasher h;
    h.update(data, bytes);
    return h.digest();
}

void write_snapshot(const std::string& path, nlohmann::json header,
                    const std::vector<SnapshotBlockRef>& blocks) {
    // Block offsets depend on the header length, which depends on the offsets: lay the
    // blocks out after a header padded to a fixed size that leaves room for the numbers.
    nlohmann::json list = nlohmann::json::array();
    for (const auto& b : blocks)
        list.push_back({{"name", b.name}, {"offset", 0}, {"bytes", b.bytes}});
    header["blocks"] = list;
    const size_t room = header.dump().size() + 32 * blocks.size() + 64;
    size_t offset = align_up(kPrefix + room);
    for (size_t i = 0; i < blocks.size(); ++i) {
        header["blocks"][i]["offset"] = offset;
        offset = align_up(offset + blocks[i].bytes);
    }
    std::string text = header.dump();
    RD_CHECK(text.size() <= room);
    text.resize(room, ' ');

    // Hash in one pass as the bytes go out; the parts are concatenated with zero padding.
    std::string prefix(kMagic, 8);
    const uint32_t version = kSnapshotFormatVersion, zero = 0;
    const uint64_t header_len = text.size();
    prefix.append(reinterpret_cast<const char*>(&version), 4);
    prefix.append(reinterpret_cast<const char*>(&zero), 4);
    prefix.append(reinterpret_cast<const char*>(&header_len), 8);
    prefix += text;
    prefix.resize(align_up(prefix.size()), '\0');

    AtomicWriter out(path);
    SnapshotHasher hash;
    auto emit = [&](const void* data, size_t bytes) {
        hash.update(data, bytes);
        out.write(data, bytes);
    };
    static const uint8_t zeros[kAlign] = {};
    emit(prefix.data(), prefix.size());
    for (const auto& b : blocks) {
        emit(b.data, b.bytes);
        emit(zeros, align_up(b.bytes) - b.bytes);
    }
    RD_CHECK(out.written() == offset);
    const uint64_t sum = hash.digest();
    out.write(&sum, 8);
    out.commit();
}

SnapshotFile SnapshotFile::read(const std::string& path) {
    SnapshotFile f;
    f.m_path = path;
    f.m_bytes = read_file(path);
    const std::string& s = f.m_bytes;
    if (s.size() < kPrefix || std::memcmp(s.data(), kMagic, 8) != 0)
        throw Error(path, s.size() < 8 || std::memcmp(s.data(), kMagic, 8) != 0
                              ? "not a Radiant snapshot (bad magic)"
                              : "truncated snapshot");
    const uint32_t version = read_le<uint32_t>(s, 8);
    if (version > kSnapshotFormatVersion)
        throw Error(path,
                    fmt::format("snapshot format version {} is newer than this build reads ({}); "
                                "upgrade Radiant",
                                version, kSnapshotFormatVersion));
    if (version == 0) throw Error(path, "bad snapshot format version 0");
    const uint64_t header_len = read_le<uint64_t>(s, 16);
    if (header_len > s.size() - kPrefix) throw Error(path, "truncated snapshot (header cut short)");
    try {
        f.m_header = nlohmann::json::parse(s.substr(kPrefix, header_len));
    } catch (const nlohmann::json::exception&) {
        throw Error(path, "snapshot header is not valid JSON (corrupted file)");
    }
    // Every block must lie inside the file: checked without overflow, since a corrupt header
    // can claim any sizes.
    size_t end = align_up(kPrefix + header_len);
    const char* bad = "snapshot header has no valid block list (corrupted file)";
    auto blocks = f.m_header.find("blocks");
    if (!f.m_header.is_object() || blocks == f.m_header.end() || !blocks->is_array())
        throw Error(path, bad);
    for (const auto& b : *blocks) {
        if (!b.is_object() || !b.contains("name") || !b["name"].is_string() ||
            !b.contains("offset") || !b["offset"].is_number_unsigned() || !b.contains("bytes") ||
            !b["bytes"].is_number_unsigned())
            throw Error(path, bad);
        const uint64_t offset = b["offset"].get<uint64_t>(), bytes = b["bytes"].get<uint64_t>();
        if (offset > s.size() || bytes > s.size() - offset)
            throw Error(
                path,
                fmt::format(
                    "truncated snapshot: block '{}' claims {} bytes at offset {}, the file has {}",
                    b["name"].get<std::string>(), bytes, offset, s.size()));
        end = std::max<size_t>(end, align_up(offset + bytes));
    }
    if (s.size() < end + 8)
        throw Error(path, fmt::format("truncated snapshot: {} bytes, the header describes {}",
                                      s.size(), end + 8));
    if (s.size() > end + 8)
        throw Error(path,
                    fmt::format("snapshot has {} unexpected trailing bytes", s.size() - end - 8));
    if (snapshot_checksum(s.data(), end) != read_le<uint64_t>(s, end))
        throw Error(path, "snapshot checksum mismatch (the file is corrupted)");
    return f;
}

bool SnapshotFile::has_block(const std::string& name) const {
    for (const auto& b : m_header["blocks"])
        if (b["name"] == name) return true;
    return false;
}

std::span<const uint8_t> SnapshotFile::block(const std::string& name, size_t expected_bytes) const {
    for (const auto& b : m_header["blocks"]) {
        if (b["name"] != name) continue;
        const size_t bytes = b["bytes"].get<size_t>(), offset = b["offset"].get<size_t>();
        if (bytes != expected_bytes)
            throw Error(
                m_path,
                fmt::format("block '{}' holds {} bytes but the header's configuration needs {}",
                            name, bytes, expected_bytes));
        return {reinterpret_cast<const uint8_t*>(m_bytes.data()) + offset, bytes};
    }
    throw Error(m_path, fmt::format("snapshot has no '{}' block", name));
}

}  // namespace radiant
