// Test-only JPEG encoder (the product only decodes JPEG), so tests can make JPEG inputs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
// libjpeg's header uses size_t and FILE without declaring them.
#include <jpeglib.h>

namespace radiant::test {

// 8-bit interleaved RGB (channels 3) or gray (channels 1), quality 95.
inline std::string encode_jpeg(int width, int height, int channels,
                               const std::vector<unsigned char>& pixels) {
    jpeg_compress_struct cinfo;
    jpeg_error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&cinfo);
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = channels;
    cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 95, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row =
            const_cast<unsigned char*>(&pixels[size_t(cinfo.next_scanline) * width * channels]);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    std::string out(reinterpret_cast<char*>(buffer), size);
    jpeg_destroy_compress(&cinfo);
    std::free(buffer);
    return out;
}

}  // namespace radiant::test
