// `radiant view SNAPSHOT`: look at a trained scene in a browser (the server renders).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <thread>

#include "app/cli_util.h"
#include "app/commands.h"
#include "app/jobs.h"
#include "core/error.h"
#include "nerf/model_io.h"
#include "view/viewer_server.h"

namespace radiant {

ViewerOptions viewer_options(const std::string& host, int port, const std::string& token,
                             int threads) {
    ViewerOptions v;
    v.host = host;
    v.port = port;
    v.render_threads = threads;
    // Another host than loopback is reachable by others: it always takes a token.
    v.token = !token.empty() ? token : is_loopback_host(host) ? "" : random_token();
    return v;
}

namespace {

struct ViewOptions {
    std::string snapshot;
    std::string host = "127.0.0.1";
    int port = 7007;
    std::string token;
    int threads = 0;
    std::string precision = "auto";  // of the MLPs while rendering (render_precision())
};

int run_view(const ViewOptions& o) {
    LoadedModel loaded = load_model_snapshot(o.snapshot, render_precision(o.precision));
    std::shared_ptr<const NerfModel> model(std::move(loaded.model));
    ViewerModel viewer_model(model);
    ViewerControl control;
    TrainingStatus status;
    status.snapshot = o.snapshot;
    control.set_status(status);
    ViewerServer server(viewer_model, control,
                        viewer_scene_json(*model, loaded.file.header()["views"]),
                        viewer_options(o.host, o.port, o.token, o.threads));
    StopSignals signals;
    server.start();
    std::printf("viewer: %s  (Ctrl-C to stop)\n", server.url().c_str());
    if (!is_loopback_host(o.host))
        std::printf("  listening on %s: anyone who can reach it needs the token in that URL\n",
                    o.host.c_str());
    std::fflush(stdout);
    while (!StopSignals::requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    server.stop();
    std::printf("viewer stopped\n");
    return 0;
}

}  // namespace

Command add_view_command(CLI::App& app) {
    auto o = std::make_shared<ViewOptions>();
    CLI::App* cmd = app.add_subcommand("view",
                                       "Look at a snapshot in a web browser: orbit or fly, "
                                       "training cameras, RGB / depth / opacity, camera paths "
                                       "for `radiant render --path`. The server renders on the "
                                       "CPU; open the printed URL (over SSH: ssh -L "
                                       "7007:localhost:7007 HOST).");
    cmd->add_option("SNAPSHOT", o->snapshot, ".radiant snapshot from `radiant train`")->required();
    cmd->add_option("--port", o->port, "port to listen on (0: any free one)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    cmd->add_option("--host", o->host,
                    "address to listen on; anything but loopback requires the access token")
        ->capture_default_str();
    cmd->add_option(
        "--token", o->token,
        "access token (default: none on loopback, a random one printed in the URL elsewhere)");
    cmd->add_option("--threads", o->threads, "render threads (0: all cores)")
        ->check(CLI::Range(0, 1024));
    add_render_precision_option(*cmd, o->precision);
    return {cmd, [o] { return run_view(*o); }};
}

}  // namespace radiant
