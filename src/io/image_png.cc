// PNG through libpng's classic API. libpng reports errors by longjmp; each function below
// keeps only trivially destructible locals between setjmp and the calls that may jump, and
// turns the jump into a radiant::Error after libpng's structures are freed.
#include <png.h>

#include <csetjmp>
#include <cstring>

#include "core/error.h"
#include "io/image.h"

namespace radiant {

namespace {

struct MemoryReader {
    const uint8_t* data;
    size_t size;
    size_t offset;
    char error[256];
    bool too_large;  // the header's size was refused; `error` says why
};

void read_from_memory(png_structp png, png_bytep out, png_size_t n) {
    auto* r = static_cast<MemoryReader*>(png_get_io_ptr(png));
    if (r->offset + n > r->size) png_error(png, "file is truncated");
    std::memcpy(out, r->data + r->offset, n);
    r->offset += n;
}

void on_error(png_structp png, png_const_charp msg) {
    auto* r = static_cast<MemoryReader*>(png_get_error_ptr(png));
    if (msg != r->error)
        std::snprintf(r->error, sizeof(r->error), "%s", msg);  // ours is already there
    png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

// Sets up transforms so rows come out as 8 or 16-bit gray/GA/RGB/RGBA; returns channels.
int configure_transforms(png_structp png, png_infop info) {
    int color = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_swap(png);  // PNG is big-endian; we store native uint16
    png_read_update_info(png, info);
    return png_get_channels(png, info);
}

// Text, palettes suggestions, ICC profiles and other metadata are never used, and libpng
// allocates such a chunk's claimed length (up to 2^31 bytes, only a warning) before reading it:
// skip them unread, so a 45-byte file cannot make it zero-fill gigabytes.
void skip_metadata_chunks(png_structp png) {
    static const png_byte kSkipped[] =
        "tEXt\0zTXt\0iTXt\0sPLT\0iCCP\0eXIf\0pCAL\0sCAL\0hIST\0tIME\0bKGD\0pHYs\0oFFs\0sTER";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, kSkipped, int(sizeof(kSkipped) / 5));
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr,
                                0);  // and chunks libpng does not know
}

// The size limits of check_image_dimensions, as a flag and a message that png_error can carry
// out through its longjmp (an exception thrown here would leak libpng's structures).
bool header_size_ok(png_structp png, png_infop info, const std::string& path,
                    MemoryReader& reader) {
    try {
        check_image_dimensions(png_get_image_width(png, info), png_get_image_height(png, info),
                               "PNG", path);
        return true;
    } catch (const Error& e) {
        std::snprintf(reader.error, sizeof(reader.error), "%s", e.reason().c_str());
        reader.too_large = true;
        return false;
    }
}

}  // namespace

RawImage decode_png(std::string_view bytes, const std::string& path) {
    MemoryReader reader{
        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0, {0}, false};
    RawImage img;
    std::vector<png_bytep> rows;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, on_error, on_warning);
    if (!png) throw Error(path, "out of memory decoding PNG");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        throw Error(path, "out of memory decoding PNG");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        if (reader.too_large) throw Error(path, reader.error);
        throw Error(path, std::string("corrupt or truncated PNG (") + reader.error + ")");
    }
    png_set_read_fn(png, &reader, read_from_memory);
    skip_metadata_chunks(png);
    png_set_user_limits(png, 0x7fffffff,
                        0x7fffffff);  // libpng's own cap is lifted: ours, with our message
    png_read_info(png, info);
    // Checked before any row is allocated (a few bytes can claim gigapixels).
    if (!header_size_ok(png, info, path, reader)) png_error(png, reader.error);
    int depth = png_get_bit_depth(png, info);
    int channels = configure_transforms(png, info);
    img.width = static_cast<int>(png_get_image_width(png, info));
    img.height = static_cast<int>(png_get_image_height(png, info));
    img.channels = channels;
    img.bit_depth = depth == 16 ? 16 : 8;
    size_t row_bytes = png_get_rowbytes(png, info);
    rows.resize(img.height);
    if (img.bit_depth == 16) {
        img.words.resize(img.sample_count());
        for (int y = 0; y < img.height; ++y)
            rows[y] =
                reinterpret_cast<png_bytep>(img.words.data() + size_t(y) * img.width * channels);
    } else {
        img.bytes.resize(img.sample_count());
        for (int y = 0; y < img.height; ++y) rows[y] = img.bytes.data() + size_t(y) * row_bytes;
    }
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
    png_destroy_read_struct(&png, &info, nullptr);
    return img;
}

