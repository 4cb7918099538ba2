// Building blocks of `radiant prepare`: subprocesses, sharpness and thumbnails.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/subprocess.h"
#include "core/thread_pool.h"
#include "io/image.h"
#include "prepare/image_quality.h"
#include "prepare/video_frames.h"
#include "test_util.h"

namespace radiant {
namespace {

TEST(Subprocess, MergesOutputLinesAndReportsTheExitCode) {
    std::vector<std::string> lines;
    test::TempDir dir;
    SubprocessOptions o;
    o.log_path = dir / "log.txt";
    o.extra_env = {"RADIANT_TEST_VALUE=forty two"};
    o.on_line = [&](std::string_view l, bool partial) {
        if (!partial) lines.emplace_back(l);
    };
    const SubprocessResult r = run_subprocess(
        {"sh", "-c",
         "echo one; echo two 1>&2; printf 'a\\rb\\n'; echo \"$RADIANT_TEST_VALUE\"; exit 3"},
        o);
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "a", "b", "forty two"}));
    const std::string log = read_file(dir / "log.txt");
    EXPECT_NE(log.find("one\ntwo\n"), std::string::npos);
    EXPECT_NE(log.find("[exit 3]"), std::string::npos);
}

TEST(Subprocess, MissingProgramIsAnError) {
    EXPECT_RADIANT_ERROR(run_subprocess({"radiant-no-such-program-xyz"}),
                         "radiant-no-such-program-xyz", "not found");
}

TEST(Subprocess, StopRequestEndsTheProgramQuickly) {
    const auto start = std::chrono::steady_clock::now();
    SubprocessOptions o;
    o.should_stop = [&] {
        return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(200);
    };
    const SubprocessResult r = run_subprocess({"sleep", "30"}, o);
    EXPECT_TRUE(r.stopped);
    EXPECT_EQ(r.signal, SIGTERM);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Subprocess, ShellQuote) {
    EXPECT_EQ(shell_quote({"colmap", "--path", "a b", "it's"}), "colmap --path 'a b' 'it'\\''s'");
}

RawImage gray_image(int w, int h, const std::function<uint8_t(int, int)>& f) {
    RawImage im;
    im.width = w;
    im.height = h;
    im.channels = 1;
    im.bytes.resize(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) im.bytes[size_t(y) * w + x] = f(x, y);
    return im;
}

TEST(ImageQuality, LaplacianVarianceKnownAnswers) {
    EXPECT_EQ(laplacian_variance(to_gray(gray_image(16, 16, [](int, int) { return uint8_t(77); }))),
              0.0);
    // A linear ramp has zero Laplacian everywhere.
    EXPECT_NEAR(laplacian_variance(to_gray(
                    gray_image(16, 16, [](int x, int y) { return uint8_t(3 * x + 2 * y); }))),
                0.0, 1e-9);
    // A pixel checkerboard of 0/100: every interior Laplacian is +-400 (as many of each), mean
    // 0, variance 160000.
    EXPECT_NEAR(laplacian_variance(to_gray(gray_image(
                    18, 18, [](int x, int y) { return uint8_t((x + y) % 2 ? 100 : 0); }))),
                160000.0, 1e-6);
    // A blurred copy is less sharp.
    const RawImage sharp =
        gray_image(32, 32, [](int x, int y) { return uint8_t(((x / 2 + y / 2) % 2) * 200); });
    RawImage blurred = sharp;
    for (int y = 1; y < 31; ++y)
        for (int x = 1; x < 31; ++x) {
            int s = 0;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    s += sharp.bytes[size_t(y + dy) * 32 + size_t(x + dx)];
            blurred.bytes[size_t(y) * 32 + size_t(x)] = uint8_t(s / 9);
        }
    EXPECT_LT(laplacian_variance(to_gray(blurred)), 0.5 * laplacian_variance(to_gray(sharp)));
}

TEST(ImageQuality, GrayUsesRec601Weights) {
    RawImage im;
    im.width = 1;
    im.height = 1;
    im.channels = 3;
    im.bytes = {255, 0, 0};
    EXPECT_NEAR(to_gray(im).values[0], 0.299f * 255, 1e-4f);
    im.bit_depth = 16;
    im.bytes.clear();
    im.words = {0, 65535, 0};
    EXPECT_NEAR(to_gray(im).values[0], 0.587f * 255, 1e-3f);
}

