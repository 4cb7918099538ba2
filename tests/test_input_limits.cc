// Memory is bounded by the real data, not by what a header claims: image headers claiming
// gigapixels, transforms files with too many frames or bytes, snapshot headers claiming huge
// blocks or huge tables are all refused before anything of that size is allocated.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <filesystem>

#include "cli_test_util.h"
#include "core/system.h"
#include "io/image.h"
#include "io/snapshot.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "jpeg_writer.h"
#include "nerf/model_io.h"
#include "test_util.h"

namespace radiant {
namespace {

// AddressSanitizer's own shadow memory and quarantine add ~100 MB to any process.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

uint32_t crc32(const std::string& bytes) {
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char b : bytes) {
        crc ^= b;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put_be32(std::string& s, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) s.push_back(char((v >> shift) & 0xFF));
}

void put_chunk(std::string& png, const std::string& type, const std::string& data) {
    put_be32(png, uint32_t(data.size()));
    png += type + data;
    put_be32(png, crc32(type + data));
}

// A tiny PNG (signature, IHDR of 8-bit RGBA claiming width x height, a few bytes of IDAT, IEND):
// a few dozen bytes that would decode to width x height x 4 bytes.
std::string png_header_only(uint32_t width, uint32_t height) {
    std::string png("\x89PNG\r\n\x1a\n", 8), ihdr;
    put_be32(ihdr, width);
    put_be32(ihdr, height);
    ihdr += std::string("\x08\x06\x00\x00\x00", 5);
    put_chunk(png, "IHDR", ihdr);
    put_chunk(png, "IDAT", std::string("\x78\x9c\x03\x00\x00\x00\x00\x01", 8));
    put_chunk(png, "IEND", "");
    return png;
}

// A real 16x8 JPEG whose SOF0 frame header is patched to claim width x height.
std::string jpeg_claiming(uint16_t width, uint16_t height) {
    std::string jpeg = test::encode_jpeg(16, 8, 3, std::vector<unsigned char>(16 * 8 * 3, 128));
    for (size_t i = 2; i + 9 < jpeg.size(); ++i) {
        if (uint8_t(jpeg[i]) == 0xFF &&
            (uint8_t(jpeg[i + 1]) == 0xC0 || uint8_t(jpeg[i + 1]) == 0xC2)) {
            jpeg[i + 5] = char(height >> 8), jpeg[i + 6] = char(height & 0xFF);
            jpeg[i + 7] = char(width >> 8), jpeg[i + 8] = char(width & 0xFF);
            return jpeg;
        }
    }
    ADD_FAILURE() << "no SOF marker in the test JPEG";
    return jpeg;
}

TEST(InputLimits, PngHeaderClaimingTenGigapixelsIsRefusedBeforeDecoding) {
    const std::string png = png_header_only(100000, 100000);
    EXPECT_RADIANT_ERROR(decode_png(png, "huge.png"), "huge.png", "100000 x 100000 pixels");
    EXPECT_RADIANT_ERROR(decode_image(png, "huge.png"), "huge.png", "up to 134 megapixels");
    EXPECT_RADIANT_ERROR(png_size(png, "huge.png"), "huge.png", "100000 x 100000");
    // Just under the side limit but far over the pixel limit, and an empty one.
    EXPECT_RADIANT_ERROR(decode_png(png_header_only(60000, 60000), "wide.png"), "wide.png",
                         "megapixels");
}

TEST(InputLimits, JpegHeaderClaimingGigapixelsIsRefusedBeforeDecoding) {
    const std::string ok = jpeg_claiming(16, 8);
    EXPECT_EQ(decode_jpeg(ok, "ok.jpg").width, 16);  // the patching itself keeps a valid file
    const std::string huge = jpeg_claiming(60000, 60000);
    EXPECT_RADIANT_ERROR(decode_jpeg(huge, "huge.jpg"), "huge.jpg", "60000 x 60000 pixels");
    EXPECT_RADIANT_ERROR(jpeg_size(huge, "huge.jpg"), "huge.jpg", "megapixels");
}

TEST(InputLimits, ImageWithinTheLimitsStillDecodes) {
    // 16384 x 8192 = exactly the pixel limit.
    check_image_dimensions(16384, 8192, "PNG", "max.png");
    EXPECT_RADIANT_ERROR(check_image_dimensions(16384, 8193, "PNG", "big.png"), "big.png",
                         "megapixels");
    EXPECT_RADIANT_ERROR(check_image_dimensions(0, 10, "PNG", "empty.png"), "empty.png", "empty");
}

// The CLI refuses the 100000 x 100000 header with one line, and the process stays small: the
// claimed 40 GB are never allocated.
TEST(InputLimits, CliRefusesHugePngHeaderWithSmallPeakMemory) {
    test::TempDir dir;
    test::write_text(dir / "huge.png", png_header_only(100000, 100000));
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const std::string err = dir / "stderr.txt";
        freopen("/dev/null", "w", stdout);
        freopen(err.c_str(), "w", stderr);
        const std::string image = dir / "huge.png";
        execl(RADIANT_BINARY, RADIANT_BINARY, "fit-image", image.c_str(), "--steps", "1", nullptr);
        _exit(127);
    }
    int status = 0;
    rusage usage{};
    ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 2);
    const std::string err = read_file(dir / "stderr.txt");
    EXPECT_NE(err.find("huge.png: PNG header claims 100000 x 100000 pixels"), std::string::npos)
        << err;
    EXPECT_LT(usage.ru_maxrss, kSanitized ? 400 * 1024 : 100 * 1024) << "peak RSS in KiB";
}

