// `.radiant` snapshots: SnapshotFile::read (magic, version, header JSON, block list, checksum)
// and load_model_snapshot (the model config in the header, the params and occupancy blocks).
//
// A mutated file almost never keeps a valid checksum, which would stop every input at the
// checksum test; so each input is read twice: as it is, and with its last 8 bytes replaced by
// the checksum of the bytes before them, which lets mutations of the header and blocks reach
// the code after the checksum test.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "fuzz_util.h"
#include "io/snapshot.h"
#include "nerf/model_io.h"

using namespace radiant;

namespace {
void read_snapshot(const std::string& path) {
    try {
        const SnapshotFile f = SnapshotFile::read(path);
        // Every block the (validated) header lists, at its listed size, as the model reader
        // asks for them; and one that is not there.
        std::vector<std::pair<std::string, size_t>> listed;
        for (const auto& b : f.header()["blocks"])
            if (b.is_object() && b.contains("name") && b["name"].is_string() &&
                b["bytes"].is_number_unsigned())
                listed.emplace_back(b["name"].get<std::string>(), b["bytes"].get<size_t>());
        for (const auto& [name, bytes] : listed) {
            FUZZ_ASSERT(f.has_block(name));
            const auto span = f.block(name, bytes);
            FUZZ_ASSERT(span.size() == bytes);
            (void)snapshot_checksum(span.data(), bytes);  // reads every byte of it
        }
        FUZZ_ASSERT(!f.has_block("no such block"));
        fuzz::accepted("SnapshotFile::read");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    try {
        const LoadedModel m = load_model_snapshot(path);
        FUZZ_ASSERT(m.model != nullptr);
        fuzz::accepted("load_model_snapshot");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const fuzz::Scratch scratch("snapshot");
    read_snapshot(scratch.write("raw.radiant", data, size));
    if (size >= 32) {
        std::string fixed(reinterpret_cast<const char*>(data), size);
        const uint64_t sum = snapshot_checksum(fixed.data(), size - 8);
        std::memcpy(fixed.data() + size - 8, &sum, 8);
        if (std::memcmp(fixed.data(), data, size) != 0)
            read_snapshot(scratch.write("fixed.radiant", fixed));
    }
    return 0;
}
