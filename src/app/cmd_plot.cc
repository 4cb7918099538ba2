// `radiant plot REPORT.json [MORE.json ...] --out curves.svg`: PSNR against training time and
// against steps for several `train --report` runs side by side, as one SVG.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/cli_util.h"
#include "app/commands.h"
#include "core/error.h"
#include "core/system.h"
#include "report/svg_chart.h"

namespace radiant {

namespace {

struct PlotOptions {
    std::vector<std::string> reports, labels;
    std::string out;
    std::string title = "time to quality";
};

struct Curve {
    std::string label;
    std::vector<std::array<double, 3>> points;  // (seconds, step, PSNR)
    bool from_loss = false;
};

// Validation PSNR from a train report's history (plus its final PSNR); the training PSNR from
// the loss when the run had no validation views.
Curve read_curve(const std::string& path, const std::string& label) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(read_file(path));
    } catch (const nlohmann::json::exception& e) {
        throw Error(path, fmt::format("not valid JSON ({})", e.what()));
    }
    if (!j.is_object() || !j.contains("history") || !j["history"].is_array())
        throw Error(path, "not a `radiant train --report` file (no \"history\")");
    Curve c;
    c.label = label;
    auto num = [&](const nlohmann::json& e, const char* key) {
        if (!e.contains(key) || !e[key].is_number())
            throw Error(path, fmt::format("a history entry has no number '{}'", key));
        return e[key].get<double>();
    };
    for (const auto& e : j["history"])
        if (e.is_object() && e.contains("psnr"))
            c.points.push_back({num(e, "seconds"), num(e, "step"), num(e, "psnr")});
    if (c.points.empty()) {
        c.from_loss = true;
        for (const auto& e : j["history"]) {
            const double loss = num(e, "loss");
            if (loss > 0)
                c.points.push_back({num(e, "seconds"), num(e, "step"), -10 * std::log10(loss)});
        }
    }
    if (c.points.empty()) throw Error(path, "the report's history is empty: nothing to plot");
    return c;
}

int run_plot(const PlotOptions& o) {
    if (std::filesystem::path(o.out).extension() != ".svg")
        throw Error(o.out, "--out must be an .svg file");
    check_output_path(o.out, "--out");
    if (!o.labels.empty() && o.labels.size() != o.reports.size())
        throw Error("--labels",
                    fmt::format("{} labels for {} reports", o.labels.size(), o.reports.size()));
    std::vector<Curve> curves;
    for (size_t i = 0; i < o.reports.size(); ++i)
        curves.push_back(read_curve(
            o.reports[i],
            o.labels.empty() ? std::filesystem::path(o.reports[i]).stem().string() : o.labels[i]));
    bool any_loss = false;
    Chart by_time{o.title + ": PSNR over training time", "training seconds", "PSNR (dB)", {}};
    Chart by_step{o.title + ": PSNR over steps", "steps", "PSNR (dB)", {}};
    for (const Curve& c : curves) {
        ChartSeries t{
            c.label + (c.from_loss ? " (training PSNR from the loss)" : ""), {}, c.from_loss};
        ChartSeries s{t.label, {}, c.from_loss};
        for (const auto& p : c.points) {
            t.points.push_back({p[0], p[2]});
            s.points.push_back({p[1], p[2]});
        }
        by_time.series.push_back(std::move(t));
        by_step.series.push_back(std::move(s));
        any_loss |= c.from_loss;
    }
    write_file_atomic(o.out, render_svg_charts({by_time, by_step}));
    std::printf(
        "plot: %zu run%s -> %s%s\n", curves.size(), curves.size() == 1 ? "" : "s", o.out.c_str(),
        any_loss ? " (dashed: runs without validation views, PSNR from the training loss)" : "");
    return 0;
}

}  // namespace

Command add_plot_command(CLI::App& app) {
    auto o = std::make_shared<PlotOptions>();
    CLI::App* cmd =
        app.add_subcommand("plot",
                           "Plot PSNR against training time and against steps for one or more "
                           "`radiant train --report` files, side by "
                           "side, as an SVG (opens in a browser, embeds in Markdown). Validation "
                           "PSNR where the run had --val or "
                           "--holdout-every, else the training PSNR from the loss (dashed).");
    cmd->add_option("REPORTS", o->reports, "train reports (JSON)")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--out", o->out, "the SVG to write")->required();
    cmd->add_option("--labels", o->labels, "one legend label per report (default: the file names)")
        ->delimiter(',');
    cmd->add_option("--title", o->title, "title above the charts")->capture_default_str();
    return {cmd, [o] { return run_plot(*o); }};
}

}  // namespace radiant
