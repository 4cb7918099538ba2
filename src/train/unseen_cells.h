// Occupancy cells that no training camera sees can never be given density by a pixel, only
// made up by the network: they are marked dead once, before training.
#pragma once

#include "core/thread_pool.h"
#include "io/staging.h"
#include "parallel/communicator.h"
#include "scene/camera.h"
#include "scene/occupancy_grid.h"

namespace radiant {

// Every rank's cameras count (each rank stages its own share of the images), so all ranks kill
// the same cells; collective when `comm` spans several ranks.
void mark_unseen_cells_dead(OccupancyGrid& grid, const ImageSet& images,
                            const SceneTransform& scene, ThreadPool& pool, Communicator* comm);

}  // namespace radiant