TEST(ImageQuality, ThumbnailsTellDuplicatesFromDifferentFrames) {
    const auto a =
        thumbnail(to_gray(gray_image(64, 48, [](int x, int) { return uint8_t(x * 4); })), 8);
    ASSERT_EQ(a.size(), 64u);
    EXPECT_NEAR(a[0], (0 + 4 + 8 + 12 + 16 + 20 + 24 + 28) / 8.0,
                1e-4);  // box average of 8 columns
    const auto b = thumbnail(
        to_gray(gray_image(64, 48, [](int x, int y) { return uint8_t(x * 4 + ((x + y) % 2)); })),
        8);
    const auto c =
        thumbnail(to_gray(gray_image(64, 48, [](int x, int) { return uint8_t(255 - x * 4); })), 8);
    EXPECT_LT(thumbnail_difference(a, b), 1.0);   // pixel noise: a duplicate
    EXPECT_GT(thumbnail_difference(a, c), 50.0);  // a different view
    EXPECT_EQ(thumbnail_difference(a, a), 0.0);
}

bool have_ffmpeg() {
    return std::system(
               "command -v ffmpeg > /dev/null 2>&1 && command -v ffprobe > /dev/null 2>&1") == 0;
}

TEST(VideoFrames, KeepsTheAskedRateOrCountAndDropsStills) {
    if (!have_ffmpeg()) GTEST_SKIP() << "ffmpeg is not installed; skipping";
    test::TempDir dir;
    // 4 s of ffmpeg's moving test pattern at 30 fps, then 3 s of a still grey picture.
    const std::string moving = dir / "moving.mp4", still = dir / "still.mp4";
    ASSERT_EQ(std::system(("ffmpeg -v error -nostdin -f lavfi -i testsrc=size=128x96:rate=30 -t 4 "
                           "-pix_fmt yuv420p " +
                           moving)
                              .c_str()),
              0);
    ASSERT_EQ(std::system(("ffmpeg -v error -nostdin -f lavfi -i color=c=gray:size=128x96:rate=30 "
                           "-t 3 -pix_fmt yuv420p " +
                           still)
                              .c_str()),
              0);
    EXPECT_TRUE(looks_like_video(moving));
    EXPECT_FALSE(looks_like_video(dir / "photo.jpg"));
    const VideoInfo info = probe_video(moving);
    EXPECT_EQ(info.width, 128);
    EXPECT_EQ(info.height, 96);
    EXPECT_NEAR(info.fps, 30.0, 1e-6);
    EXPECT_NEAR(info.duration, 4.0, 0.1);
    ThreadPool pool(2);
    auto extract = [&](const std::string& video, const VideoFrameOptions& o) {
        const std::string out = dir / ("out" + std::to_string(std::rand()));
        std::filesystem::create_directories(out);
        return extract_video_frames(video, out, o, pool, [] { return false; });
    };
    VideoFrameOptions o;
    o.fps = 2;
    VideoFrames f = extract(moving, o);
    EXPECT_EQ(f.paths.size(), 8u);  // 2 a second for 4 s
    EXPECT_EQ(f.candidates, 24u);   // 3x oversampled
    EXPECT_EQ(f.duplicates_dropped, 0u);
    EXPECT_EQ(std::filesystem::path(f.paths[0]).filename(), "frame_00001.jpg");
    EXPECT_EQ(load_image(f.paths[3]).width, 128);
    o.frames = 12;
    f = extract(moving, o);
    EXPECT_EQ(f.paths.size(), 12u);
    // A still picture gives one frame: the rest repeat it.
    o.frames = 0;
    f = extract(still, o);
    EXPECT_EQ(f.paths.size(), 1u);
    EXPECT_EQ(f.duplicates_dropped, 5u);
    // The candidates' temporary folder is gone.
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        EXPECT_EQ(e.path().filename().string().find(".video_candidates"), std::string::npos);
}

}  // namespace
}  // namespace radiant
