#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace radiant {

namespace {
constexpr double kWidth = 480, kHeight = 340;
constexpr double kLeft = 58, kRight = 16, kTop = 34, kBottom = 46;
// Colour-blind-friendly (Okabe-Ito) order.
const char* const kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

std::string tick_text(double v, double step) {
    const int decimals = std::max(0, -int(std::floor(std::log10(step) + 1e-9)));
    return fmt::format("{:.{}f}", v, decimals);
}

std::string one_chart(const Chart& chart, double x0) {
    double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
    for (const ChartSeries& s : chart.series)
        for (const auto& [x, y] : s.points) {
            if (!std::isfinite(x) || !std::isfinite(y)) continue;
            xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y),
            yhi = std::max(yhi, y);
        }
    if (!std::isfinite(xlo)) xlo = 0, xhi = 1, ylo = 0, yhi = 1;
    xlo = std::min(xlo, 0.0);  // time and steps start at zero
    if (xhi <= xlo) xhi = xlo + 1;
    if (yhi <= ylo) yhi = ylo + 1, ylo -= 1;
    const std::vector<double> xt = nice_ticks(xlo, xhi), yt = nice_ticks(ylo, yhi);
    xlo = std::min(xlo, xt.front()), xhi = std::max(xhi, xt.back());
    ylo = std::min(ylo, yt.front()), yhi = std::max(yhi, yt.back());
    const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
    auto X = [&](double x) { return x0 + kLeft + (x - xlo) / (xhi - xlo) * pw; };
    auto Y = [&](double y) { return kTop + (1 - (y - ylo) / (yhi - ylo)) * ph; };

    std::string out;
    out += fmt::format(
        "<g class=\"chart\">\n<text x=\"{:.1f}\" y=\"20\" font-size=\"14\" "
        "font-weight=\"bold\">{}</text>\n",
        x0 + kLeft, escape(chart.title));
    const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1,
                 ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
    for (double v : xt)
        out += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
            "<text x=\"{0:.1f}\" y=\"{3:.1f}\" font-size=\"11\" "
            "text-anchor=\"middle\">{4}</text>\n",
            X(v), kTop, kTop + ph, kTop + ph + 15, tick_text(v, xstep));
    for (double v : yt)
        out += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
            "<text x=\"{3:.1f}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\">{5}</text>\n",
            x0 + kLeft, Y(v), x0 + kLeft + pw, x0 + kLeft - 5, Y(v) + 4, tick_text(v, ystep));
    out += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
        "stroke=\"#444\"/>\n",
        x0 + kLeft, kTop, pw, ph);
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
        x0 + kLeft + pw / 2, kHeight - 8, escape(chart.x_label));
    out += fmt::format(
        "<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" font-size=\"12\" "
        "text-anchor=\"middle\">{}</text>\n",
        x0 + 14, kTop + ph / 2, escape(chart.y_label));
    for (size_t i = 0; i < chart.series.size(); ++i) {
        const ChartSeries& s = chart.series[i];
        std::string pts;
        for (const auto& [x, y] : s.points)
            if (std::isfinite(x) && std::isfinite(y))
                pts += fmt::format("{:.1f},{:.1f} ", X(x), Y(y));
        if (!pts.empty()) pts.pop_back();
        out += fmt::format(
            "<polyline class=\"series\" data-label=\"{}\" fill=\"none\" stroke=\"{}\" "
            "stroke-width=\"1.8\"{} points=\"{}\"/>\n",
            escape(s.label), kColours[i % 8], s.dashed ? " stroke-dasharray=\"5,3\"" : "", pts);
        // Sparse curves (validation every few hundred steps, or only at the end) get a marker
        // per point, so a single point still shows.
        if (s.points.size() <= 40)
            for (const auto& [x, y] : s.points)
                if (std::isfinite(x) && std::isfinite(y))
                    out +=
                        fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n",
                                    X(x), Y(y), kColours[i % 8]);
    }
    out += "</g>\n";
    return out;
}
}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
    if (!(hi > lo)) hi = lo + 1;
    const double raw = (hi - lo) / std::max(1, target - 1);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw) {
            step = m * mag;
            break;
        }
    std::vector<double> ticks;
    for (double v = std::floor(lo / step) * step; v <= hi + 0.5 * step && ticks.size() < 100;
         v += step)
        ticks.push_back(v);
    if (ticks.back() < hi - 1e-9 * step) ticks.push_back(ticks.back() + step);
    return ticks;
}

std::string render_svg_charts(const std::vector<Chart>& charts) {
    const double width = kWidth * double(std::max<size_t>(charts.size(), 1));
    const size_t n_series = charts.empty() ? 0 : charts[0].series.size();
    const double legend = 18.0 * double(n_series) + 10;
    std::string out = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
        "viewBox=\"0 0 {0:.0f} {1:.0f}\" "
        "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        width, kHeight + legend);
    for (size_t c = 0; c < charts.size(); ++c) out += one_chart(charts[c], kWidth * double(c));
    for (size_t i = 0; i < n_series; ++i) {
        const double y = kHeight + 12 + 18.0 * double(i);
        const ChartSeries& s = charts[0].series[i];
        out += fmt::format(
            "<line x1=\"{0:.0f}\" y1=\"{1:.1f}\" x2=\"{2:.0f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
            "stroke-width=\"2.5\"{4}/>"
            "<text x=\"{5:.0f}\" y=\"{6:.1f}\" font-size=\"12\">{7}</text>\n",
            kLeft, y, kLeft + 24, kColours[i % 8], s.dashed ? " stroke-dasharray=\"5,3\"" : "",
            kLeft + 30, y + 4, escape(s.label));
    }
    out += "</svg>\n";
    return out;
}

}  // namespace radiant
