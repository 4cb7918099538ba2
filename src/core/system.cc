#include "core/system.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace radiant {

double peak_rss_mb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stod(line.substr(6)) / 1024.0;  // value is in kB
        }
    }
    return 0.0;
}

size_t physical_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? size_t(pages) * size_t(page) : 0;
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

void write_file_atomic(const std::string& path, std::string_view bytes) {
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw Error(path, std::string("cannot write: ") + std::strerror(errno));
    bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    ok = (std::fflush(f) == 0) && ok;
    ok = (std::fclose(f) == 0) && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw Error(path, "cannot write: " + why);
    }
}

int remove_stale_temporaries(const std::string& path) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const std::string prefix = target.filename().string() + ".tmp.";
    std::error_code ec;
    int removed = 0;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string pid_text = name.substr(prefix.size());
        if (pid_text.find_first_not_of("0123456789") != std::string::npos || pid_text.size() > 9)
            continue;
        const pid_t pid = pid_t(std::stol(pid_text));
        if (pid == getpid() || (kill(pid, 0) == 0 || errno == EPERM))
            continue;  // still being written
        if (fs::remove(entry.path(), ec)) ++removed;
    }
    return removed;
}

std::string folder_write_problem(const std::string& folder) {
    const std::string probe =
        (std::filesystem::path(folder) / (".radiant-write-probe." + std::to_string(getpid())))
            .string();
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return std::strerror(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return "";
}

std::string read_file(const std::string& path, size_t max_bytes) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw Error(path, "no such file");
    if (std::filesystem::is_directory(path, ec))
        throw Error(path, "is a directory, expected a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path, "cannot open for reading");
    // Sized from the file itself (one allocation, no copy); a special file reports no size
    // and is read in pieces, still under the limit.
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes)
        throw Error(path,
                    fmt::format("file is {:.1f} MiB; files of this kind are read up to {:.0f} MiB",
                                double(size) / (1 << 20), double(max_bytes) / (1 << 20)));
    std::string bytes;
    if (!ec && size > 0) {
        bytes.resize(size);
        in.read(bytes.data(), std::streamsize(size));
        bytes.resize(size_t(in.gcount()));
    }
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        bytes.append(chunk, size_t(in.gcount()));
        if (bytes.size() > max_bytes)
            throw Error(path,
                        fmt::format("file is over {:.0f} MiB, the limit for files of this kind",
                                    double(max_bytes) / (1 << 20)));
    }
    if (in.bad()) throw Error(path, "read error");
    return bytes;
}

}  // namespace radiant
