#!/usr/bin/env bash
# Formats every C++ source with the committed .clang-format (Debian 12's clang-format 14), or,
# with --check, lists the files that differ from it and fails (what scripts/test.sh runs).
#   bash scripts/format.sh           rewrite the files in place
#   bash scripts/format.sh --check   change nothing; exit 1 if a file is not formatted
set -euo pipefail
cd "$(dirname "$0")/.."
tool=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$tool" ]; then
    echo "format: clang-format is not installed (bash scripts/setup.sh installs it)" >&2
    exit 2
fi
mapfile -t files < <(git ls-files 'src/*' 'tests/*' 'bench/*' 'fuzz/*' | grep -E '\.(h|cc|inc)$')
case "${1:-}" in
    --check)
        bad=()
        for f in "${files[@]}"; do
            "$tool" --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
        done
        if [ ${#bad[@]} -gt 0 ]; then
            echo "format: ${#bad[@]} file(s) differ from .clang-format (fix with: bash scripts/format.sh):" >&2
            printf '  %s\n' "${bad[@]}" >&2
            exit 1
        fi
        echo "format: ${#files[@]} files follow .clang-format"
        ;;
    "") "$tool" -i "${files[@]}" ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
