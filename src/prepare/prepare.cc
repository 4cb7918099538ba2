#include "prepare/prepare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "core/progress.h"
#include "core/system.h"
#include "core/thread_pool.h"
#include "core/timer.h"
#include "io/image.h"
#include "io/transforms_writer.h"
#include "prepare/colmap_convert.h"
#include "prepare/colmap_model.h"
#include "prepare/image_quality.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMinImages = 3;

bool is_photo(const fs::path& p) {
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".jpg" || ext == ".jpeg" || ext == ".png";
}

// Where a COLMAP model sits in an input folder: FOLDER/sparse/N (the largest), FOLDER/sparse,
// or FOLDER itself; "" when there is none.
std::string find_model_folder(const fs::path& input) {
    std::error_code ec;
    std::string best;
    size_t best_images = 0;
    const fs::path sparse = input / "sparse";
    if (fs::is_directory(sparse, ec)) {
        for (const auto& e : fs::directory_iterator(sparse, ec)) {
            if (!e.is_directory() || !is_colmap_model_folder(e.path().string())) continue;
            const size_t n = read_colmap_model(e.path().string()).images.size();
            if (best.empty() || n > best_images) best = e.path().string(), best_images = n;
        }
        if (best.empty() && is_colmap_model_folder(sparse.string())) best = sparse.string();
    }
    if (best.empty() && is_colmap_model_folder(input.string())) best = input.string();
    return best;
}

// The images folder next to a model: INPUT/images, or up to two folders above the model.
std::string find_model_images(const fs::path& input, const fs::path& model) {
    std::error_code ec;
    for (const fs::path& p : {input / "images", model.parent_path() / "images",
                              model.parent_path().parent_path() / "images"})
        if (fs::is_directory(p, ec)) return p.string();
    return "";
}

struct CheckedImage {
    std::string path;  // source
    std::string name;  // name under SCENE/images (and in COLMAP)
    int width = 0, height = 0;
    double sharpness = 0;
    std::string error;  // why it cannot be used
};

// Decodes every image once (in parallel): proves it readable and measures its sharpness.
void check_images(std::vector<CheckedImage>& images, ThreadPool& pool, const char* label) {
    Progress progress(label, images.size(), 0, 10.0, "image");
    std::atomic<size_t> done{0};
    pool.parallel_for(images.size(), [&](size_t i, int t) {
        try {  // exceptions must not cross the pool's threads
            const RawImage raw = load_image(images[i].path);
            images[i].width = raw.width;
            images[i].height = raw.height;
            images[i].sharpness = laplacian_variance(to_gray(raw));
        } catch (const Error& e) {
            images[i].error = e.reason();
        }
        const size_t d = ++done;
        if (t == 0) {
            ProgressState s;
            s.step = d;
            progress.update(s);
        }
    });
    ProgressState s;
    s.step = images.size();
    progress.finish(s);
}

void drop_unreadable(std::vector<CheckedImage>& images, PrepareResult& result) {
    std::vector<CheckedImage> kept;
    for (auto& im : images) {
        if (im.error.empty()) {
            kept.push_back(std::move(im));
            continue;
        }
        std::fprintf(stderr, "prepare: warning: skipping %s: %s\n", im.path.c_str(),
                     im.error.c_str());
        result.skipped.push_back(im.path + ": " + im.error);
    }
    images = std::move(kept);
}

// Hard link (no copy of the bytes) where the file system allows, else a copy.
void stage_file(const std::string& src, const fs::path& dst) {
    std::error_code ec;
    fs::create_directories(dst.parent_path(), ec);
    if (fs::exists(dst, ec)) {
        if (fs::equivalent(src, dst, ec) || fs::file_size(src, ec) == fs::file_size(dst, ec))
            return;
        fs::remove(dst, ec);
    }
    fs::create_hard_link(src, dst, ec);
    if (ec) {
        ec.clear();
        fs::copy_file(src, dst, fs::copy_options::overwrite_existing, ec);
    }
    if (ec) throw Error(dst.string(), "cannot link or copy the image here: " + ec.message());
}

// The files and folders an earlier prepare wrote, which --force replaces.
const char* kOurs[] = {"transforms.json", "images", "colmap", "unregistered.txt"};

