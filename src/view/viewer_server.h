// The viewer's HTTP server (cpp-httplib): the page and its script, embedded in the binary, and
// a small JSON API. The server renders; the page shows JPEG frames, low resolution while the
// camera moves and refined when it stops, and a newer request from the same page cancels the
// render still running for it.
//
//   GET  /, /viewer.js, /viewer.css    the page (nothing else is served: no file system paths)
//   GET  /api/scene                    training cameras, scene box, up direction (world frame)
//   GET  /api/status                   training progress (step, loss, PSNR history, samples/s)
//   POST /api/render                   a camera (view/render_request.h) -> PNG or JPEG
//   POST /api/train/pause|resume|save  training control (409 when nothing trains)
//
// Security: loopback by default; any other host needs the access token (in the page's URL,
// then a header), and a request without it gets 401. Bodies over 1 MiB get 413, malformed
// requests 400 with the reason, and at most one render runs at a time (503 when busy).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/thread_pool.h"
#include "view/viewer_state.h"

namespace httplib {
class Server;
}

namespace radiant {

struct ViewerOptions {
    std::string host = "127.0.0.1";
    int port = 7007;    // 0: any free port
    std::string token;  // empty: none needed (loopback only)
    int render_threads = 0;
    // The most of the wall time renders may take (0: no limit); `train --view` keeps the
    // trainer most of the machine this way, whatever the page asks.
    double max_render_share = 0;
};

// Whether `host` only accepts connections from this machine.
bool is_loopback_host(const std::string& host);
// 128 random bits as hex, from /dev/urandom.
std::string random_token();

class ViewerServer {
  public:
    // `scene` is served as /api/scene. Throws Error for a non-loopback host without a token.
    ViewerServer(ViewerModel& model, ViewerControl& control, nlohmann::json scene,
                 const ViewerOptions& options);
    ~ViewerServer();

    // Binds and starts serving in a background thread; returns the port. Throws Error when the
    // port cannot be bound.
    int start();
    void stop();
    // The page's address (with the token when one is needed).
    std::string url() const;

  private:
    void setup_routes();

    ViewerModel& m_model;
    ViewerControl& m_control;
    nlohmann::json m_scene;
    ViewerOptions m_options;
    std::unique_ptr<httplib::Server> m_server;
    std::thread m_thread;
    int m_port = 0;
    ThreadPool m_pool;
    std::timed_mutex m_render_slot;
    std::chrono::steady_clock::time_point m_next_render{};  // guarded by m_render_slot
    std::mutex m_clients_mutex;
    std::map<std::string, std::shared_ptr<std::atomic<uint64_t>>> m_latest_seq;
};

}  // namespace radiant
