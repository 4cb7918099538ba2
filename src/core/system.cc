#include "core/system.h"

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

std::string read_file(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw Error(path, "no such file");
    if (std::filesystem::is_directory(path, ec)) throw Error(path, "is a directory, expected a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path, "cannot open for reading");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace radiant
