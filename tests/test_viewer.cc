// The viewer's server: POST /api/render gives the same pixels as `radiant eval`, access tokens,
// no file system access, bounded and validated requests, cancellation of superseded frames.
#include <gtest/gtest.h>
#include <httplib.h>

#include "io/image.h"
#include "nerf/model_io.h"
#include "nerf/render_view.h"
#include "small_demo_scene.h"
#include "test_util.h"
#include "train/training_session.h"
#include "view/render_request.h"
#include "view/viewer_server.h"

namespace radiant {
namespace {

// A small trained model shared by the suite.
class Viewer : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        pool = new ThreadPool(2);
        scene = new test::SmallDemoScene(*pool);
        NerfModelConfig mc = NerfModelConfig::for_dataset(scene->train, 14);
        mc.grid_resolution = 32;
        auto m = std::make_unique<NerfModel>(mc);
        NerfTrainConfig tc;
        tc.target_samples = 1 << 12;
        m->init_params(tc.seed);
        TrainingPlan plan;
        plan.steps = 60;
        plan.val_every = 0;
        plan.checkpoint_every = 0;
        TrainingSession s(scene->images, scene->val, std::move(m), tc, plan, {}, *pool);
        while (s.status() == TrainingSession::Status::kRunning) s.step();
        model = std::make_shared<NerfModel>(s.model().config());
        model->copy_state_from(s.model());
    }
    static void TearDownTestSuite() {
        model.reset();
        delete scene;
        delete pool;
    }

    std::unique_ptr<ViewerServer> serve(const std::string& token = "",
                                        const std::string& host = "127.0.0.1") {
        ViewerOptions o;
        o.host = host;
        o.port = 0;
        o.token = token;
        o.render_threads = 1;
        auto s = std::make_unique<ViewerServer>(
            vmodel, control, viewer_scene_json(*model, views_to_json(scene->images)), o);
        port = s->start();
        return s;
    }
    static nlohmann::json camera_json(const StagedImage& im) {
        nlohmann::json rows = nlohmann::json::array();
        for (int r = 0; r < 4; ++r)
            rows.push_back(
                {im.camera_to_world[size_t(4 * r)], im.camera_to_world[size_t(4 * r + 1)],
                 im.camera_to_world[size_t(4 * r + 2)], im.camera_to_world[size_t(4 * r + 3)]});
        return {{"transform_matrix", rows},
                {"fl_x", im.camera.fl_x},
                {"fl_y", im.camera.fl_y},
                {"cx", im.camera.cx},
                {"cy", im.camera.cy},
                {"w", im.width},
                {"h", im.height}};
    }

    static ThreadPool* pool;
    static test::SmallDemoScene* scene;
    static std::shared_ptr<NerfModel> model;
    ViewerModel vmodel{model};
    ViewerControl control;
    int port = 0;
};
ThreadPool* Viewer::pool = nullptr;
test::SmallDemoScene* Viewer::scene = nullptr;
std::shared_ptr<NerfModel> Viewer::model;

TEST_F(Viewer, RenderEndpointGivesTheSamePixelsAsEval) {
    auto server = serve();
    httplib::Client cli("127.0.0.1", port);
    const float white[3] = {1, 1, 1};
    for (size_t v = 0; v < scene->val.images.size(); ++v) {
        const StagedImage& im = scene->val.images[v];
        const auto res = cli.Post("/api/render", camera_json(im).dump(), "application/json");
        ASSERT_TRUE(res);
        ASSERT_EQ(res->status, 200) << res->body;
        EXPECT_EQ(res->get_header_value("Content-Type"), "image/png");
        // eval renders the view and writes an 8-bit PNG of it: byte for byte the same here.
        const ImageF expected = render_view(*model, im.camera, im.camera_to_world, white, *pool);
        EXPECT_EQ(res->body, encode_png(expected, 8, "expected"));
    }
    // JPEG and the other modes decode to images of the asked size.
    nlohmann::json j = camera_json(scene->val.images[0]);
    j["format"] = "jpeg";
    for (const char* mode : {"rgb", "depth", "opacity"}) {
        j["mode"] = mode;
        const auto res = cli.Post("/api/render", j.dump(), "application/json");
        ASSERT_TRUE(res);
        ASSERT_EQ(res->status, 200) << res->body;
        const RawImage img = decode_image(res->body, "frame");
        EXPECT_EQ(img.width, 32);
        EXPECT_EQ(img.height, 32);
    }
}

TEST_F(Viewer, ServesOnlyItsOwnPages) {
    auto server = serve();
    httplib::Client cli("127.0.0.1", port);
    for (const char* ok : {"/", "/viewer.js", "/viewer.css", "/api/scene", "/api/status"}) {
        const auto res = cli.Get(ok);
        ASSERT_TRUE(res) << ok;
        EXPECT_EQ(res->status, 200) << ok;
    }
    const auto scene_json = nlohmann::json::parse(cli.Get("/api/scene")->body);
    EXPECT_EQ(scene_json["views"].size(), scene->images.images.size());
    for (const char* bad : {"/../../etc/passwd", "/web/viewer.js", "/index.html",
                            "/%2e%2e/%2e%2e/etc/passwd", "/api/nope"}) {
        const auto res = cli.Get(bad);
        ASSERT_TRUE(res) << bad;
        EXPECT_EQ(res->status, 404) << bad;
    }
    EXPECT_EQ(cli.Post("/api/train/pause", "{}", "application/json")->status,
              409);  // nothing trains
}

