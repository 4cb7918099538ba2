// decode_image: format sniffing, then whichever decoder the first bytes pick (seeds hold both
// PNG and JPEG files, so mutations cross between them and into neither).
#include <cstdint>

#include "core/error.h"
#include "fuzz_util.h"
#include "io/image.h"

using namespace radiant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const RawImage img = decode_image(fuzz::as_view(data, size), "fuzz.img");
        FUZZ_ASSERT(img.width > 0 && img.height > 0 && img.channels >= 1 && img.channels <= 4);
        FUZZ_ASSERT((img.bit_depth == 16 ? img.words.size() : img.bytes.size()) ==
                    img.sample_count());
        if (img.sample_count() <= (1u << 20)) {
            const ImageF f = to_float(img);
            FUZZ_ASSERT(f.pixels.size() == img.sample_count());
        }
        fuzz::accepted("decode_image");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    return 0;
}
