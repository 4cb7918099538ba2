#include "nerf/model_io.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "core/error.h"

namespace radiant {

using nlohmann::json;

namespace {
constexpr const char* kKind = "radiant-nerf";

void check_range(bool ok, const std::string& path, const char* what) {
    if (!ok) throw Error(path, fmt::format("snapshot header: {} is out of range", what));
}
}  // namespace

json model_config_to_json(const NerfModelConfig& c) {
    const FieldConfig& f = c.field;
    json j = {
        {"field",
         {{"levels", f.grid.n_levels},
          {"features_per_level", f.grid.n_features_per_level},
          {"log2_hashmap_size", f.grid.log2_hashmap_size},
          {"base_resolution", f.grid.base_resolution},
          {"per_level_scale", f.grid.per_level_scale},
          {"density_neurons", f.density_neurons},
          {"density_hidden_layers", f.density_hidden_layers},
          {"color_neurons", f.color_neurons},
          {"color_hidden_layers", f.color_hidden_layers},
          {"aabb_scale", f.aabb_scale},
          {"precision", f.precision == MlpPrecision::kBf16 ? "bf16" : "fp32"}}},
        {"scene",
         {{"scale", c.scene.scale},
          {"offset", {c.scene.offset.x, c.scene.offset.y, c.scene.offset.z}}}},
        {"march",
         {{"min_step", c.march.min_step},
          {"cone_angle", c.march.cone_angle},
          {"max_samples", c.march.max_samples}}},
        {"grid_resolution", c.grid_resolution},
        {"grid_threshold", c.grid_threshold},
        {"grid_threshold_per_cascade", c.grid_threshold_per_cascade},
    };
    // Unbounded scenes only, so a bounded scene's header is what it always was.
    if (f.contraction.enabled()) j["field"]["contraction_radius"] = f.contraction.radius;
    if (c.march.far_sample) j["march"]["far_sample"] = true;
    return j;
}

NerfModelConfig model_config_from_json(const json& j, const std::string& path) {
    NerfModelConfig c;
    const json& f = j.contains("field") ? j["field"] : json();
    FieldConfig& fc = c.field;
    fc.grid.n_dims = 3;
    fc.grid.n_levels = snapshot_field<int>(f, "levels", path, "model.field");
    fc.grid.n_features_per_level =
        snapshot_field<int>(f, "features_per_level", path, "model.field");
    fc.grid.log2_hashmap_size = snapshot_field<int>(f, "log2_hashmap_size", path, "model.field");
    fc.grid.base_resolution = snapshot_field<int>(f, "base_resolution", path, "model.field");
    fc.grid.per_level_scale = snapshot_field<float>(f, "per_level_scale", path, "model.field");
    fc.density_neurons = snapshot_field<int>(f, "density_neurons", path, "model.field");
    fc.density_hidden_layers = snapshot_field<int>(f, "density_hidden_layers", path, "model.field");
    fc.color_neurons = snapshot_field<int>(f, "color_neurons", path, "model.field");
    fc.color_hidden_layers = snapshot_field<int>(f, "color_hidden_layers", path, "model.field");
    fc.aabb_scale = snapshot_field<float>(f, "aabb_scale", path, "model.field");
    const std::string precision = snapshot_field<std::string>(f, "precision", path, "model.field");
    check_range(precision == "fp32" || precision == "bf16", path, "model.field.precision");
    fc.precision = precision == "bf16" ? MlpPrecision::kBf16 : MlpPrecision::kFp32;
    check_range(fc.grid.n_levels >= 1 && fc.grid.n_levels <= 32, path, "model.field.levels");
    check_range(fc.grid.n_features_per_level == 1 || fc.grid.n_features_per_level == 2 ||
                    fc.grid.n_features_per_level == 4 || fc.grid.n_features_per_level == 8,
                path, "model.field.features_per_level");
    check_range((fc.grid.n_levels * fc.grid.n_features_per_level) % 16 == 0, path,
                "model.field levels x features");
    check_range(fc.grid.log2_hashmap_size >= HashGridConfig::kMinLog2HashmapSize &&
                    fc.grid.log2_hashmap_size <= HashGridConfig::kMaxLog2HashmapSize,
                path, "model.field.log2_hashmap_size");
    check_range(fc.grid.base_resolution >= 2 && fc.grid.per_level_scale >= 1.0f &&
                    fc.grid.per_level_scale < 4.0f,
                path, "model.field resolution");
    // The finest level's grid scale is a uint32 in the kernels; 2^20 cells a side is far finer
    // than any model (instant-ngp's finest is ~2^15).
    check_range(double(fc.grid.base_resolution) *
                        std::pow(double(fc.grid.per_level_scale), fc.grid.n_levels - 1) <=
                    double(1 << 20),
                path, "model.field resolution (finest level)");
    for (int w : {fc.density_neurons, fc.color_neurons})
        check_range(w == 16 || w == 32 || w == 64 || w == 128, path, "model.field neurons");
    check_range(fc.density_hidden_layers >= 1 && fc.density_hidden_layers <= 8 &&
                    fc.color_hidden_layers >= 1 && fc.color_hidden_layers <= 8,
                path, "model.field hidden layers");
    check_range(fc.aabb_scale >= 1.0f && fc.aabb_scale <= 128.0f, path, "model.field.aabb_scale");
    if (f.contains("contraction_radius")) {
        fc.contraction.radius = snapshot_field<float>(f, "contraction_radius", path, "model.field");
        check_range(std::isfinite(fc.contraction.radius) && fc.contraction.radius > 0 &&
                        fc.contraction.radius <= 1024.0f,
                    path, "model.field.contraction_radius");
    }

    const json& s = j.contains("scene") ? j["scene"] : json();
    c.scene.scale = snapshot_field<float>(s, "scale", path, "model.scene");
    const auto offset = snapshot_field<std::vector<float>>(s, "offset", path, "model.scene");
    check_range(offset.size() == 3 && std::isfinite(c.scene.scale) && c.scene.scale > 0, path,
                "model.scene");
    c.scene.offset = {offset[0], offset[1], offset[2]};
    const json& m = j.contains("march") ? j["march"] : json();
    c.march.min_step = snapshot_field<float>(m, "min_step", path, "model.march");
    c.march.cone_angle = snapshot_field<float>(m, "cone_angle", path, "model.march");
    c.march.max_samples = snapshot_field<size_t>(m, "max_samples", path, "model.march");
    check_range(c.march.min_step > 0 && c.march.cone_angle >= 0 && c.march.max_samples >= 1 &&
                    c.march.max_samples <= 65536,
                path, "model.march");
    if (m.contains("far_sample"))
        c.march.far_sample = snapshot_field<bool>(m, "far_sample", path, "model.march");
    c.grid_resolution = snapshot_field<int>(j, "grid_resolution", path, "model");
    check_range(c.grid_resolution >= 8 && c.grid_resolution <= 512 && c.grid_resolution % 2 == 0,
                path, "model.grid_resolution");
    if (j.contains("grid_threshold")) {
        c.grid_threshold = snapshot_field<float>(j, "grid_threshold", path, "model");
        c.grid_threshold_per_cascade =
            snapshot_field<bool>(j, "grid_threshold_per_cascade", path, "model");
        check_range(std::isfinite(c.grid_threshold) && c.grid_threshold >= 0, path,
                    "model.grid_threshold");
    } else {  // written before the threshold was its own field: the rule those models trained with
        c.grid_threshold = 0.01f / c.march.min_step;
        c.grid_threshold_per_cascade = false;
    }
    return c;
}

json views_to_json(const ImageSet& images) {
    json views = json::array();
    for (const StagedImage& im : images.images) {
        const CameraIntrinsics& c = im.camera;
        views.push_back({{"width", c.width},
                         {"height", c.height},
                         {"fl_x", c.fl_x},
                         {"fl_y", c.fl_y},
                         {"cx", c.cx},
                         {"cy", c.cy},
                         {"camera_to_world", im.camera_to_world}});
    }
    return views;
}

void save_model_snapshot(const std::string& path, const NerfModel& model, const json& views,
                         const json& info, const SnapshotSection* section) {
    const std::span<const float> params = model.params();
    for (float p : params)
        if (!std::isfinite(p))
            throw Error(path, "refusing to save non-finite parameters (training diverged)");
    json header;
    header["kind"] = kKind;
    header["model"] = model_config_to_json(model.config());
    header["views"] = views;
    header["info"] = info;
    const std::vector<float>& occupancy = model.grid().densities();
    std::vector<SnapshotBlockRef> blocks = {
        {"params", params.data(), params.size() * sizeof(float)},
        {"occupancy", occupancy.data(), occupancy.size() * sizeof(float)},
    };
    if (section) {
        RD_CHECK(!header.contains(section->name));
        header[section->name] = section->header;
        blocks.insert(blocks.end(), section->blocks.begin(), section->blocks.end());
    }
    write_snapshot(path, std::move(header), blocks);
}

LoadedModel load_model_snapshot(const std::string& path, std::optional<MlpPrecision> precision) {
    LoadedModel out{nullptr, SnapshotFile::read(path)};
    const json& h = out.file.header();
    if (!h.contains("kind") || h["kind"] != kKind)
        throw Error(path,
                    "snapshot does not hold a NeRF model (header kind is not 'radiant-nerf')");
    if (!h.contains("model")) throw Error(path, "snapshot header has no 'model'");
    NerfModelConfig config = model_config_from_json(h["model"], path);
    if (precision) config.field.precision = *precision;
    // The configuration's sizes are checked against the blocks the file really holds before the
    // model allocates them: a header can claim gigabytes of tables in a file of a few bytes.
    const size_t grid_cells =
        size_t(OccupancyGridConfig::cascades_for_aabb_scale(config.field.aabb_scale)) *
        size_t(config.grid_resolution) * config.grid_resolution * config.grid_resolution;
    auto params = out.file.block("params", NerfField(config.field).n_params() * sizeof(float));
    auto occ = out.file.block("occupancy", grid_cells * sizeof(float));
    out.model = std::make_unique<NerfModel>(config);
    NerfModel& model = *out.model;
    RD_CHECK(params.size() == model.params().size() * sizeof(float));
    std::memcpy(model.params().data(), params.data(), params.size());
    std::vector<float>& occupancy = model.grid().densities();
    RD_CHECK(occ.size() == occupancy.size() * sizeof(float));
    std::memcpy(occupancy.data(), occ.data(), occ.size());
    for (float p : model.params())
        if (!std::isfinite(p)) throw Error(path, "snapshot holds non-finite parameters");
    // Densities are >= 0 (possibly +inf: exp of a large output), or -1 for a dead cell.
    for (float d : occupancy)
        if (!(d >= 0 || d == -1.0f))
            throw Error(path, "snapshot's occupancy grid holds a density that is NaN or negative");
    model.repack();
    model.grid().rebuild_bits();
    return out;
}

}  // namespace radiant
