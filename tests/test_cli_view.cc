// `radiant view` and `radiant train --view` as processes: the printed URL works, a non-loopback
// host demands the token (401 without it), nothing outside the page is served (404), and the
// training page's pause, resume and save reach the trainer.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "cli_test_util.h"
#include "demo/demo_scene.h"
#include "small_demo_scene.h"
#include "test_util.h"

namespace radiant {
namespace {

namespace fs = std::filesystem;

// Starts `radiant ARGS` with stdout and stderr into `log`; returns its pid.
pid_t spawn(const std::string& args, const std::string& log) {
    const pid_t pid = fork();
    if (pid == 0) {
        const std::string cmd =
            "exec " + std::string(RADIANT_BINARY) + " " + args + " > " + log + " 2>&1";
        execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
        _exit(127);
    }
    return pid;
}

// Waits (at most a minute) for the viewer's URL in the log: (port, token).
std::pair<int, std::string> wait_for_url(const std::string& log) {
    const std::regex re(R"(viewer: http://[^:]+:(\d+)/(\?token=([0-9a-f]+))?)");
    for (int i = 0; i < 600; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::string text;
        try {
            text = read_file(log);
        } catch (...) {
            continue;
        }
        std::smatch m;
        if (std::regex_search(text, m, re)) return {std::stoi(m[1].str()), m[3].str()};
    }
    return {0, ""};
}

int stop(pid_t pid) {
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct TinyScene {
    test::TempDir dir;
    DemoScene scene;
    TinyScene() : scene(test::write_tiny_demo_scene(dir / "scene", 1)) {}
    std::string train_args() const {
        return "train " + scene.train_json + " --target-samples 4096 --log2-table 14";
    }
};

TEST(CliView, NonLoopbackHostNeedsTheTokenAndServesNothingElse) {
    TinyScene t;
    const std::string snap = t.dir / "s.radiant";
    ASSERT_EQ(test::run_radiant(t.dir, t.train_args() + " --steps 20 --snapshot " + snap).exit_code,
              0);
    const std::string log = t.dir / "view.log";
    const pid_t pid = spawn("view " + snap + " --host 0.0.0.0 --port 0", log);
    const auto [port, token] = wait_for_url(log);
    ASSERT_GT(port, 0) << read_file(log);
    ASSERT_EQ(token.size(), 32u) << read_file(log);  // 128 random bits, printed once
    httplib::Client cli("127.0.0.1", port);
    EXPECT_EQ(cli.Get("/")->status, 401);
    EXPECT_EQ(cli.Get("/api/scene")->status, 401);
    EXPECT_EQ(cli.Get("/?token=" + token)->status, 200);
    EXPECT_EQ(cli.Get("/../../etc/passwd?token=" + token)->status, 404);
    EXPECT_EQ(cli.Get("/scene/transforms_train.json?token=" + token)->status, 404);
    const httplib::Headers h = {{"X-Radiant-Token", token}};
    const auto scene = cli.Get("/api/scene", h);
    ASSERT_EQ(scene->status, 200);
    const auto v = nlohmann::json::parse(scene->body)["views"][0];
    nlohmann::json req = {
        {"transform_matrix", v["transform_matrix"]}, {"fl_x", v["fl_x"]}, {"w", 32}, {"h", 32}};
    const auto img = cli.Post("/api/render", h, req.dump(), "application/json");
    ASSERT_EQ(img->status, 200);
    EXPECT_EQ(img->get_header_value("Content-Type"), "image/png");
    EXPECT_EQ(stop(pid), 0);
    // A port that is taken is refused with one line.
    const std::string log2 = t.dir / "view2.log";
    const pid_t first = spawn("view " + snap + " --port 0", log2);
    const auto [taken, none] = wait_for_url(log2);
    ASSERT_GT(taken, 0);
    test::expect_bad_input(t.dir, "view " + snap + " --port " + std::to_string(taken),
                           "cannot listen there");
    stop(first);
}

TEST(CliView, TrainingPagePausesResumesAndSaves) {
    TinyScene t;
    const std::string snap = t.dir / "live.radiant", log = t.dir / "train.log";
    const pid_t pid = spawn(t.train_args() + " --steps 1000000 --checkpoint-every 0 --snapshot " +
                                snap + " --view --port 0",
                            log);
    const auto [port, token] = wait_for_url(log);
    ASSERT_GT(port, 0) << read_file(log);
    EXPECT_TRUE(token.empty());  // loopback: no token
    httplib::Client cli("127.0.0.1", port);
    auto status = [&] { return nlohmann::json::parse(cli.Get("/api/status")->body); };
    for (int i = 0; i < 300 && status()["step"].get<int>() < 5; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(status()["training"].get<bool>());
    ASSERT_EQ(cli.Post("/api/train/pause", "{}", "application/json")->status, 200);
    // The pause takes hold between steps; on a loaded machine the step in flight (an occupancy-grid
    // pass every 16th step) can take longer than any fixed wait, so poll for it.
    nlohmann::json paused = status();
    for (int i = 0; i < 600 && !paused["paused"].get<bool>(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        paused = status();
    }
    ASSERT_TRUE(paused["paused"].get<bool>());
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(status()["step"], paused["step"]);  // no step while paused
    ASSERT_EQ(cli.Post("/api/train/save", "{}", "application/json")->status, 200);
    for (int i = 0; i < 100 && !fs::exists(snap); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(fs::exists(snap));
    ASSERT_EQ(cli.Post("/api/train/resume", "{}", "application/json")->status, 200);
    const int at = paused["step"].get<int>();
    for (int i = 0; i < 300 && status()["step"].get<int>() <= at; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_GT(status()["step"].get<int>(), at);
    // The page's loss curve: a point every 10 steps.
    for (int i = 0; i < 300 && status()["loss_history"].empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(status()["loss_history"].empty());
    EXPECT_EQ(stop(pid), 130);
}

}  // namespace
}  // namespace radiant
