// Image files: PNG (8/16-bit; gray, gray+alpha, RGB, RGBA; palettes expanded) and JPEG
// decoding, PNG encoding. Pixel values are the file's own encoding (sRGB for photos),
// interleaved row-major, top row first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace radiant {

// An image as decoded from a file: 8-bit samples in `bytes`, or 16-bit samples in `words`.
struct RawImage {
    int width = 0;
    int height = 0;
    int channels = 0;   // 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
    int bit_depth = 8;  // 8 or 16
    std::vector<uint8_t> bytes;
    std::vector<uint16_t> words;

    size_t sample_count() const { return size_t(width) * height * channels; }
    // Sample i as a value in [0, 1].
    float sample(size_t i) const {
        return bit_depth == 16 ? words[i] * (1.0f / 65535.0f) : bytes[i] * (1.0f / 255.0f);
    }
};

// A float image, values nominally in [0, 1], interleaved.
struct ImageF {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::vector<float> pixels;

    ImageF() = default;
    ImageF(int w, int h, int c) : width(w), height(h), channels(c), pixels(size_t(w) * h * c) {}
    float& at(int x, int y, int c) { return pixels[(size_t(y) * width + x) * channels + c]; }
    float at(int x, int y, int c) const { return pixels[(size_t(y) * width + x) * channels + c]; }
};

struct ImageSize {
    int width = 0;
    int height = 0;
    int channels = 0;
};

// Decodes a PNG or JPEG (detected from its first bytes). Throws Error naming `path` when the
// file is missing, not an image, truncated or corrupt.
RawImage load_image(const std::string& path);
RawImage decode_image(std::string_view file_bytes, const std::string& path_for_errors);

// Reads only the header: size and channel count, without decoding pixels.
ImageSize read_image_size(const std::string& path);

ImageF to_float(const RawImage& raw);

// Encodes an 8-bit or 16-bit PNG (values clamped to [0, 1] and rounded). Written atomically.
void save_png(const std::string& path, const ImageF& image, int bit_depth = 8);
std::string encode_png(const ImageF& image, int bit_depth, const std::string& path_for_errors);

// Baseline JPEG of a 1- or 3-channel image (values clamped to [0, 1]), quality 1..100.
std::string encode_jpeg(const ImageF& image, int quality = 90);

// The largest image the decoders accept, checked from the header before any pixel memory is
// allocated: a few bytes of PNG or JPEG can claim gigapixels. 128 megapixels is above any
// camera a NeRF is trained from (a 100 MP medium-format photo fits), and its 8-bit RGBA decode
// is 512 MiB. Each side is also capped at 65535 (JPEG's own limit).
constexpr int64_t kMaxImagePixels = int64_t(1) << 27;
constexpr int kMaxImageSide = 65535;
// Throws Error naming `path` when a header's size is zero or above the limits above.
void check_image_dimensions(int64_t width, int64_t height, const char* format,
                            const std::string& path);

// Format-specific decoders used by decode_image.
RawImage decode_png(std::string_view bytes, const std::string& path);
RawImage decode_jpeg(std::string_view bytes, const std::string& path);
ImageSize png_size(std::string_view bytes, const std::string& path);
ImageSize jpeg_size(std::string_view bytes, const std::string& path);

}  // namespace radiant
