// JPEG through libjpeg(-turbo). Errors longjmp out of the library and become radiant::Error.
#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>
// libjpeg's headers use size_t and FILE without declaring them, and jerror.h needs jpeglib.h.
// clang-format off
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include "core/error.h"
#include "io/image.h"

namespace radiant {

namespace {
struct ErrorManager {
    jpeg_error_mgr base;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

void on_error_exit(j_common_ptr cinfo) {
    auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
}

// libjpeg pads a truncated stream with a fake EOI and only warns; we treat that as an error.
void on_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) on_error_exit(cinfo);
}
// The size limits of check_image_dimensions. libjpeg's structures are destroyed first: the
// Error unwinds past them.
void check_size(jpeg_decompress_struct& cinfo, const std::string& path) {
    try {
        check_image_dimensions(cinfo.image_width, cinfo.image_height, "JPEG", path);
    } catch (const Error&) {
        jpeg_destroy_decompress(&cinfo);
        throw;
    }
}
}  // namespace

RawImage decode_jpeg(std::string_view bytes, const std::string& path) {
    RawImage img;
    jpeg_decompress_struct cinfo;
    ErrorManager err;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = on_error_exit;
    err.base.emit_message = on_emit_message;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        throw Error(path, std::string("corrupt or truncated JPEG (") + err.message + ")");
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
                 static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    // Before jpeg_start_decompress, which allocates whole-image buffers for progressive files.
    check_size(cinfo, path);
    if (cinfo.num_components != 1) cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    img.width = static_cast<int>(cinfo.output_width);
    img.height = static_cast<int>(cinfo.output_height);
    img.channels = cinfo.output_components;
    img.bit_depth = 8;
    img.bytes.resize(img.sample_count());
    size_t stride = size_t(img.width) * img.channels;
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = img.bytes.data() + size_t(cinfo.output_scanline) * stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return img;
}

std::string encode_jpeg(const ImageF& image, int quality) {
    RD_CHECK(image.channels == 1 || image.channels == 3);
    RD_CHECK(image.width > 0 && image.height > 0);
    jpeg_compress_struct cinfo;
    ErrorManager err;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = on_error_exit;
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    if (setjmp(err.jump)) {  // only on out-of-memory: the input is checked above
        jpeg_destroy_compress(&cinfo);
        std::free(buffer);
        throw std::bad_alloc();
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = JDIMENSION(image.width);
    cinfo.image_height = JDIMENSION(image.height);
    cinfo.input_components = image.channels;
    cinfo.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, std::clamp(quality, 1, 100), TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    std::vector<unsigned char> row(size_t(image.width) * size_t(image.channels));
    while (cinfo.next_scanline < cinfo.image_height) {
        const float* src = &image.pixels[size_t(cinfo.next_scanline) * row.size()];
        for (size_t i = 0; i < row.size(); ++i)
            row[i] = (unsigned char)std::lround(std::clamp(src[i], 0.0f, 1.0f) * 255.0f);
        JSAMPROW r = row.data();
        jpeg_write_scanlines(&cinfo, &r, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    std::string out(reinterpret_cast<const char*>(buffer), size);
    std::free(buffer);
    return out;
}

ImageSize jpeg_size(std::string_view bytes, const std::string& path) {
    ImageSize size;
    jpeg_decompress_struct cinfo;
    ErrorManager err;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = on_error_exit;
    err.message[0] = 0;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        throw Error(path, std::string("corrupt or truncated JPEG (") + err.message + ")");
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
                 static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&cinfo, TRUE);
    check_size(cinfo, path);
    size.width = static_cast<int>(cinfo.image_width);
    size.height = static_cast<int>(cinfo.image_height);
    size.channels = cinfo.num_components == 1 ? 1 : 3;
    jpeg_destroy_decompress(&cinfo);
    return size;
}

}  // namespace radiant
