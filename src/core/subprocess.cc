#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "core/error.h"

extern char** environ;

namespace radiant {

std::string shell_quote(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& a : argv) {
        if (!out.empty()) out += ' ';
        if (!a.empty() && a.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;!#~") == std::string::npos) {
            out += a;
        } else {
            out += '\'';
            for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
            out += '\'';
        }
    }
    return out;
}

SubprocessResult run_subprocess(const std::vector<std::string>& argv, const SubprocessOptions& o) {
    RD_CHECK(!argv.empty());
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        throw Error(argv[0], std::string("cannot create a pipe: ") + std::strerror(errno));

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    // Its own process group, so a Ctrl-C at the terminal reaches Radiant (which then stops it
    // cleanly) rather than killing the child mid-write.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);

    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
    for (const std::string& extra : o.extra_env) env_strings.push_back(extra);
    std::vector<char*> envp, args;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = argv;
    for (auto& s : argv_copy) args.push_back(s.data());
    args.push_back(nullptr);

    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        throw Error(argv[0], rc == ENOENT ? "program not found on PATH"
                                          : std::string("cannot start: ") + std::strerror(rc));
    }

    FILE* log = o.log_path.empty() ? nullptr : std::fopen(o.log_path.c_str(), "ab");
    if (log) std::fprintf(log, "$ %s\n", shell_quote(argv).c_str());
    SubprocessResult result;
    std::string pending;
    char buf[8192];
    bool open = true;
    auto stop_started = std::chrono::steady_clock::time_point{};
    while (open) {
        pollfd pfd{fds[0], POLLIN, 0};
        const int ready = poll(&pfd, 1, 100);
        if (ready > 0) {
            const ssize_t n = read(fds[0], buf, sizeof(buf));
            if (n <= 0) {
                if (n < 0 && errno == EINTR) continue;
                open = false;
            } else {
                if (log) std::fwrite(buf, 1, size_t(n), log);
                pending.append(buf, size_t(n));
                size_t start = 0;
                for (size_t i = 0; i < pending.size(); ++i) {
                    if (pending[i] == '\n' || pending[i] == '\r') {
                        if (o.on_line && i > start)
                            o.on_line(std::string_view(pending).substr(start, i - start), false);
                        start = i + 1;
                    }
                }
                pending.erase(0, start);
                if (o.on_line && !pending.empty()) o.on_line(pending, true);
            }
        } else if (ready < 0 && errno != EINTR) {
            open = false;
        }
        if (o.should_stop && !result.stopped && o.should_stop()) {
            result.stopped = true;
            stop_started = std::chrono::steady_clock::now();
            kill(-pid, SIGTERM);
        }
        if (result.stopped &&
            std::chrono::steady_clock::now() - stop_started > std::chrono::seconds(2))
            kill(-pid, SIGKILL);
    }
    if (o.on_line && !pending.empty()) o.on_line(pending, false);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    if (log) {
        std::fprintf(log, "[exit %d%s]\n", result.exit_code,
                     result.signal ? ", killed by a signal" : "");
        std::fclose(log);
    }
    return result;
}

}  // namespace radiant
