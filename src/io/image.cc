#include "io/image.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.h"
#include "core/system.h"

namespace radiant {

namespace {
enum class Format { kPng, kJpeg, kUnknown };

Format sniff(std::string_view b) {
    static const unsigned char kPngSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (b.size() >= 8 && std::memcmp(b.data(), kPngSig, 8) == 0) return Format::kPng;
    if (b.size() >= 3 && uint8_t(b[0]) == 0xFF && uint8_t(b[1]) == 0xD8 && uint8_t(b[2]) == 0xFF)
        return Format::kJpeg;
    return Format::kUnknown;
}

std::string read_image_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw Error(path, "image file not found");
    std::string bytes = read_file(path);
    if (bytes.empty()) throw Error(path, "image file is empty");
    return bytes;
}
}  // namespace

void check_image_dimensions(int64_t width, int64_t height, const char* format,
                            const std::string& path) {
    if (width <= 0 || height <= 0)
        throw Error(path,
                    fmt::format("{} header claims an empty {} x {} image", format, width, height));
    if (width > kMaxImageSide || height > kMaxImageSide || width * height > kMaxImagePixels)
        throw Error(
            path,
            fmt::format("{} header claims {} x {} pixels ({:.0f} megapixels); Radiant reads images "
                        "up to {} megapixels and {} pixels a side",
                        format, width, height, double(width) * double(height) / 1e6,
                        kMaxImagePixels / 1000000, kMaxImageSide));
}

RawImage decode_image(std::string_view bytes, const std::string& path) {
    switch (sniff(bytes)) {
        case Format::kPng:
            return decode_png(bytes, path);
        case Format::kJpeg:
            return decode_jpeg(bytes, path);
        default:
            throw Error(path, "not a PNG or JPEG image");
    }
}

RawImage load_image(const std::string& path) { return decode_image(read_image_file(path), path); }

ImageSize read_image_size(const std::string& path) {
    // Headers sit in the first few kB for PNG; JPEG may put EXIF first, so read it all.
    std::string bytes = read_image_file(path);
    switch (sniff(bytes)) {
        case Format::kPng:
            return png_size(bytes, path);
        case Format::kJpeg:
            return jpeg_size(bytes, path);
        default:
            throw Error(path, "not a PNG or JPEG image");
    }
}

ImageF to_float(const RawImage& raw) {
    ImageF out(raw.width, raw.height, raw.channels);
    for (size_t i = 0; i < out.pixels.size(); ++i) out.pixels[i] = raw.sample(i);
    return out;
}

void save_png(const std::string& path, const ImageF& image, int bit_depth) {
    write_file_atomic(path, encode_png(image, bit_depth, path));
}

}  // namespace radiant
