// The `.radiant` container: round trip, and every kind of corruption rejected with its reason.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "core/system.h"
#include "io/snapshot.h"
#include "test_util.h"

namespace radiant {
namespace {

std::string write_sample(const test::TempDir& dir, std::vector<float>& a, std::vector<uint8_t>& b) {
    a.resize(1000);
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i) * 0.25f - 7.0f;
    b = {1, 2, 3, 4, 5};
    const std::string path = dir / "s.radiant";
    write_snapshot(path, {{"kind", "test"}, {"answer", 42}},
                   {{"floats", a.data(), a.size() * sizeof(float)}, {"bytes", b.data(), b.size()}});
    return path;
}

TEST(Snapshot, RoundTripsHeaderAndBlocks) {
    test::TempDir dir;
    std::vector<float> a;
    std::vector<uint8_t> b;
    const std::string path = write_sample(dir, a, b);
    SnapshotFile f = SnapshotFile::read(path);
    EXPECT_EQ(f.header()["answer"], 42);
    auto fa = f.block("floats", a.size() * sizeof(float));
    EXPECT_EQ(std::memcmp(fa.data(), a.data(), fa.size()), 0);
    auto fb = f.block("bytes", 5);
    EXPECT_EQ(std::vector<uint8_t>(fb.begin(), fb.end()), b);
    EXPECT_TRUE(f.has_block("bytes"));
    EXPECT_FALSE(f.has_block("other"));
    EXPECT_RADIANT_ERROR(f.block("floats", 12), "s.radiant",
                         "holds 4000 bytes but the header's configuration needs 12");
    EXPECT_RADIANT_ERROR(f.block("other", 1), "s.radiant", "no 'other' block");
    // No temporary file is left behind.
    size_t files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file();
    EXPECT_EQ(files, 1u);
}

TEST(Snapshot, ChecksumStreamsLikeOneShot) {
    std::vector<uint8_t> data(1000);
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7 + 3);
    SnapshotHasher h;
    h.update(data.data(), 5);
    h.update(data.data() + 5, 60);
    h.update(data.data() + 65, data.size() - 65);
    EXPECT_EQ(h.digest(), snapshot_checksum(data.data(), data.size()));
    data[500] ^= 1;
    EXPECT_NE(h.digest(), snapshot_checksum(data.data(), data.size()));
}

TEST(Snapshot, RejectsEveryCorruption) {
    test::TempDir dir;
    std::vector<float> a;
    std::vector<uint8_t> b;
    const std::string path = write_sample(dir, a, b);
    const std::string good = read_file(path);
    auto variant = [&](const std::string& name, std::string bytes) {
        const std::string p = dir / name;
        test::write_text(p, bytes);
        return p;
    };
    EXPECT_RADIANT_ERROR(
        SnapshotFile::read(variant("cut.radiant", good.substr(0, good.size() - 100))),
        "cut.radiant", "truncated snapshot");
    EXPECT_RADIANT_ERROR(SnapshotFile::read(variant("tiny.radiant", good.substr(0, 12))),
                         "tiny.radiant", "truncated snapshot");
    std::string flipped = good;
    flipped[good.size() - 200] ^= 0x10;
    EXPECT_RADIANT_ERROR(SnapshotFile::read(variant("flip.radiant", flipped)), "flip.radiant",
                         "checksum mismatch");
    std::string newer = good;
    const uint32_t v = kSnapshotFormatVersion + 1;
    std::memcpy(&newer[8], &v, 4);
    EXPECT_RADIANT_ERROR(SnapshotFile::read(variant("newer.radiant", newer)), "newer.radiant",
                         "format version 2 is newer than this build reads (1)");
    EXPECT_RADIANT_ERROR(
        SnapshotFile::read(variant("png.radiant", "\x89PNG\r\n\x1a\n and more bytes here")),
        "png.radiant", "not a Radiant snapshot");
    EXPECT_RADIANT_ERROR(SnapshotFile::read(variant("long.radiant", good + "xx")), "long.radiant",
                         "unexpected trailing bytes");
    std::string header = good;
    header[24] = '#';  // first byte of the JSON header
    EXPECT_RADIANT_ERROR(SnapshotFile::read(variant("json.radiant", header)), "json.radiant",
                         "not valid JSON");
    EXPECT_RADIANT_ERROR(SnapshotFile::read(dir / "missing.radiant"), "missing.radiant",
                         "no such file");
}

}  // namespace
}  // namespace radiant
