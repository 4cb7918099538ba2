#include "prepare/colmap_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <regex>
#include <thread>

#include "core/error.h"
#include "core/progress.h"
#include "core/subprocess.h"
#include "core/timer.h"
#include "prepare/colmap_model.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

const char* kInstallHint =
    "install Debian's colmap package (apt-get install colmap, or bash scripts/setup.sh)";

bool have_colmap() {
    const char* path = std::getenv("PATH");
    if (!path) return false;
    std::string p = path, dir;
    for (size_t start = 0; start <= p.size();) {
        const size_t end = std::min(p.find(':', start), p.size());
        dir = p.substr(start, end - start);
        std::error_code ec;
        if (fs::is_regular_file(fs::path(dir.empty() ? "." : dir) / "colmap", ec)) return true;
        start = end + 1;
    }
    return false;
}

// One COLMAP command with a progress bar; `parse` turns an output line into (done, total).
void run_stage(const std::string& label, const std::string& unit, std::vector<std::string> args,
               const std::string& log_path, size_t total,
               const std::function<bool(std::string_view, size_t&, size_t&)>& parse,
               const std::function<bool()>& should_stop, ColmapRun& run) {
    args.insert(args.begin(), "colmap");
    Progress progress(label, total, 0, 10.0, unit);
    ProgressState state;
    std::deque<std::string> tail;  // last lines, for the error message
    SubprocessOptions so;
    so.log_path = log_path;
    so.extra_env = {"QT_QPA_PLATFORM=offscreen"};  // no display needed, none looked for
    so.should_stop = should_stop;
    so.on_line = [&](std::string_view line, bool partial) {
        size_t done = 0, all = total;
        if (parse(line, done, all)) {
            state.step = done;
            progress.update(state);
        }
        if (!partial && line.find_first_not_of(" =-") != std::string_view::npos) {
            tail.emplace_back(line);
            if (tail.size() > 20) tail.pop_front();
        }
    };
    Timer timer;
    const SubprocessResult r = run_subprocess(args, so);
    if (r.stopped) throw Interrupted(fmt::format("colmap {} stopped", args[1]));
    if (!r.ok()) {
        std::string last = "no output";
        for (auto it = tail.rbegin(); it != tail.rend(); ++it)
            if (it->find("rror") != std::string::npos || it->find("failed") != std::string::npos ||
                it->find("Check") != std::string::npos) {
                last = *it;
                break;
            }
        if (last == "no output" && !tail.empty()) last = tail.back();
        if (last.find("failed to create sparse model") != std::string::npos)
            throw Error(
                "colmap",
                fmt::format("the mapper could not place any images: the photos share too few "
                            "features (more overlap, more texture, sharper photos); see {}",
                            log_path));
        throw Error("colmap", fmt::format("{} failed ({}): '{}'; full log in {}", args[1],
                                          r.signal ? fmt::format("signal {}", r.signal)
                                                   : fmt::format("exit {}", r.exit_code),
                                          last, log_path));
    }
    state.step = total;
    progress.finish(state);
    run.stages.push_back({label, timer.seconds()});
}

bool parse_bracket(std::string_view line, const char* prefix, size_t& done, size_t& total) {
    const size_t at = line.find(prefix);
    if (at == std::string_view::npos) return false;
    unsigned long a = 0, b = 0;
    if (std::sscanf(std::string(line.substr(at + std::strlen(prefix))).c_str(), "%lu/%lu", &a,
                    &b) != 2 ||
        b == 0)
        return false;
    done = a;
    total = b;
    return true;
}

}  // namespace

std::string colmap_version() {
    if (!have_colmap()) return "";
    std::string version;
    SubprocessOptions so;
    so.extra_env = {"QT_QPA_PLATFORM=offscreen"};
    so.on_line = [&](std::string_view line, bool partial) {
        if (!partial && version.empty() && line.find("COLMAP") != std::string_view::npos)
            version = std::string(line);
    };
    run_subprocess({"colmap", "-h"}, so);
    return version;
}