TEST(InputLimits, TransformsWithTooManyFramesIsRefusedBeforeAllocatingThem) {
    test::TempDir dir;
    std::string text = R"({"camera_angle_x": 0.7, "frames": [)";
    for (size_t i = 0; i <= kMaxFrames; ++i) text += i ? ",{}" : "{}";
    text += "]}";
    test::write_text(dir / "transforms.json", text);
    EXPECT_RADIANT_ERROR(load_transforms(dir.path().string()), "transforms.json",
                         "lists 100001 frames; Radiant trains on at most 100000");
}

TEST(InputLimits, OversizedTransformsFileIsRefusedBeforeReading) {
    test::TempDir dir;
    const std::string path = dir / "transforms.json";
    test::write_text(path, "{");
    std::filesystem::resize_file(path, kMaxTransformsBytes + 1);  // sparse: costs no disk
    EXPECT_RADIANT_ERROR(load_transforms(path), "transforms.json", "read up to 64 MiB");
}

TEST(InputLimits, ReadFileHonoursItsLimitOnSpecialFiles) {
    // /dev/zero reports no size and never ends: the limit still stops the read.
    EXPECT_RADIANT_ERROR(read_file("/dev/zero", 1 << 20), "/dev/zero", "over 1 MiB");
}

TEST(InputLimits, SnapshotBlockBeyondTheFileIsRefused) {
    test::TempDir dir;
    const std::string path = dir / "s.radiant";
    std::vector<float> data(16, 1.0f);
    write_snapshot(path, {{"kind", "test"}}, {{"data", data.data(), data.size() * sizeof(float)}});
    std::string bytes = read_file(path);
    // Rewrite a number in the (space-padded) header: the block claims 2^60 bytes, or sits at
    // 2^64 - 32 so that offset + bytes wraps around to a small number.
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"\"bytes\":", "1152921504606846976"}, {"\"offset\":", "18446744073709551584"}}) {
        std::string patched = bytes;
        const size_t at = patched.find(key) + key.size();
        ASSERT_NE(at, std::string::npos + key.size());
        const size_t digits = patched.find_first_not_of("0123456789", at) - at;
        patched.replace(at, digits, value);
        patched.erase(patched.find("}    ") + 1, value.size() - digits);  // keep the header length
        ASSERT_EQ(patched.size(), bytes.size());
        test::write_text(path, patched);
        EXPECT_RADIANT_ERROR(SnapshotFile::read(path), "s.radiant",
                             "truncated snapshot: block 'data' claims");
    }
}