ImageSize png_size(std::string_view bytes, const std::string& path) {
    MemoryReader reader{
        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0, {0}, false};
    ImageSize size;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_read_struct(&png, nullptr, nullptr);
        throw Error(path, "out of memory decoding PNG");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, nullptr);
        if (reader.too_large) throw Error(path, reader.error);
        throw Error(path, std::string("corrupt or truncated PNG (") + reader.error + ")");
    }
    png_set_read_fn(png, &reader, read_from_memory);
    skip_metadata_chunks(png);
    png_set_user_limits(png, 0x7fffffff,
                        0x7fffffff);  // libpng's own cap is lifted: ours, with our message
    png_read_info(png, info);
    if (!header_size_ok(png, info, path, reader)) png_error(png, reader.error);
    size.channels = configure_transforms(png, info);
    size.width = static_cast<int>(png_get_image_width(png, info));
    size.height = static_cast<int>(png_get_image_height(png, info));
    png_destroy_read_struct(&png, &info, nullptr);
    return size;
}

namespace {
struct MemoryWriter {
    std::string* out;
    char error[256];
};
void write_to_memory(png_structp png, png_bytep data, png_size_t n) {
    auto* w = static_cast<MemoryWriter*>(png_get_io_ptr(png));
    w->out->append(reinterpret_cast<const char*>(data), n);
}
void flush_memory(png_structp) {}
void on_write_error(png_structp png, png_const_charp msg) {
    auto* w = static_cast<MemoryWriter*>(png_get_error_ptr(png));
    std::snprintf(w->error, sizeof(w->error), "%s", msg);
    png_longjmp(png, 1);
}
}  // namespace

std::string encode_png(const ImageF& image, int bit_depth, const std::string& path) {
    if (image.channels < 1 || image.channels > 4) throw Error(path, "PNG needs 1 to 4 channels");
    if (bit_depth != 8 && bit_depth != 16) throw Error(path, "PNG bit depth must be 8 or 16");
    std::string out;
    MemoryWriter writer{&out, {0}};
    // Quantise first, so nothing with a destructor is created after setjmp.
    size_t n = image.pixels.size();
    int bytes_per_sample = bit_depth / 8;
    std::vector<uint8_t> data(n * bytes_per_sample);
    float max_value = bit_depth == 16 ? 65535.0f : 255.0f;
    for (size_t i = 0; i < n; ++i) {
        float v = image.pixels[i];
        v = v != v ? 0.0f : (v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v));  // NaN -> 0
        auto q = static_cast<uint32_t>(v * max_value + 0.5f);
        if (bit_depth == 16) {
            data[2 * i] = uint8_t(q >> 8);  // big-endian, as PNG stores it
            data[2 * i + 1] = uint8_t(q & 0xFF);
        } else {
            data[i] = uint8_t(q);
        }
    }
    std::vector<png_bytep> rows(image.height);
    size_t stride = size_t(image.width) * image.channels * bytes_per_sample;
    for (int y = 0; y < image.height; ++y) rows[y] = data.data() + y * stride;
    static const int kColorTypes[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                       PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGBA};

    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &writer, on_write_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        throw Error(path, "out of memory encoding PNG");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw Error(path, std::string("cannot encode PNG (") + writer.error + ")");
    }
    png_set_write_fn(png, &writer, write_to_memory, flush_memory);
    png_set_compression_level(png, 3);  // fast; outputs are many and large
    png_set_IHDR(png, info, image.width, image.height, bit_depth, kColorTypes[image.channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, rows.data());
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

}  // namespace radiant
