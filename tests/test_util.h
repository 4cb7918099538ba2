// Helpers shared by the tests: temporary folders, the shared data location, small files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "core/system.h"

namespace radiant::test {

namespace fs = std::filesystem;

// A fresh folder under the system temp dir, removed when the object dies.
class TempDir {
  public:
    TempDir() {
        static int counter = 0;
        m_path = fs::temp_directory_path() /
                 ("radiant_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        fs::remove_all(m_path);
        fs::create_directories(m_path);
    }
    ~TempDir() { fs::remove_all(m_path); }
    std::string operator/(const std::string& name) const { return (m_path / name).string(); }
    const fs::path& path() const { return m_path; }

  private:
    fs::path m_path;
};

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// ../shared/data next to the project, or "" (tests then GTEST_SKIP with a message).
inline std::string shared_data_dir() {
    std::error_code ec;
    return fs::is_directory(RADIANT_SHARED_DATA, ec) ? std::string(RADIANT_SHARED_DATA) : "";
}

#define RADIANT_REQUIRE_SHARED_DATA(sub)                                                 \
    do {                                                                                 \
        if (::radiant::test::shared_data_dir().empty() ||                                \
            !std::filesystem::exists(::radiant::test::shared_data_dir() + "/" + (sub)))  \
            GTEST_SKIP() << "shared data not found at " RADIANT_SHARED_DATA "/" << (sub) \
                         << "; skipping";                                                \
    } while (0)

// Expects `stmt` to throw radiant::Error whose message contains both `file` and `reason`.
#define EXPECT_RADIANT_ERROR(stmt, file, reason)                                        \
    do {                                                                                \
        try {                                                                           \
            stmt;                                                                       \
            ADD_FAILURE() << "expected radiant::Error from " #stmt;                     \
        } catch (const ::radiant::Error& e) {                                           \
            std::string msg = e.what();                                                 \
            EXPECT_NE(msg.find(file), std::string::npos) << "message: " << msg;         \
            EXPECT_NE(msg.find(reason), std::string::npos) << "message: " << msg;       \
            EXPECT_EQ(msg.find('\n'), std::string::npos) << "message must be one line"; \
        }                                                                               \
    } while (0)

}  // namespace radiant::test
