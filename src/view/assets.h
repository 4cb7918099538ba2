// The viewer page's files (web/), embedded in the binary at build time.
#pragma once

#include <cstddef>
#include <vector>

namespace radiant {

struct ViewerAsset {
    const char* path;          // URL path ("/" for the page)
    const char* content_type;  // without the charset (all are UTF-8 text)
    const char* data;
    size_t size;
};

const std::vector<ViewerAsset>& viewer_assets();

}  // namespace radiant
