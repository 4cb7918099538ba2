// Running the `radiant` executable from tests: exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/system.h"
#include "test_util.h"

namespace radiant::test {

struct RunResult {
    int exit_code;
    std::string out, err;
};

// Runs `radiant ARGS` (a shell fragment: quote paths with spaces), with `env` (e.g.
// "PATH=/nowhere") in front when given; the output is captured through files in `dir`.
inline RunResult run_radiant(const TempDir& dir, const std::string& args,
                             const std::string& env = "") {
    const std::string cmd = (env.empty() ? "" : "env " + env + " ") + std::string(RADIANT_BINARY) +
                            " " + args + " > " + (dir / "stdout.txt") + " 2> " +
                            (dir / "stderr.txt");
    const int status = std::system(cmd.c_str());
    RunResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(dir / "stdout.txt"),
                read_file(dir / "stderr.txt")};
    std::filesystem::remove(dir / "stdout.txt");
    std::filesystem::remove(dir / "stderr.txt");
    return r;
}

// Exit 2 and the problem named on the last line of stderr (one line).
inline void expect_bad_input(const TempDir& dir, const std::string& args, const std::string& needle,
                             const std::string& env = "") {
    RunResult r = run_radiant(dir, args, env);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\nstderr: " << r.err;
    std::string last = r.err;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    last = last.substr(last.rfind('\n') + 1);
    EXPECT_NE(last.find(needle), std::string::npos) << "the message is not on one line: " << r.err;
}

}  // namespace radiant::test
