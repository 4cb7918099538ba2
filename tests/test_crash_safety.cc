// Crash safety of training: SIGKILL at random moments never costs more than the steps since the
// last checkpoint, a full disk during a snapshot write leaves the previous snapshot loadable, and
// a read-only output folder is refused before training starts.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <sstream>
#include <thread>

#include "cli_test_util.h"
#include "core/system.h"
#include "nerf/model_io.h"
#include "small_demo_scene.h"
#include "test_util.h"

namespace radiant {
namespace {

namespace fs = std::filesystem;

std::string train_args(const DemoScene& scene, const std::string& snapshot) {
    return "train " + scene.train_json +
           " --log2-table 14 --target-samples 4096 --threads 1 --seed 3 --snapshot " + snapshot;
}

// Starts `radiant ARGS` (a shell fragment) with its output into `dir`; returns the pid.
pid_t spawn_radiant(const test::TempDir& dir, const std::string& args) {
    const pid_t pid = fork();
    if (pid == 0) {
        // exec replaces the shell with radiant, so the pid is radiant's and SIGKILL reaches it.
        const std::string cmd = "exec " + std::string(RADIANT_BINARY) + " " + args + " > " +
                                (dir / "out.txt") + " 2> " + (dir / "err.txt");
        execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
        _exit(127);
    }
    return pid;
}

std::string read_file_if_any(const std::string& path) {
    return fs::exists(path) ? read_file(path) : std::string();
}

std::vector<std::string> temporaries_in(const std::string& folder) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(folder))
        if (e.path().filename().string().find(".tmp.") != std::string::npos)
            names.push_back(e.path().filename());
    return names;
}

uint64_t snapshot_step(const std::string& path) {
    const LoadedModel m = load_model_snapshot(path);  // throws if the file is torn or corrupt
    return m.file.header()["training"]["step"].get<uint64_t>();
}

int non_empty_lines(const std::string& text) {
    int n = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) n += !line.empty();
    return n;
}

// True when this machine lets a test mount a small tmpfs in its own mount namespace.
bool can_mount_tmpfs() {
    return std::system(
               "unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs /tmp' > /dev/null 2>&1") == 0;
}

TEST(CrashSafety, TwentySigkillsAtRandomMomentsThenTheRunFinishes) {
    test::TempDir dir;
    const DemoScene scene = test::write_tiny_demo_scene(dir / "scene");
    const std::string out = dir / "out", snap = out + "/m.radiant";
    fs::create_directories(out);
    // Long enough that 20 kills come before the end even on a machine a few times faster than
    // this one: once the grid's warm-up got shorter, 400 steps with kills up to 1 s apart
    // ended after 15 kills; this whole test now takes ~20 s here.
    const uint64_t total_steps = 1000;
    std::mt19937 rng(2026);
    // Counted from when training starts (staging done), so a loaded machine's slow start-up
    // does not turn every kill into one before the first checkpoint.
    std::uniform_int_distribution<int> delay_ms(0, 500);
    uint64_t last_step = 0;
    int kills = 0, kills_with_a_snapshot = 0;
    for (int attempt = 0; attempt < 60 && kills < 20; ++attempt) {
        const bool resume = fs::exists(snap);
        fs::remove(dir / "err.txt");  // the last attempt's start-up line must not count
        const pid_t pid =
            spawn_radiant(dir, train_args(scene, snap) + " --steps " + std::to_string(total_steps) +
                                   " --checkpoint-every 5" + (resume ? " --resume" : ""));
        ASSERT_GT(pid, 0);
        // The "train: SCENE: N views" line comes once the images are staged (or the process ends).
        int status = 0;
        bool ended = false;
        for (int i = 0;
             i < 600 && read_file_if_any(dir / "err.txt").find("views") == std::string::npos; ++i) {
            if ((ended = waitpid(pid, &status, WNOHANG) == pid)) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        bool killed = false;
        if (!ended && attempt == 0) {
            // The first start is killed once its first checkpoint lands, so the later kills
            // resume from a snapshot however slow a loaded machine makes the first steps
            // (the grid's warm-up passes alone take ~0.5 s here, ~2 s beside other tests).
            while (!fs::exists(snap) && !(ended = waitpid(pid, &status, WNOHANG) == pid))
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        if (!ended) {
            if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
            killed = kill(pid, SIGKILL) == 0;
            ASSERT_EQ(waitpid(pid, &status, 0), pid);
        }
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
            // It finished before the kill: that is only right if every step is done.
            ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
                << read_file(dir / "err.txt");
            break;
        }
        ASSERT_TRUE(killed);
        ++kills;
        // The latest snapshot always loads, and it never goes back in steps.
        if (fs::exists(snap)) {
            ++kills_with_a_snapshot;
            uint64_t step = 0;
            ASSERT_NO_THROW(step = snapshot_step(snap)) << "kill " << kills;
            EXPECT_GE(step, last_step) << "kill " << kills;
            last_step = step;
        }
    }
    EXPECT_GE(kills, 20) << "the run finished before 20 kills; make it longer";
    EXPECT_GE(kills_with_a_snapshot, 10);
    // The last start cleans what the kills left and finishes with exactly the steps asked for.
    test::RunResult r =
        test::run_radiant(dir, train_args(scene, snap) + " --steps " + std::to_string(total_steps) +
                                   " --checkpoint-every 5" + (fs::exists(snap) ? " --resume" : ""));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(snapshot_step(snap), total_steps);
    EXPECT_TRUE(temporaries_in(out).empty()) << temporaries_in(out).front();
}

TEST(CrashSafety, StaleTemporaryOfADeadWriterIsRemovedAtTheNextStart) {
    test::TempDir dir;
    const DemoScene scene = test::write_tiny_demo_scene(dir / "scene");
    const std::string snap = dir / "m.radiant";
    // A pid that cannot be alive (above the kernel's maximum) and our own, still running one.
    test::write_text(snap + ".tmp.999999999", "torn");
    test::write_text(snap + ".tmp." + std::to_string(getpid()), "being written");
    test::RunResult r = test::run_radiant(dir, train_args(scene, snap) + " --steps 3");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("removed 1 temporary file left by an interrupted write of " + snap),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(snap + ".tmp.999999999"));
    EXPECT_TRUE(
        fs::exists(snap + ".tmp." + std::to_string(getpid())));  // a live writer's file is kept
    EXPECT_EQ(snapshot_step(snap), 3u);
}

