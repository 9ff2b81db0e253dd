#!/usr/bin/env bash
# Installs OSRM's command-line tools (osrm-extract, osrm-contract, osrm-routed, ...) for differential tests
# (scripts/osrm_diff.py) from PyPI's osrm-bindings wheel, into a venv of its own:
#
#     scripts/install-osrm.sh [DIR]      # DIR defaults to ${XDG_CACHE_HOME:-~/.cache}/wayfinder/osrm-venv
#
# The wheel needs CPython >= 3.12: python3.12 (or python3.13) is taken from PATH or from pyenv's versions.
# On success prints the directory holding the OSRM binaries and exits 0. On failure prints why on stderr and exits
# non-zero; callers treat that as "skip". Idempotent and quick when already installed.
set -u

dir="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/wayfinder/osrm-venv}"

fail() { echo "install-osrm: $*" >&2; exit 1; }

# Where the wheel puts the binaries: <venv>/lib/pythonX.Y/site-packages/osrm/bin.
find_bin() {
    local b
    for b in "$dir"/lib/python3.*/site-packages/osrm/bin; do
        if [ -x "$b/osrm-routed" ] && [ -x "$b/osrm-extract" ] && [ -x "$b/osrm-contract" ]; then
            echo "$b"
            return 0
        fi
    done
    return 1
}

if bin="$(find_bin)"; then
    echo "$bin"
    exit 0
fi

# A python that really runs (a pyenv shim for a version that is not selected fails) and is >= 3.12.
usable() { "$1" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; }

python=""
if [ ! -x "$dir/bin/python" ] || ! usable "$dir/bin/python"; then
    for candidate in python3.12 python3.13 python3; do
        if command -v "$candidate" >/dev/null 2>&1 && usable "$candidate"; then
            python="$(command -v "$candidate")"
            break
        fi
    done
    if [ -z "$python" ] && command -v pyenv >/dev/null 2>&1; then
        root="$(pyenv root 2>/dev/null)"
        for candidate in "$root"/versions/3.12.*/bin/python3.12 "$root"/versions/3.13.*/bin/python3.13; do
            if [ -x "$candidate" ] && usable "$candidate"; then
                python="$candidate"
                break
            fi
        done
    fi
    [ -n "$python" ] || fail "no CPython >= 3.12 found (on PATH or in pyenv's versions); osrm-bindings needs one"
    rm -rf "$dir"
    mkdir -p "$(dirname "$dir")" || fail "cannot create $(dirname "$dir")"
    "$python" -m venv "$dir" || fail "could not create a venv at $dir with $python"
fi

"$dir/bin/python" -m pip install -q --only-binary=:all: osrm-bindings >&2 \
    || fail "pip could not install the osrm-bindings wheel (offline, or no wheel for this platform/python?)"

bin="$(find_bin)" || fail "osrm-bindings installed but its osrm/bin has no osrm-routed/osrm-extract/osrm-contract"
"$bin/osrm-routed" --version >/dev/null 2>&1 || fail "$bin/osrm-routed does not run on this machine"
echo "$bin"
