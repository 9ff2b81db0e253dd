#!/usr/bin/env bash
# Installs the Debian packages Wayfinder builds against (Swift itself is expected to be installed).
set -euo pipefail
packages=(libosmium2-dev libprotozero-dev zlib1g-dev libbz2-dev libexpat1-dev libmicrohttpd-dev libjs-leaflet pkg-config
          libprotobuf-dev protobuf-compiler libcgal-dev libmetis-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
command -v swift >/dev/null || { echo "swift is not on PATH: install the Swift 6 toolchain first" >&2; exit 1; }
