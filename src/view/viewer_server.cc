#include "view/viewer_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "core/error.h"
#include "io/image.h"
#include "nerf/render_view.h"
#include "view/assets.h"
#include "view/render_request.h"

namespace radiant {

bool is_loopback_host(const std::string& host) {
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

std::string random_token() {
    std::ifstream in("/dev/urandom", std::ios::binary);
    unsigned char b[16] = {};
    in.read(reinterpret_cast<char*>(b), sizeof(b));
    if (!in) throw Error("/dev/urandom", "cannot read random bytes for the access token");
    std::string out;
    for (unsigned char c : b) out += fmt::format("{:02x}", c);
    return out;
}

namespace {

bool same_token(const std::string& a, const std::string& b) {  // no early exit: timing says nothing
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
    res.status = status;
    res.set_content(nlohmann::json{{"error", message}}.dump() + "\n", "application/json");
}

// Depth and opacity as grey images (depth: near is bright, scaled to the farthest opaque pixel).
ImageF mode_image(RenderMode mode, const ImageF& rgb, const ViewExtras& extras) {
    if (mode == RenderMode::kRgb) return rgb;
    ImageF out(rgb.width, rgb.height, 3);
    float far = 1e-6f;
    for (int y = 0; y < rgb.height; ++y)
        for (int x = 0; x < rgb.width; ++x)
            if (extras.opacity.at(x, y, 0) > 0.5f) far = std::max(far, extras.depth.at(x, y, 0));
    for (int y = 0; y < rgb.height; ++y)
        for (int x = 0; x < rgb.width; ++x) {
            const float a = extras.opacity.at(x, y, 0);
            const float v = mode == RenderMode::kOpacity
                                ? a
                                : a * (1.0f - 0.85f * extras.depth.at(x, y, 0) / far);
            for (int k = 0; k < 3; ++k) out.at(x, y, k) = v;
        }
    return out;
}

}  // namespace

ViewerServer::ViewerServer(ViewerModel& model, ViewerControl& control, nlohmann::json scene,
                           const ViewerOptions& options)
    : m_model(model),
      m_control(control),
      m_scene(std::move(scene)),
      m_options(options),
      m_server(std::make_unique<httplib::Server>()),
      m_pool(options.render_threads) {
    if (!is_loopback_host(m_options.host) && m_options.token.empty())
        throw Error("--host", "a host other than loopback needs an access token");
    setup_routes();
}

ViewerServer::~ViewerServer() { stop(); }

void ViewerServer::setup_routes() {
    httplib::Server& s = *m_server;
    s.new_task_queue = [] { return new httplib::ThreadPool(4); };
    s.set_payload_max_length(1 << 20);
    s.set_read_timeout(10, 0);
    s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (m_options.token.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const std::string given = req.has_param("token") ? req.get_param_value("token")
                                                         : req.get_header_value("X-Radiant-Token");
        if (same_token(given, m_options.token)) return httplib::Server::HandlerResponse::Unhandled;
        reply_error(res, 401, "missing or wrong access token: open the URL that radiant printed");
        return httplib::Server::HandlerResponse::Handled;
    });
    s.set_exception_handler(
        [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
            std::string what = "internal error";
            try {
                std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = std::string("internal error: ") + e.what();
            } catch (...) {
            }
            reply_error(res, 500, what);
        });
    s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        if (res.body.empty())
            reply_error(res, res.status,
                        res.status == 404 ? "no such page" : fmt::format("HTTP {}", res.status));
    });

    const std::string query = m_options.token.empty() ? "" : "?token=" + m_options.token;
    for (const ViewerAsset& a : viewer_assets()) {
        std::string body(a.data, a.size);
        if (a.path == std::string("/")) {
            for (size_t at; (at = body.find("{{QUERY}}")) != std::string::npos;)
                body.replace(at, 9, query);
        }
        const std::string type =
            std::string(a.content_type) + "; charset=utf-8";  // every asset is UTF-8 text
        s.Get(a.path, [body, type](const httplib::Request&, httplib::Response& res) {
            res.set_header("Cache-Control", "no-store");
            res.set_content(body, type.c_str());
        });
    }
    s.Get("/api/scene", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(m_scene.dump(), "application/json");
    });
    s.Get("/api/status", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(m_control.status_json().dump(), "application/json");
    });
    auto control = [this](const char* what) {
        return [this, what](const httplib::Request&, httplib::Response& res) {
            if (!m_control.status().training)
                return reply_error(res, 409, "nothing is training: started with `radiant view`");
            const std::string w = what;
            if (w == "pause") m_control.pause_requested = true;
            if (w == "resume") m_control.pause_requested = false;
            if (w == "save") m_control.save_requested = true;
            res.set_content(nlohmann::json{{"ok", true}}.dump(), "application/json");
        };
    };
    s.Post("/api/train/pause", control("pause"));
    s.Post("/api/train/resume", control("resume"));
    s.Post("/api/train/save", control("save"));

    s.Post("/api/render", [this](const httplib::Request& req, httplib::Response& res) {
        RenderRequest r;
        try {
            r = parse_render_request(req.body);
        } catch (const Error& e) {
            return reply_error(res, 400, e.reason());
        }
        std::shared_ptr<std::atomic<uint64_t>> latest;
        if (!r.client.empty()) {
            std::lock_guard<std::mutex> lock(m_clients_mutex);
            auto& slot = m_latest_seq[r.client];
            if (!slot) slot = std::make_shared<std::atomic<uint64_t>>(0);
            latest = slot;
            uint64_t seen = latest->load();
            while (r.seq > seen && !latest->compare_exchange_weak(seen, r.seq)) {
            }
            if (m_latest_seq.size() > 1000) m_latest_seq.clear();  // bounded: forget stale pages
        }
        const auto superseded = [&] { return latest && latest->load() > r.seq; };
        std::unique_lock<std::timed_mutex> slot(m_render_slot, std::defer_lock);
        // One render at a time (each already uses every worker); a waiter gives up when its
        // client has moved on, or after 10 s so that requests cannot pile up without bound.
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!slot.try_lock_for(std::chrono::milliseconds(50))) {
            if (superseded()) return reply_error(res, 409, "superseded by a newer request");
            if (std::chrono::steady_clock::now() > give_up)
                return reply_error(res, 503, "busy rendering; try again");
        }
        // Beside a trainer, renders take at most max_render_share of the time: a render of d
        // seconds keeps the next one waiting d * (1 / share - 1).
        while (std::chrono::steady_clock::now() < m_next_render) {
            if (superseded()) return reply_error(res, 409, "superseded by a newer request");
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (superseded()) return reply_error(res, 409, "superseded by a newer request");
        const auto render_start = std::chrono::steady_clock::now();
        const std::shared_ptr<const NerfModel> model = m_model.current();
        if (!model) return reply_error(res, 503, "the model is not ready yet");
        ViewExtras extras;
        const ImageF rgb =
            render_view(*model, r.camera, r.camera_to_world, r.background.data(), m_pool,
                        r.mode == RenderMode::kRgb ? nullptr : &extras, superseded);
        if (m_options.max_render_share > 0 && m_options.max_render_share < 1) {
            const auto took = std::chrono::steady_clock::now() - render_start;
            m_next_render = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                took * (1.0 / m_options.max_render_share - 1.0));
        }
        slot.unlock();
        if (superseded()) return reply_error(res, 409, "superseded by a newer request");
        const ImageF image = mode_image(r.mode, rgb, extras);
        res.set_header("Cache-Control", "no-store");
        if (r.jpeg)
            res.set_content(encode_jpeg(image, r.quality), "image/jpeg");
        else
            res.set_content(encode_png(image, 8, "render"), "image/png");
    });
}

int ViewerServer::start() {
    // cpp-httplib's default also sets SO_REUSEPORT, which lets a second viewer share a port that
    // is taken and receive half of the first one's requests; keep only SO_REUSEADDR.
    m_server->set_socket_options([](socket_t sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    if (m_options.port == 0) {
        m_port = m_server->bind_to_any_port(m_options.host);
        if (m_port <= 0)
            throw Error(m_options.host, "cannot bind the viewer to any port on this address");
    } else {
        if (!m_server->bind_to_port(m_options.host, m_options.port))
            throw Error(
                fmt::format("{}:{}", m_options.host, m_options.port),
                "cannot listen there (port in use, or no such address); pick another with --port");
        m_port = m_options.port;
    }
    m_thread = std::thread([this] { m_server->listen_after_bind(); });
    return m_port;
}

void ViewerServer::stop() {
    if (m_server) m_server->stop();
    if (m_thread.joinable()) m_thread.join();
}

std::string ViewerServer::url() const {
    const std::string host =
        m_options.host == "0.0.0.0" || m_options.host == "::" ? "localhost" : m_options.host;
    return fmt::format("http://{}:{}/{}", host, m_port,
                       m_options.token.empty() ? "" : "?token=" + m_options.token);
}

}  // namespace radiant
