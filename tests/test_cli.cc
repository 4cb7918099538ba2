// End-to-end checks of the `radiant` executable: exit codes, one-line errors, no partial files.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "core/system.h"
#include "io/image.h"
#include "test_util.h"

namespace radiant {
namespace {

using test::run_radiant;
using test::RunResult;

// Exit 2, the problem named on one line of stderr, and the output file never created.
void expect_rejected(const test::TempDir& dir, const std::string& args, const std::string& needle) {
    RunResult r = run_radiant(dir, args + " --out " + (dir / "never.png"));
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\nstderr: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "never.png")) << args;
}

TEST(Cli, FitImageRejectsBadInput) {
    test::TempDir dir;
    test::write_text(dir / "notes.png", "not an image");
    ImageF img(8, 8, 3);
    save_png(dir / "ok.png", img);
    std::string bytes = read_file(dir / "ok.png");
    test::write_text(dir / "cut.png", bytes.substr(0, bytes.size() / 2));
    expect_rejected(dir, "fit-image " + (dir / "missing.png"), "missing.png: image file not found");
    expect_rejected(dir, "fit-image " + (dir / "notes.png"), "notes.png: not a PNG or JPEG");
    expect_rejected(dir, "fit-image " + (dir / "cut.png"), "cut.png: corrupt or truncated PNG");
    expect_rejected(dir, "fit-image " + dir.path().string(), "is a directory");
    expect_rejected(dir, "fit-image --log2-table 40", "--log2-table");
    expect_rejected(dir, "fit-image --batch 3", "--batch");
    expect_rejected(dir, "fit-image --threads -1", "--threads");
    expect_rejected(dir, "fit-image --steps banana", "--steps");
    expect_rejected(dir, "fit-image --loss cubic", "--loss");
    expect_rejected(dir, "no-such-command", "unknown command 'no-such-command'");
    RunResult r = run_radiant(dir, "fit-image --steps 1 --out " + (dir / "nofolder/x.png"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

TEST(Cli, FitImageWritesReconstructionAndReport) {
    test::TempDir dir;
    RunResult r = run_radiant(dir,
                              "fit-image --pattern-size 64 --steps 30 --batch 4096 "
                              "--log2-table 14 --eval-every 10 --out " +
                                  (dir / "rec.png") + " --report " + (dir / "r.json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("PSNR"), std::string::npos);
    RawImage rec = load_image(dir / "rec.png");
    EXPECT_EQ(rec.width, 64);
    EXPECT_EQ(rec.channels, 3);
    auto j = nlohmann::json::parse(read_file(dir / "r.json"));
    EXPECT_EQ(j["command"], "fit-image");
    EXPECT_EQ(j["steps"], 30);
    EXPECT_GT(j["psnr"].get<double>(), 10.0);
    EXPECT_GT(j["samples_per_second"].get<double>(), 0.0);
    bool has_psnr_point = false;
    for (const auto& h : j["history"]) has_psnr_point |= h.contains("psnr");
    EXPECT_TRUE(has_psnr_point);
}

TEST(Cli, HelpAndVersion) {
    test::TempDir dir;
    RunResult r = run_radiant(dir, "--help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("fit-image"), std::string::npos);
    r = run_radiant(dir, "fit-image --help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("--log2-table"), std::string::npos);
    r = run_radiant(dir, "");
    EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace radiant