ColmapRun run_colmap(const std::string& image_folder, const std::string& work_folder, size_t n,
                     const ColmapOptions& o, const std::function<bool()>& should_stop) {
    if (!have_colmap()) throw Error("colmap", std::string("not found on PATH: ") + kInstallHint);
    if (!colmap_camera_model(o.camera_model))
        throw Error("--camera-model", "unknown COLMAP camera model '" + o.camera_model + "'");
    std::error_code ec;
    fs::create_directories(fs::path(work_folder) / "sparse", ec);
    if (ec) throw Error(work_folder, "cannot create folder: " + ec.message());
    ColmapRun run;
    run.log_path = (fs::path(work_folder) / "colmap.log").string();
    const std::string db = (fs::path(work_folder) / "database.db").string();
    const std::string threads = std::to_string(
        o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency())));

    run_stage(
        "features", "image",
        {"feature_extractor", "--database_path", db, "--image_path", image_folder,
         "--ImageReader.camera_model", o.camera_model, "--ImageReader.single_camera",
         o.single_camera ? "1" : "0", "--SiftExtraction.use_gpu", "0",
         "--SiftExtraction.num_threads", threads, "--SiftExtraction.max_image_size",
         std::to_string(o.max_image_size), "--SiftExtraction.max_num_features",
         std::to_string(o.max_features)},
        run.log_path, n,
        [](std::string_view l, size_t& d, size_t& t) {
            return parse_bracket(l, "Processed file [", d, t);
        },
        should_stop, run);

    if (o.matcher == "sequential") {
        run_stage(
            "matching", "image",
            {"sequential_matcher", "--database_path", db, "--SiftMatching.use_gpu", "0",
             "--SiftMatching.num_threads", threads, "--SequentialMatching.overlap",
             std::to_string(o.sequential_overlap)},
            run.log_path, n,
            [](std::string_view l, size_t& d, size_t& t) {
                return parse_bracket(l, "Matching image [", d, t);
            },
            should_stop, run);
    } else {
        // Blocks of ~n/6 images: a few dozen progress steps instead of one for small sets.
        const size_t block = std::clamp<size_t>((n + 5) / 6, 8, 50);
        const size_t blocks = (n + block - 1) / block;
        run_stage(
            "matching", "block",
            {"exhaustive_matcher", "--database_path", db, "--SiftMatching.use_gpu", "0",
             "--SiftMatching.num_threads", threads, "--ExhaustiveMatching.block_size",
             std::to_string(block)},
            run.log_path, blocks * blocks,
            [](std::string_view l, size_t& d, size_t& t) {
                size_t a, b;
                if (!parse_bracket(l, "Matching block [", a, b)) return false;
                const size_t comma = l.find(", ");
                size_t c = 0, e = 0;
                if (comma == std::string_view::npos || !parse_bracket(l.substr(comma), ", ", c, e))
                    return false;
                // COLMAP prints a block's name when it starts and " in N s" when it ends.
                d = (a - 1) * e + c - (l.find(" in ") == std::string_view::npos ? 1 : 0);
                t = b * e;
                return true;
            },
            should_stop, run);
    }

    const std::string sparse = (fs::path(work_folder) / "sparse").string();
    run_stage(
        "mapping", "image",
        {"mapper", "--database_path", db, "--image_path", image_folder, "--output_path", sparse,
         "--Mapper.num_threads", threads,
         // nerfstudio's setting: global bundle adjustment stops earlier, at no visible cost.
         "--Mapper.ba_global_function_tolerance", "0.000001"},
        run.log_path, n,
        [](std::string_view l, size_t& d, size_t&) {
            static const std::regex re(R"(Registering image #\d+ \((\d+)\))");
            std::cmatch m;
            const std::string s(l);
            if (!std::regex_search(s.c_str(), m, re)) return false;
            d = std::stoul(m[1].str());
            return true;
        },
        should_stop, run);

    size_t best = 0;
    for (const auto& entry : fs::directory_iterator(sparse, ec)) {
        if (!entry.is_directory() || !is_colmap_model_folder(entry.path().string())) continue;
        ++run.models;
        const size_t images = read_colmap_model(entry.path().string()).images.size();
        if (images > best) {
            best = images;
            run.model_folder = entry.path().string();
        }
    }
    if (run.model_folder.empty())
        throw Error(
            "colmap",
            fmt::format("the mapper registered no images (the photos share too few features); "
                        "see {}",
                        run.log_path));
    // As instant-ngp's colmap2nerf: one more bundle adjustment that also refines the principal
    // point, which phone lenses rarely have at the exact centre (fox: 15 px, 0.6 degrees).
    run_stage(
        "refining", "pass",
        {"bundle_adjuster", "--input_path", run.model_folder, "--output_path", run.model_folder,
         "--BundleAdjustment.refine_principal_point", "1"},
        run.log_path, 1, [](std::string_view, size_t&, size_t&) { return false; }, should_stop,
        run);
    return run;
}

}  // namespace radiant
