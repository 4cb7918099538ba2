#include "prepare/video_frames.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>

#include "core/error.h"
#include "core/progress.h"
#include "core/subprocess.h"
#include "io/image.h"
#include "prepare/image_quality.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

const char* kFfmpegHint =
    "install Debian's ffmpeg package (apt-get install ffmpeg, or bash scripts/setup.sh)";

double parse_rate(const std::string& s) {  // "30000/1001" or "25"
    unsigned long a = 0, b = 1;
    if (std::sscanf(s.c_str(), "%lu/%lu", &a, &b) >= 1 && b > 0) return double(a) / double(b);
    return 0;
}

}  // namespace

bool looks_like_video(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    for (const char* e : {".mp4", ".mov", ".mkv", ".avi", ".webm", ".m4v", ".mts", ".m2ts", ".mpg",
                          ".mpeg", ".wmv", ".3gp"})
        if (ext == e) return true;
    return false;
}

VideoInfo probe_video(const std::string& video) {
    std::vector<std::string> out;
    SubprocessResult r;
    try {
        SubprocessOptions so;
        so.on_line = [&](std::string_view l, bool partial) {
            if (!partial) out.emplace_back(l);
        };
        r = run_subprocess({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height,avg_frame_rate:format=duration", "-of",
                            "default=noprint_wrappers=1", video},
                           so);
    } catch (const Error&) {
        throw Error(video, std::string("ffprobe is not installed: ") + kFfmpegHint);
    }
    if (!r.ok()) {
        std::string why = out.empty() ? "unknown error" : out.back();
        throw Error(video, "ffmpeg cannot read this video: " + why);
    }
    VideoInfo info;
    for (const std::string& l : out) {
        const size_t eq = l.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = l.substr(0, eq), value = l.substr(eq + 1);
        if (key == "width") info.width = std::atoi(value.c_str());
        if (key == "height") info.height = std::atoi(value.c_str());
        if (key == "avg_frame_rate") info.fps = parse_rate(value);
        if (key == "duration") info.duration = std::atof(value.c_str());
    }
    if (info.width <= 0 || info.height <= 0)
        throw Error(video, "ffmpeg finds no video stream in this file");
    if (!(info.duration > 0) || !std::isfinite(info.duration))
        throw Error(video, "ffmpeg cannot tell this video's duration");
    if (!(info.fps > 0) || !std::isfinite(info.fps)) info.fps = 30;
    return info;
}

VideoFrames extract_video_frames(const std::string& video, const std::string& out_folder,
                                 const VideoFrameOptions& o, ThreadPool& pool,
                                 const std::function<bool()>& should_stop) {
    VideoFrames result;
    result.info = probe_video(video);
    const VideoInfo& info = result.info;
    const double keep_fps = o.frames > 0 ? double(o.frames) / info.duration : o.fps;
    if (!(keep_fps > 0)) throw Error("--fps", "must be positive");
    const double candidate_fps = std::min(keep_fps * std::max(o.oversample, 1), info.fps);

    const fs::path tmp =
        fs::path(out_folder).parent_path() / (".video_candidates_" + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove_all(tmp, ec);
    fs::create_directories(tmp, ec);
    if (ec) throw Error(tmp.string(), "cannot create folder: " + ec.message());
    struct Cleanup {
        fs::path p;
        ~Cleanup() {
            std::error_code e;
            fs::remove_all(p, e);
        }
    } cleanup{tmp};

    const size_t expected = size_t(std::ceil(info.duration * candidate_fps));
    Progress progress("frames", expected, 0, 10.0, "frame");
    ProgressState state;
    std::deque<std::string> tail;
    SubprocessOptions so;
    so.should_stop = should_stop;
    so.on_line = [&](std::string_view l, bool partial) {
        if (partial) return;
        if (l.rfind("frame=", 0) == 0) {
            state.step = std::strtoull(std::string(l.substr(6)).c_str(), nullptr, 10);
            progress.update(state);
        } else if (l.find('=') == std::string_view::npos) {
            tail.emplace_back(l);
            if (tail.size() > 5) tail.pop_front();
        }
    };
    // -q:v 2: near-lossless JPEG; the frames are what COLMAP and training see.
    const SubprocessResult r = run_subprocess(
        {"ffmpeg", "-nostdin", "-v", "error", "-progress", "pipe:1", "-nostats", "-i", video, "-vf",
         fmt::format("fps={:.6f}", candidate_fps), "-q:v", "2", (tmp / "c_%06d.jpg").string()},
        so);
    if (r.stopped) throw Interrupted("frame extraction stopped");
    if (!r.ok())
        throw Error(video, "ffmpeg failed to extract frames: " +
                               (tail.empty() ? std::string("unknown error") : tail.back()));
    std::vector<std::string> candidates;
    for (const auto& e : fs::directory_iterator(tmp, ec))
        if (e.path().extension() == ".jpg") candidates.push_back(e.path().string());
    std::sort(candidates.begin(), candidates.end());
    state.step = candidates.size();
    progress.finish(state);
    result.candidates = candidates.size();
    if (candidates.empty()) throw Error(video, "ffmpeg extracted no frames from this video");

    // Sharpness and thumbnail of every candidate (decoding dominates: in parallel).
    std::vector<double> sharp(candidates.size());
    std::vector<std::vector<float>> thumbs(candidates.size());
    std::vector<std::string> errors(candidates.size());
    pool.parallel_for(candidates.size(), [&](size_t i, int) {
        try {  // exceptions must not cross the pool's threads
            const GrayImage g = to_gray(load_image(candidates[i]));
            sharp[i] = laplacian_variance(g);
            thumbs[i] = thumbnail(g);
        } catch (const Error& e) {
            errors[i] = e.what();
        }
    });
    for (const std::string& e : errors)
        if (!e.empty()) throw Error(video, "a frame ffmpeg extracted cannot be read: " + e);

    // The sharpest candidate of each window of 1/keep_fps seconds.
    std::vector<size_t> kept;
    for (size_t i = 0; i < candidates.size(); ++i) {
        const size_t window = size_t(double(i) * keep_fps / candidate_fps + 1e-9);
        const size_t prev_window =
            i ? size_t(double(i - 1) * keep_fps / candidate_fps + 1e-9) : size_t(-1);
        if (kept.empty() || window != prev_window)
            kept.push_back(i);
        else if (sharp[i] > sharp[kept.back()])
            kept.back() = i;
    }
    // Near-duplicates of the frame kept before them add no viewpoint.
    std::vector<size_t> distinct;
    for (size_t i : kept) {
        if (!distinct.empty() &&
            thumbnail_difference(thumbs[i], thumbs[distinct.back()]) < o.duplicate_threshold) {
            ++result.duplicates_dropped;
            if (sharp[i] > sharp[distinct.back()]) distinct.back() = i;  // keep the sharper copy
            continue;
        }
        distinct.push_back(i);
    }
    for (size_t k = 0; k < distinct.size(); ++k) {
        const fs::path dst = fs::path(out_folder) / fmt::format("frame_{:05d}.jpg", k + 1);
        fs::rename(candidates[distinct[k]], dst, ec);
        if (ec)
            fs::copy_file(candidates[distinct[k]], dst, fs::copy_options::overwrite_existing, ec);
        if (ec) throw Error(dst.string(), "cannot write: " + ec.message());
        result.paths.push_back(dst.string());
        result.sharpness.push_back(sharp[distinct[k]]);
    }
    return result;
}

}  // namespace radiant