TEST(InputLimits, ModelSnapshotClaimingHugeTablesIsRefusedBeforeAllocating) {
    test::TempDir dir;
    NerfModelConfig config;
    config.field.grid.n_levels = 32;
    config.field.grid.n_features_per_level = 8;
    config.field.grid.log2_hashmap_size = 24;  // 32 x 8 x 2^24 floats: 16 GiB of tables
    config.grid_resolution = 512;              // and 512^3 occupancy cells
    std::vector<float> small(1024, 0.0f);
    const std::string path = dir / "huge.radiant";
    write_snapshot(path, {{"kind", "radiant-nerf"}, {"model", model_config_to_json(config)}},
                   {{"params", small.data(), small.size() * sizeof(float)},
                    {"occupancy", small.data(), small.size() * sizeof(float)}});
    const double rss_before = peak_rss_mb();
    EXPECT_RADIANT_ERROR(load_model_snapshot(path), "huge.radiant",
                         "block 'params' holds 4096 bytes");
    EXPECT_LT(peak_rss_mb() - rss_before, 100.0);
}

TEST(InputLimits, StagingRefusesImagesOverItsMemoryBudget) {
    test::TempDir dir;
    ImageF image(32, 32, 3);
    save_png(dir / "a.png", image);
    save_png(dir / "b.png", image);
    test::write_text(dir / "transforms.json", R"({"camera_angle_x": 0.7, "frames": [
        {"file_path": "a.png", "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]},
        {"file_path": "b.png", "transform_matrix": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]}]})");
    const Dataset dataset = load_transforms(dir.path().string());
    ThreadPool pool(2);
    StagingOptions options;
    options.max_staged_bytes = 32 * 32 * 4 * 2;  // exactly both images: accepted
    EXPECT_EQ(stage_images(dataset, options, pool).pixel_count(), 2u * 32 * 32);
    options.max_staged_bytes -= 1;
    EXPECT_RADIANT_ERROR(stage_images(dataset, options, pool), "transforms.json",
                         "use a larger --downscale");
}

}  // namespace
}  // namespace radiant

namespace radiant {
namespace {

std::string fuzz_regression(const std::string& harness, const std::string& name) {
    return std::string(RADIANT_SOURCE_DIR) + "/fuzz/regressions/" + harness + "/" + name;
}

// Found by fuzz_png: a metadata chunk whose length claims ~2 GB made libpng allocate and
// zero-fill it (only a warning) before finding the file ends after 45 bytes.
TEST(InputLimits, PngMetadataChunkClaimingGigabytesIsSkippedUnread) {
    for (const char* name : {"splt_length_1_9_gb.png", "text_length_1_6_gb.png"}) {
        const std::string bytes = read_file(fuzz_regression("png", name));
        const double rss_before = peak_rss_mb();
        EXPECT_RADIANT_ERROR(decode_png(bytes, name), name, "corrupt or truncated PNG");
        EXPECT_RADIANT_ERROR(png_size(bytes, name), name, "corrupt or truncated PNG");
        EXPECT_LT(peak_rss_mb() - rss_before, 100.0) << name;
    }
}

// Found by fuzz_transforms: "w": 3e9 wrapped to a negative int width; values finite as doubles
// but beyond float's range loaded as inf.
TEST(InputLimits, TransformsNumbersMustFitWhatTheyAreStoredIn) {
    test::TempDir dir;
    std::filesystem::copy_file(fuzz_regression("transforms", "width_3e9_wraps_negative.json"),
                               dir / "w.json");
    EXPECT_RADIANT_ERROR(load_transforms(dir / "w.json"), "w.json",
                         "'w' is 3000000000; images are at most 65535");
    std::filesystem::copy_file(fuzz_regression("transforms", "beyond_float_range_becomes_inf.json"),
                               dir / "f.json");
    EXPECT_RADIANT_ERROR(load_transforms(dir / "f.json"), "f.json",
                         "'fl_x' is 1e+300, beyond the +-1e30");
}

// Found by fuzz_snapshot: 32 levels doubling from 16 put the finest level's scale (16 * 2^31)
// beyond the uint32 the kernels hold it in.
TEST(InputLimits, ModelConfigWithAnOverflowingFinestLevelIsRefused) {
    const std::string path =
        fuzz_regression("snapshot", "hash_grid_finest_level_overflows_uint32.radiant");
    EXPECT_RADIANT_ERROR(load_model_snapshot(path),
                         "hash_grid_finest_level_overflows_uint32.radiant",
                         "model.field resolution (finest level)");
}

}  // namespace
}  // namespace radiant
