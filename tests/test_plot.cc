// `radiant plot`: train reports -> an SVG with one curve per run in each chart, ticks at round
// numbers, runs without validation drawn from the loss (dashed), and bad reports refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "cli_test_util.h"
#include "core/system.h"
#include "report/svg_chart.h"
#include "test_util.h"

namespace radiant {
namespace {

TEST(SvgChart, TicksAreRoundNumbersCoveringTheRange) {
    EXPECT_EQ(nice_ticks(0, 10, 6), (std::vector<double>{0, 2, 4, 6, 8, 10}));
    EXPECT_EQ(nice_ticks(0, 600, 6), (std::vector<double>{0, 200, 400, 600}));  // 100 would give 7
    const std::vector<double> t = nice_ticks(23.4, 31.7, 6);
    EXPECT_LE(t.front(), 23.4);
    EXPECT_GE(t.back(), 31.7);
    EXPECT_DOUBLE_EQ(t[1] - t[0], 2.0);
}

// A report with `n` history entries; validation PSNR every 10 steps when `with_psnr`.
nlohmann::json report(int n, bool with_psnr) {
    nlohmann::json h = nlohmann::json::array();
    for (int i = 1; i <= n; ++i) {
        nlohmann::json e = {{"step", 10 * i}, {"seconds", 1.5 * i}, {"loss", 0.01 / i}};
        if (with_psnr) e["psnr"] = 20.0 + i;
        h.push_back(e);
    }
    return {{"command", "train"}, {"history", h}};
}

TEST(Plot, OneCurvePerRunInBothCharts) {
    test::TempDir dir;
    write_file_atomic(dir / "a.json", report(5, true).dump());
    write_file_atomic(dir / "b.json", report(7, false).dump());
    const std::string svg = dir / "curves.svg";
    const test::RunResult r =
        test::run_radiant(dir, "plot " + (dir / "a.json") + " " + (dir / "b.json") +
                                   " --labels 'fast <new>',old --out " + svg);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string text = read_file(svg);
    EXPECT_EQ(text.rfind("<?xml", 0), 0u);
    const std::regex poly(
        "<polyline class=\"series\" data-label=\"([^\"]*)\"[^>]*points=\"([^\"]*)\"");
    std::vector<std::pair<std::string, size_t>> found;  // label, points
    for (auto it = std::sregex_iterator(text.begin(), text.end(), poly);
         it != std::sregex_iterator(); ++it) {
        const std::string pts = (*it)[2];
        found.push_back({(*it)[1], size_t(std::count(pts.begin(), pts.end(), ','))});
    }
    ASSERT_EQ(found.size(), 4u);  // 2 runs x (by time, by steps)
    EXPECT_EQ(found[0].first, "fast &lt;new&gt;");
    EXPECT_EQ(found[0].second, 5u);
    EXPECT_EQ(found[1].first, "old (training PSNR from the loss)");
    EXPECT_EQ(found[1].second, 7u);
    EXPECT_NE(text.find("stroke-dasharray"), std::string::npos);  // the loss-derived curve
    EXPECT_NE(text.find("PSNR over training time"), std::string::npos);
    EXPECT_NE(text.find("PSNR over steps"), std::string::npos);
}

TEST(Plot, RefusesWhatIsNotATrainReport) {
    test::TempDir dir;
    write_file_atomic(dir / "bad.json", "{\"history\": [");
    write_file_atomic(dir / "eval.json", "{\"command\": \"eval\", \"psnr\": 30}");
    write_file_atomic(dir / "ok.json", report(3, true).dump());
    test::expect_bad_input(dir, "plot " + (dir / "bad.json") + " --out " + (dir / "c.svg"),
                           "not valid JSON");
    test::expect_bad_input(dir, "plot " + (dir / "eval.json") + " --out " + (dir / "c.svg"),
                           "no \"history\"");
    test::expect_bad_input(dir, "plot " + (dir / "ok.json") + " --out " + (dir / "c.png"),
                           "must be an .svg");
    test::expect_bad_input(dir,
                           "plot " + (dir / "ok.json") + " --labels a,b --out " + (dir / "c.svg"),
                           "2 labels for 1 reports");
    EXPECT_FALSE(std::filesystem::exists(dir / "c.svg"));
}

}  // namespace
}  // namespace radiant