TEST_F(Viewer, TokenIsRequiredWhenSet) {
    EXPECT_THROW(serve("", "0.0.0.0"), Error);  // not loopback: a token is a must
    auto server = serve("s3cret");
    EXPECT_NE(server->url().find("?token=s3cret"), std::string::npos);
    httplib::Client cli("127.0.0.1", port);
    EXPECT_EQ(cli.Get("/")->status, 401);
    EXPECT_EQ(cli.Get("/api/scene")->status, 401);
    EXPECT_EQ(cli.Get("/?token=wrong")->status, 401);
    const auto page = cli.Get("/?token=s3cret");
    EXPECT_EQ(page->status, 200);
    EXPECT_NE(page->body.find("viewer.js?token=s3cret"),
              std::string::npos);  // the page passes it on
    EXPECT_EQ(cli.Get("/api/scene", {{"X-Radiant-Token", "s3cret"}})->status, 200);
    EXPECT_EQ(cli.Post("/api/render", {{"X-Radiant-Token", "nope"}},
                       camera_json(scene->val.images[0]).dump(), "application/json")
                  ->status,
              401);
    EXPECT_EQ(cli.Get("/../../etc/passwd?token=s3cret")->status, 404);
}

TEST_F(Viewer, BadRequestsAreRefusedWithAReason) {
    auto server = serve();
    httplib::Client cli("127.0.0.1", port);
    auto post = [&](const std::string& body) {
        return cli.Post("/api/render", body, "application/json");
    };
    auto expect = [&](const std::string& body, int status, const std::string& needle) {
        const auto res = post(body);
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, status) << body;
        EXPECT_NE(res->body.find(needle), std::string::npos) << res->body;
    };
    expect("{not json", 400, "not valid JSON");
    expect("[1, 2]", 400, "JSON object");
    nlohmann::json j = camera_json(scene->val.images[0]);
    nlohmann::json big = j;
    big["w"] = 5000;
    expect(big.dump(), 400, "'w' must be in");
    expect(j.dump(), 200, "");
    nlohmann::json bad = j;
    bad["transform_matrix"][1][2] = "x";
    expect(bad.dump(), 400, "transform_matrix");
    bad = j;
    bad["mode"] = "normals";
    expect(bad.dump(), 400, "'mode' must be");
    bad = j;
    bad.erase("fl_x");
    expect(bad.dump(), 400, "focal length");
    bad = j;
    bad["background"] = {2, 0, 0};
    expect(bad.dump(), 400, "background");
    const auto huge = post(std::string(2 << 20, ' '));  // over the 1 MiB body limit
    ASSERT_TRUE(huge);
    EXPECT_EQ(huge->status, 413);
}

TEST_F(Viewer, OlderFramesOfAClientAreDropped) {
    auto server = serve();
    httplib::Client cli("127.0.0.1", port);
    nlohmann::json j = camera_json(scene->val.images[0]);
    j["client"] = "page-1";
    j["seq"] = 5;
    EXPECT_EQ(cli.Post("/api/render", j.dump(), "application/json")->status, 200);
    j["seq"] = 4;  // arrives after frame 5: the camera has moved on
    const auto stale = cli.Post("/api/render", j.dump(), "application/json");
    EXPECT_EQ(stale->status, 409);
    EXPECT_NE(stale->body.find("superseded"), std::string::npos);
    j["client"] = "page-2";  // another page is not affected
    EXPECT_EQ(cli.Post("/api/render", j.dump(), "application/json")->status, 200);
}

TEST(RenderRequest, ParsesTheTransformsConvention) {
    const RenderRequest r = parse_render_request(
        R"({"transform_matrix": [[1,0,0,0.5],[0,1,0,0],[0,0,1,4],[0,0,0,1]], "camera_angle_x": 0.6911112, "w": 200, "h": 100,
            "background": [0.25, 0.5, 1], "mode": "depth", "format": "jpeg", "quality": 70, "client": "c", "seq": 9})");
    EXPECT_EQ(r.camera.width, 200);
    EXPECT_EQ(r.camera.height, 100);
    EXPECT_NEAR(r.camera.fl_x, 0.5f * 200 / std::tan(0.5f * 0.6911112f), 1e-3f);
    EXPECT_EQ(r.camera.fl_y, r.camera.fl_x);
    EXPECT_EQ(r.camera.cx, 100.0f);
    EXPECT_EQ(r.camera_to_world[3], 0.5f);
    EXPECT_EQ(r.camera_to_world[11], 4.0f);
    EXPECT_EQ(r.background[1], 0.5f);
    EXPECT_EQ(r.mode, RenderMode::kDepth);
    EXPECT_TRUE(r.jpeg);
    EXPECT_EQ(r.quality, 70);
    EXPECT_EQ(r.seq, 9u);
    EXPECT_RADIANT_ERROR(
        parse_render_request(
            R"({"transform_matrix": [[1,0,0,0]], "camera_angle_x": 1, "w": 10, "h": 10})"),
        "request", "4x4");
}

}  // namespace
}  // namespace radiant
