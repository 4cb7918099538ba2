// Line charts as SVG (opens in any browser, embeds in Markdown): several labelled series on
// shared axes with round-number ticks, one chart or several side by side.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace radiant {

struct ChartSeries {
    std::string label;
    std::vector<std::pair<double, double>> points;  // (x, y), drawn in order
    bool dashed = false;
};

struct Chart {
    std::string title, x_label, y_label;
    std::vector<ChartSeries> series;
};

// Tick values covering [lo, hi] at the smallest step of 1, 2 or 5 x 10^k that needs at most
// `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

// The charts side by side in one SVG document (each 480x340 px). Series keep their colour
// across charts by index, and the legend lists the first chart's labels.
std::string render_svg_charts(const std::vector<Chart>& charts);

}  // namespace radiant
