// JPEG through decode_jpeg and jpeg_size (libjpeg-turbo, its longjmp error path, the limits).
#include <cstdint>

#include "core/error.h"
#include "fuzz_util.h"
#include "io/image.h"

using namespace radiant;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes = fuzz::as_view(data, size);
    bool have_size = false;
    ImageSize header;
    try {
        header = jpeg_size(bytes, "fuzz.jpg");
        have_size = true;
        FUZZ_ASSERT(header.width > 0 && header.height > 0 &&
                    (header.channels == 1 || header.channels == 3));
        fuzz::accepted("jpeg_size");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    try {
        const RawImage img = decode_jpeg(bytes, "fuzz.jpg");
        FUZZ_ASSERT(img.width > 0 && img.height > 0 && (img.channels == 1 || img.channels == 3));
        FUZZ_ASSERT(img.bit_depth == 8 && img.bytes.size() == img.sample_count());
        FUZZ_ASSERT(have_size && header.width == img.width && header.height == img.height &&
                    header.channels == img.channels);
        if (img.sample_count() <= (1u << 20)) (void)to_float(img);
        fuzz::accepted("decode_jpeg");
    } catch (const Error& e) {
        fuzz::rejected(e);
    }
    return 0;
}
