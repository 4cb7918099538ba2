// Running an external program (COLMAP, ffmpeg) without a shell: its stdout and stderr merged
// into one stream that is handed over line by line (for progress) and optionally appended to
// a log file, with a way to stop it early (Ctrl-C).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace radiant {

struct SubprocessOptions {
    std::string log_path;                // append all output here when set
    std::vector<std::string> extra_env;  // "NAME=value" entries added to the environment
    // Called for every output line (also for a line still being written when `partial`, so
    // progress that ends in a carriage return or no newline is seen too).
    std::function<void(std::string_view line, bool partial)> on_line;
    // Polled about 10 times a second; when it returns true the program is sent SIGTERM (then
    // SIGKILL after 2 s) and run_subprocess returns with `stopped` set.
    std::function<bool()> should_stop;
};

struct SubprocessResult {
    int exit_code = -1;    // the program's exit status; -1 when it was killed by a signal
    int signal = 0;        // the signal that ended it, 0 if none
    bool stopped = false;  // should_stop asked for it to end
    bool ok() const { return exit_code == 0 && !stopped; }
};

// Runs argv[0] (looked up on PATH) with the arguments. Throws Error naming the program when it
// cannot be started (not installed, not executable).
SubprocessResult run_subprocess(const std::vector<std::string>& argv,
                                const SubprocessOptions& options = {});

// Quotes an argument list as a shell command line, for logs and error messages.
std::string shell_quote(const std::vector<std::string>& argv);

}  // namespace radiant