// Refuses an --out that cannot be used, before anything is written.
void check_out_folder(const PrepareOptions& o, const fs::path& input) {
    std::error_code ec;
    const fs::path out(o.out);
    if (fs::exists(out, ec) && !fs::is_directory(out, ec))
        throw Error(o.out, "--out names a file; give a folder");
    const bool empty = !fs::exists(out, ec) || fs::is_empty(out, ec);
    if (empty) return;
    if (o.resume) {
        // Stopped before COLMAP started there is no database yet, only the staged images.
        if (!fs::exists(out / "colmap" / "database.db", ec) &&
            !fs::is_directory(out / "images", ec))
            throw Error(o.out,
                        "--resume: this folder holds no interrupted prepare (no colmap/database.db "
                        "or images/)");
        return;
    }
    if (!o.force)
        throw Error(o.out,
                    "--out folder is not empty; add --force to replace an earlier prepare there, "
                    "or --resume to continue an interrupted one");
    const fs::path in = fs::weakly_canonical(input, ec);
    for (const char* name : kOurs) {
        const fs::path p = fs::weakly_canonical(out / name, ec);
        const auto rel = in.lexically_relative(p);
        if (!rel.empty() && *rel.begin() != "..")
            throw Error(o.out, fmt::format("--force would delete the input {} (it is inside {})",
                                           input.string(), p.string()));
    }
}

// Creates --out/images, first removing what an earlier prepare wrote when --force.
void make_out_folder(const PrepareOptions& o) {
    std::error_code ec;
    const fs::path out(o.out);
    if (o.force && !o.resume)
        for (const char* name : kOurs) fs::remove_all(out / name, ec);
    fs::create_directories(out / "images", ec);
    if (ec) throw Error(o.out, "cannot create folder: " + ec.message());
}

std::vector<CheckedImage> list_photos(const fs::path& folder) {
    std::vector<CheckedImage> photos;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
        if (!e.is_regular_file(ec) || !is_photo(e.path())) continue;
        CheckedImage im;
        im.path = e.path().string();
        im.name = e.path().filename().string();
        photos.push_back(im);
    }
    if (ec) throw Error(folder.string(), "cannot list folder: " + ec.message());
    std::sort(photos.begin(), photos.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return photos;
}

bool all_same_size(const std::vector<CheckedImage>& images) {
    for (const auto& im : images)
        if (im.width != images[0].width || im.height != images[0].height) return false;
    return true;
}

void write_report(const PrepareOptions& o, const PrepareResult& r) {
    nlohmann::json stages = nlohmann::json::object();
    for (const auto& s : r.stages) stages[s.name] = s.seconds;
    nlohmann::json j = {{"command", "prepare"},
                        {"input", o.input},
                        {"input_kind", r.input_kind},
                        {"scene", o.out},
                        {"transforms", r.transforms},
                        {"images", r.images},
                        {"registered", r.registered},
                        {"unregistered", r.unregistered},
                        {"skipped", r.skipped},
                        {"mean_reprojection_error_px", r.mean_reprojection_error},
                        {"points", r.points},
                        {"models", r.models},
                        {"aabb_scale", r.aabb_scale},
                        {"video_candidate_frames", r.video_candidates},
                        {"video_duplicates_dropped", r.video_duplicates},
                        {"stage_seconds", stages},
                        {"seconds", r.seconds},
                        {"peak_rss_mb", peak_rss_mb()}};
    write_file_atomic(o.report, j.dump(2) + "\n");
}

}  // namespace

