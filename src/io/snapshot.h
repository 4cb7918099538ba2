// Snapshot container (`.radiant`, DESIGN §5): a versioned, checksummed file holding a JSON
// header and named raw blocks. It knows nothing of what the blocks mean; src/nerf/model_io
// maps a model onto it, src/train/training_state the optimiser and schedule.
//
// Layout (little-endian):
//   "RADIANT\x1a"  u32 format version  u32 0  u64 header length  header JSON
//   blocks, each starting at a multiple of 64 bytes (offsets and sizes listed in the header)
//   u64 checksum of every byte before it
// Written through a temporary file and a rename, so a crash never leaves a torn snapshot.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"

namespace radiant {

constexpr uint32_t kSnapshotFormatVersion = 1;

struct SnapshotBlockRef {
    std::string name;
    const void* data = nullptr;
    size_t bytes = 0;
};

// A header field of the snapshot at `path`: Error (naming the file, where and the key) when it is
// missing or of the wrong type.
template <class T>
T snapshot_field(const nlohmann::json& j, const char* key, const std::string& path,
                 const char* where) {
    if (!j.is_object() || !j.contains(key))
        throw Error(path, fmt::format("snapshot header: {} has no '{}'", where, key));
    try {
        return j.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw Error(path, fmt::format("snapshot header: {}.{} has the wrong type", where, key));
    }
}

// Writes header + blocks atomically. The header gains a "blocks" entry listing the blocks.
void write_snapshot(const std::string& path, nlohmann::json header,
                    const std::vector<SnapshotBlockRef>& blocks);

class SnapshotFile {
  public:
    // Reads and validates the whole file: magic, version, sizes, checksum. Throws Error
    // naming the path and what is wrong (truncated, bad checksum, newer version, ...).
    static SnapshotFile read(const std::string& path);

    const std::string& path() const { return m_path; }
    const nlohmann::json& header() const { return m_header; }
    bool has_block(const std::string& name) const;
    // The block's bytes; throws Error if it is missing or not `expected_bytes` long.
    std::span<const uint8_t> block(const std::string& name, size_t expected_bytes) const;

  private:
    std::string m_path;
    std::string m_bytes;
    nlohmann::json m_header;
};

// The checksum used by the format: 64-bit, FNV-1a style over 8-byte words in four lanes (so
// hashing runs at memory speed), then the tail bytes and the length. Streaming.
class SnapshotHasher {
  public:
    void update(const void* data, size_t bytes);
    uint64_t digest() const;

  private:
    void mix(const uint8_t* group);
    uint64_t m_lane[4] = {14695981039346656037ull, 14695981039346656037ull ^ 1,
                          14695981039346656037ull ^ 2, 14695981039346656037ull ^ 3};
    uint8_t m_buffer[32] = {};
    size_t m_fill = 0;
    uint64_t m_total = 0;
};
uint64_t snapshot_checksum(const void* data, size_t bytes);

}  // namespace radiant
