// Small operating-system helpers: memory use, terminals, atomic file writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace radiant {

// Peak resident set size of this process in MiB (VmHWM).
double peak_rss_mb();

// Physical memory of this machine in bytes (0 if unknown).
size_t physical_memory_bytes();

// True when stderr is an interactive terminal (progress bars redraw in place).
bool stderr_is_tty();

// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so the
// path holds either the old content or the complete new one. Throws Error on failure.
void write_file_atomic(const std::string& path, std::string_view bytes);

// Atomic writes name their temporary `<path>.tmp.<pid>`. Removes those that a process no
// longer alive left behind (killed mid-write); returns how many. Others' live writes are kept.
int remove_stale_temporaries(const std::string& path);

// Empty when a file can be created in `folder`, else why not (e.g. "Read-only file system").
std::string folder_write_problem(const std::string& folder);

// Reads a whole file; throws Error naming the path if it cannot be read or is larger than
// `max_bytes` (checked before reading: loaders of JSON, whose parsed form is ~10x the text, set
// one).
std::string read_file(const std::string& path, size_t max_bytes = SIZE_MAX);

}  // namespace radiant