PrepareResult run_prepare(const PrepareOptions& o, const std::function<bool()>& should_stop) {
    Timer total;
    PrepareResult result;
    std::error_code ec;
    const fs::path input(o.input), out(o.out);
    if (o.out.empty()) throw Error("--out", "give the scene folder to write");
    if (!fs::exists(input, ec)) throw Error(o.input, "no such file or folder");
    if (!o.report.empty()) {
        const fs::path parent = fs::path(o.report).parent_path();
        if (!parent.empty() && !fs::is_directory(parent, ec))
            throw Error(o.report, "--report: folder '" + parent.string() + "' does not exist");
    }
    ThreadPool pool(o.threads);
    ColmapOptions colmap = o.colmap;
    colmap.threads = pool.size();
    const fs::path images_out = out / "images";
    const fs::path work = out / "colmap";

    std::string model_folder;
    std::vector<CheckedImage> images;
    if (fs::is_directory(input, ec)) {
        model_folder = find_model_folder(input);
        result.input_kind = model_folder.empty() ? "photos" : "colmap";
    } else if (looks_like_video(o.input)) {
        result.input_kind = "video";
    } else {
        throw Error(
            o.input,
            "is neither a folder of photos, a COLMAP model folder, nor a video (by its extension)");
    }
    check_out_folder(o, input);

    if (result.input_kind == "colmap") {
        // An existing model: convert it, without running COLMAP.
        const ColmapModel model = read_colmap_model(model_folder);
        const std::string image_folder = find_model_images(input, model_folder);
        if (image_folder.empty())
            throw Error(
                model_folder,
                "no images folder next to this COLMAP model (looked for images/ beside sparse/)");
        for (const auto& im : model.images) {
            const fs::path p = fs::path(image_folder) / im.name;
            if (!fs::is_regular_file(p, ec))
                throw Error(model_folder,
                            fmt::format("image {} '{}' of the model is missing from {}", im.id,
                                        im.name, image_folder));
            CheckedImage ci;
            ci.path = p.string();
            ci.name = im.name;
            images.push_back(ci);
        }
        std::fprintf(stderr, "prepare: COLMAP model %s (%zu images, %zu points), images in %s\n",
                     model_folder.c_str(), model.images.size(), model.points.size(),
                     image_folder.c_str());
        check_images(images, pool, "checking");
        drop_unreadable(images, result);
        if (images.size() < kMinImages)
            throw Error(model_folder,
                        fmt::format("only {} readable registered images; at least {} are needed",
                                    images.size(), kMinImages));
        for (const auto& p : list_photos(image_folder))
            if (std::none_of(model.images.begin(), model.images.end(),
                             [&](const auto& im) { return im.name == p.name; }))
                result.unregistered.push_back(p.name);
        make_out_folder(o);
        for (const auto& im : images) stage_file(im.path, images_out / im.name);
        fs::create_directories(work / "sparse" / "0", ec);
        for (const char* f : {"cameras", "images", "points3D"})
            for (const char* ext : {".bin", ".txt"})
                if (fs::exists(fs::path(model_folder) / (std::string(f) + ext), ec))
                    fs::copy_file(fs::path(model_folder) / (std::string(f) + ext),
                                  work / "sparse" / "0" / (std::string(f) + ext),
                                  fs::copy_options::overwrite_existing, ec);
        model_folder = (work / "sparse" / "0").string();
        result.images = model.images.size();
        result.models = 1;
    } else {
        auto require_colmap = [] {
            if (colmap_version().empty())
                throw Error("colmap",
                            "not found on PATH: install Debian's colmap package (apt-get install "
                            "colmap, or "
                            "bash scripts/setup.sh)");
        };
        if (result.input_kind == "photos") {
            images = list_photos(input);
            if (images.empty())
                throw Error(o.input, "folder holds no JPEG or PNG photos (nor a COLMAP model)");
            if (images.size() < kMinImages)
                throw Error(
                    o.input,
                    fmt::format("holds only {} photos; at least {} overlapping photos are needed",
                                images.size(), kMinImages));
            check_images(images, pool, "checking");
            drop_unreadable(images, result);
            if (images.size() < kMinImages)
                throw Error(o.input, fmt::format("only {} readable photos; at least {} are needed",
                                                 images.size(), kMinImages));
            require_colmap();
            make_out_folder(o);
            for (const auto& im : images) stage_file(im.path, images_out / im.name);
        } else {
            probe_video(o.input);  // a video ffmpeg cannot read is refused before SCENE is touched
            require_colmap();
            make_out_folder(o);
            std::vector<CheckedImage> existing =
                o.resume ? list_photos(images_out) : std::vector<CheckedImage>{};
            if (!existing.empty()) {
                std::fprintf(stderr, "prepare: --resume: reusing the %zu frames in %s\n",
                             existing.size(), images_out.c_str());
                check_images(existing, pool, "checking");
                drop_unreadable(existing, result);
                images = existing;
            } else {
                Timer t;
                const VideoFrames frames =
                    extract_video_frames(o.input, images_out.string(), o.video, pool, should_stop);
                result.stages.push_back({"frames", t.seconds()});
                result.video_candidates = frames.candidates;
                result.video_duplicates = frames.duplicates_dropped;
                std::fprintf(stderr,
                             "prepare: %s: %.1f s of %dx%d video at %.2f fps: kept %zu of %zu "
                             "candidate frames "
                             "(%zu near-duplicates dropped)\n",
                             o.input.c_str(), frames.info.duration, frames.info.width,
                             frames.info.height, frames.info.fps, frames.paths.size(),
                             frames.candidates, frames.duplicates_dropped);
                for (size_t i = 0; i < frames.paths.size(); ++i) {
                    CheckedImage im;
                    im.path = frames.paths[i];
                    im.name = fs::path(frames.paths[i]).filename().string();
                    im.width = frames.info.width;
                    im.height = frames.info.height;
                    im.sharpness = frames.sharpness[i];
                    images.push_back(im);
                }
            }
            if (images.size() < kMinImages)
                throw Error(o.input, fmt::format("gives only {} distinct frames; at least {} are "
                                                 "needed (try a higher --fps)",
                                                 images.size(), kMinImages));
        }
        colmap.single_camera = o.single_camera.value_or(all_same_size(images));
        if (colmap.single_camera && !all_same_size(images))
            throw Error("--single-camera",
                        "the images differ in size, so they cannot share one camera");
        colmap.matcher =
            o.matcher.value_or(result.input_kind == "video" ? "sequential" : "exhaustive");
        result.images = images.size();
        fs::remove_all(work / "sparse", ec);  // a mapper run that was cut short
        std::fprintf(stderr,
                     "prepare: COLMAP on %zu images (%s matching, %s, %s, features on %d px)\n",
                     images.size(), colmap.matcher.c_str(),
                     colmap.single_camera ? "one camera" : "a camera per image",
                     colmap.camera_model.c_str(), colmap.max_image_size);
        const ColmapRun run =
            run_colmap(images_out.string(), work.string(), images.size(), colmap, should_stop);
        model_folder = run.model_folder;
        result.models = run.models;
        for (const auto& s : run.stages) result.stages.push_back(s);
    }

    const ColmapModel model = read_colmap_model(model_folder);
    ConvertedScene scene = convert_colmap_model(model, images_out.string(), model_folder);
    std::map<std::string, double> sharpness;
    for (const auto& im : images)
        sharpness[(images_out / im.name).lexically_normal().string()] = im.sharpness;
    std::vector<Frame> frames;
    for (Frame& f : scene.dataset.frames) {
        auto it = sharpness.find(f.image_path);
        if (it == sharpness.end()) continue;  // unreadable: skipped above
        f.sharpness = float(it->second);
        frames.push_back(f);
    }
    scene.dataset.frames = std::move(frames);
    std::set<std::string> placed;
    for (const auto& im : model.images) placed.insert(im.name);
    if (result.input_kind != "colmap")
        for (const auto& im : images)
            if (!placed.count(im.name)) result.unregistered.push_back(im.name);
    result.registered = scene.dataset.frames.size();
    result.mean_reprojection_error = scene.mean_reprojection_error;
    result.points = scene.points;
    result.aabb_scale = scene.dataset.aabb_scale;

    const fs::path unregistered_txt = out / "unregistered.txt";
    if (!result.unregistered.empty()) {
        std::string text;
        for (const auto& n : result.unregistered) text += n + "\n";
        write_file_atomic(unregistered_txt.string(), text);
    } else {
        fs::remove(unregistered_txt, ec);
    }
    if (result.registered < kMinImages)
        throw Error(
            "colmap",
            fmt::format(
                "registered only {} of {} images; at least {} are needed (the photos share too "
                "few features: more overlap, sharper photos, or --matcher exhaustive); see {}",
                result.registered, result.images, kMinImages, (work / "colmap.log").string()));

    result.transforms = (out / "transforms.json").string();
    nlohmann::json extra = {
        {"radiant_prepare",
         {{"input", o.input},
          {"colmap_model", fs::path(model_folder).lexically_relative(out).generic_string()},
          {"registered", result.registered},
          {"images", result.images},
          {"mean_reprojection_error_px", result.mean_reprojection_error},
          {"centre_from_points", scene.normalization.centre_from_points}}}};
    save_transforms(result.transforms, scene.dataset, extra);  // last: its presence means success
    result.seconds = total.seconds();
    if (!o.report.empty()) write_report(o, result);
    return result;
}

}  // namespace radiant
