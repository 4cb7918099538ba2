#include "train/unseen_cells.h"

#include <cstring>
#include <string>
#include <vector>

#include "scene/grid_visibility.h"

namespace radiant {

void mark_unseen_cells_dead(OccupancyGrid& grid, const ImageSet& images,
                            const SceneTransform& scene, ThreadPool& pool, Communicator* comm) {
    std::vector<ViewFrustum> views;
    for (const StagedImage& im : images.images)
        views.push_back(view_frustum(im.camera, im.camera_to_world, scene));
    if (comm && comm->distributed()) {
        std::vector<float> mine(views.size() * ViewFrustum::kFloats);
        for (size_t i = 0; i < views.size(); ++i) views[i].pack(&mine[i * ViewFrustum::kFloats]);
        views.clear();
        const std::string bytes(reinterpret_cast<const char*>(mine.data()),
                                mine.size() * sizeof(float));
        for (const std::string& part : comm->allgather_strings(bytes)) {
            std::vector<float> theirs(part.size() / sizeof(float));
            std::memcpy(theirs.data(), part.data(), theirs.size() * sizeof(float));
            for (size_t at = 0; at + ViewFrustum::kFloats <= theirs.size();
                 at += ViewFrustum::kFloats)
                views.push_back(ViewFrustum::unpack(&theirs[at]));
        }
    }
    grid.mark_dead(cells_seen_by(grid, views, pool));
}

}  // namespace radiant
