// Errors a user can cause (bad paths, formats, values) and invariant checks.
//
// User errors are thrown as radiant::Error, caught once in main, printed as one line
// "FILE: REASON" and turned into exit code 2. Invariants use RD_CHECK, which aborts with
// the expression, file and line: they are bugs, never user input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace radiant {

class Error : public std::runtime_error {
  public:
    // `file` is the user-facing path (or option name) the problem is about; may be empty.
    Error(std::string file, std::string reason)
        : std::runtime_error(file.empty() ? reason : file + ": " + reason),
          m_file(std::move(file)),
          m_reason(std::move(reason)) {}

    const std::string& file() const { return m_file; }
    const std::string& reason() const { return m_reason; }

  private:
    std::string m_file;
    std::string m_reason;
};

// A long job stopped on request (Ctrl-C, SIGTERM) before it finished: not a fault of the input.
// Commands turn it into exit code 128 + the signal.
class Interrupted : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void check_failed(const char* expr, const char* file, int line,
                                      const char* msg) {
    std::fprintf(stderr, "radiant: internal error: CHECK(%s) failed at %s:%d%s%s\n", expr, file,
                 line, msg[0] ? ": " : "", msg);
    std::abort();
}

}  // namespace radiant

// Invariant that must hold whatever the input; aborts with location on failure.
#define RD_CHECK(cond) ((cond) ? (void)0 : ::radiant::check_failed(#cond, __FILE__, __LINE__, ""))
#define RD_CHECK_MSG(cond, msg) \
    ((cond) ? (void)0 : ::radiant::check_failed(#cond, __FILE__, __LINE__, (msg)))
#ifdef NDEBUG
#define RD_DCHECK(cond) ((void)0)
#else
#define RD_DCHECK(cond) RD_CHECK(cond)
#endif
