// Frames from a video for structure from motion: ffmpeg extracts candidates at a few times
// the wanted rate, the sharpest candidate of each window is kept (variance of the Laplacian:
// motion blur and focus hunting lose), and frames that barely differ from the one kept before
// them (a paused camera, a slideshow) are dropped.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/thread_pool.h"

namespace radiant {

struct VideoFrameOptions {
    double fps = 2.0;    // frames kept per second of video (when frames == 0)
    int frames = 0;      // or about this many frames over the whole video
    int oversample = 3;  // candidates per kept frame (capped by the video's own frame rate)
    double duplicate_threshold = 1.0;  // mean luma difference (0..255) of 32x32 thumbnails
};

struct VideoInfo {
    double duration = 0;  // seconds
    double fps = 0;       // the stream's average frame rate
    int width = 0, height = 0;
};

struct VideoFrames {
    std::vector<std::string> paths;  // kept frames, in time order, in the output folder
    std::vector<double> sharpness;   // per kept frame
    size_t candidates = 0;
    size_t duplicates_dropped = 0;
    VideoInfo info;
};

// Throws Error naming the video when ffprobe (Debian's ffmpeg package) is missing or cannot
// read it, or it has no video stream.
VideoInfo probe_video(const std::string& video);

// Writes the kept frames as frame_00001.jpg, ... into `out_folder` (which must exist); the
// candidates go to a temporary folder beside it that is removed afterwards.
VideoFrames extract_video_frames(const std::string& video, const std::string& out_folder,
                                 const VideoFrameOptions& options, ThreadPool& pool,
                                 const std::function<bool()>& should_stop);

// Whether a path looks like a video by its extension (mp4, mov, mkv, avi, webm, m4v, ...).
bool looks_like_video(const std::string& path);

}  // namespace radiant