TEST(CrashSafety, FullDiskDuringASnapshotWriteKeepsThePreviousSnapshot) {
    if (!can_mount_tmpfs())
        GTEST_SKIP() << "cannot mount a tmpfs here (needs unshare -rm); skipping";
    test::TempDir dir;
    const DemoScene scene = test::write_tiny_demo_scene(dir / "scene");
    // How big one snapshot is; the small disk then holds one, but not one more beside it.
    const std::string probe = dir / "probe.radiant";
    ASSERT_EQ(test::run_radiant(dir, train_args(scene, probe) + " --steps 2").exit_code, 0);
    const size_t bytes = fs::file_size(probe);
    const std::string disk = dir / "disk", kept = dir / "kept.radiant";
    fs::create_directories(disk);
    const std::string inner = std::string(RADIANT_BINARY) + " " +
                              train_args(scene, disk + "/m.radiant") +
                              " --steps 20 --checkpoint-every 10 2> " + (dir / "err.txt") +
                              "; echo $? > " + (dir / "code.txt") + "; ls -a " + disk + " > " +
                              (dir / "ls.txt") + "; cp " + disk + "/m.radiant " + kept;
    const std::string cmd =
        "unshare -rm sh -c 'mount -t tmpfs -o size=" + std::to_string(bytes * 3 / 2 / 1024) +
        "k tmpfs " + disk + " && " + inner + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    const std::string err = read_file(dir / "err.txt");
    EXPECT_EQ(std::stoi(read_file(dir / "code.txt")), 2) << err;
    // One line, the last one: the file, the reason, and that the previous snapshot is kept.
    std::string last = err.substr(0, err.find_last_not_of('\n') + 1);
    last = last.substr(last.rfind('\n') + 1);
    EXPECT_NE(last.find("m.radiant: cannot write: No space left on device (the previous snapshot "
                        "there is untouched)"),
              std::string::npos)
        << err;
    EXPECT_EQ(snapshot_step(kept), 10u);  // the checkpoint before the failed write
    EXPECT_EQ(read_file(dir / "ls.txt").find(".tmp."), std::string::npos)
        << "temporary left on the full disk";
}

TEST(CrashSafety, ReadOnlyOutputFolderIsRefusedBeforeTraining) {
    test::TempDir dir;
    const DemoScene scene = test::write_tiny_demo_scene(dir / "scene");
    const std::string ro = dir / "ro";
    fs::create_directories(ro);
    std::string run;
    if (geteuid() != 0) {
        fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
        run = std::string(RADIANT_BINARY) + " " + train_args(scene, ro + "/m.radiant") +
              " --steps 50";
    } else {
        // Root writes through permission bits; a read-only mount stops it.
        if (!can_mount_tmpfs())
            GTEST_SKIP() << "running as root and cannot mount a read-only tmpfs; skipping";
        run = "unshare -rm sh -c 'mount -t tmpfs -o ro tmpfs " + ro + " && exec " + RADIANT_BINARY +
              " " + train_args(scene, ro + "/m.radiant") + " --steps 50'";
    }
    const int status =
        std::system((run + " > " + (dir / "out.txt") + " 2> " + (dir / "err.txt")).c_str());
    fs::permissions(ro, fs::perms::owner_all);
    const std::string err = read_file(dir / "err.txt");
    EXPECT_EQ(WEXITSTATUS(status), 2) << err;
    EXPECT_NE(err.find("--snapshot: cannot write in folder '" + ro + "': "), std::string::npos)
        << err;
    EXPECT_EQ(err.find("train: "), std::string::npos) << "training started: " << err;
    EXPECT_EQ(non_empty_lines(err), 1) << err;
}

}  // namespace
}  // namespace radiant
