// Shared by the libFuzzer harnesses: a per-process scratch folder for loaders that take a path.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

namespace radiant::fuzz {

// A folder under $TMPDIR (else /tmp) named after the harness and the process, created on first
// use and removed at a normal exit. Files in it are rewritten in place on every input.
class Scratch {
  public:
    explicit Scratch(const std::string& harness) {
        const char* tmp = std::getenv("TMPDIR");
        m_dir = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                ("radiant-fuzz-" + harness + "-" + std::to_string(getpid()));
        std::filesystem::create_directories(m_dir);
    }
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

    const std::filesystem::path& dir() const { return m_dir; }
    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    // Writes `bytes` to dir()/name (folders created); returns the path.
    std::string write(const std::string& name, std::string_view bytes) const {
        const std::filesystem::path p = m_dir / name;
        std::filesystem::create_directories(p.parent_path());
        FILE* f = std::fopen(p.c_str(), "wb");
        if (!f || (bytes.size() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) ||
            std::fclose(f) != 0) {
            std::fprintf(stderr, "fuzz: cannot write %s\n", p.c_str());
            std::abort();  // the machine's problem, not the input's
        }
        return p.string();
    }
    std::string write(const std::string& name, const uint8_t* data, size_t size) const {
        return write(name, std::string_view(reinterpret_cast<const char*>(data), size));
    }

  private:
    std::filesystem::path m_dir;
};

// With RADIANT_FUZZ_VERBOSE set, prints the one-line error each rejected input got (to check
// that seeds get as far as they should: fuzz_x -runs=0 fuzz/corpus/x).
inline void rejected(const std::exception& e) {
    static const bool verbose = std::getenv("RADIANT_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "fuzz: rejected: %s\n", e.what());
}
// ... and that it got through.
inline void accepted(const char* what) {
    static const bool verbose = std::getenv("RADIANT_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "fuzz: accepted: %s\n", what);
}

inline std::string_view as_view(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// A property of a loader's result that must hold whatever the input: a bug when it does not.
#define FUZZ_ASSERT(cond)                                                                 \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            std::fprintf(stderr, "fuzz: assertion failed: %s (%s:%d)\n", #cond, __FILE__, \
                         __LINE__);                                                       \
            std::abort();                                                                 \
        }                                                                                 \
    } while (0)

}  // namespace radiant::fuzz
